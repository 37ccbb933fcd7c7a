"""\
What it does
  Compares each called tool name with the registry (`--tools`, the config's `tools`) or, when
  none is given, with the tools the conversation declared. Names found nowhere are reported
  once per session with a did-you-mean, made after stripping leaked chat-template tokens
  (`startEngine<|channel|>commentary` → `startEngine`, see PR009) and only when a known name
  is close token by token: at most one word spelt differently (`get_wether` → `get_weather`),
  added or dropped; `calculate_sphere_volume` gets no suggestion of `calculate_park_area`.
  Skipped when no tool list is known. A call answered with `tool_reference` blocks is a tool
  search (Anthropic's tool-search protocol: the result loads deferred tools); an agent
  framework replays one into a request whose `tools` do not name the search tool (pydantic-ai
  does, with an `auto_load_` id), and providers accept it: the finding is info.

Why it matters
  The model invented or misremembered a tool; the middleware rejects the call or, worse, a
  lenient router sends it to whatever matches.

Example
  The model calls `get_wether`; the registry has `get_weather`.

Fix
  Check the tool list sent to the model (a tool missing from this request's `tools`?), keep
  names distinct, and answer unknown names with a tool error that lists the real ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.rules.protocol.template_tokens import template_tokens
from toolcall_cli.diagnose.rules.protocol.tool_names import name_checks
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import RESULT_KINDS
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.words import plural

RULE = rule(
    "PR002",
    "unknown-tool",
    Severity.error,
    "a name not in the registry (with did-you-mean)",
    doc=__doc__,
    other_severities={
        Severity.info: "a tool search: the call's result is a list of tool_reference blocks"
    },
)

#: The fix of a replayed tool search: nothing failed, a history to keep portable.
SEARCH_FIX = (
    "Nothing failed if the provider answered the request. To keep the history portable, "
    "declare the search tool in the request's tools, or replay the search as the target "
    "provider's own tool-search block."
)
#: How a tool_reference block reads in a result's text (compact JSON, the source's rendering).
_TOOL_REFERENCE = re.compile(r'"type"\s*:\s*"tool_reference"')


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR002: one finding per (session, unknown name), with a did-you-mean."""
    searches: set[str] | None = None
    for code, sid, name, hint, rows in name_checks(ctx):
        if code != RULE.code:
            continue
        ids = [t for c in rows["tool_call_id"] if (t := text(c))]
        calls = plural(len(ids) or len(rows), "call")
        mean = f"; did you mean {hint!r}?" if hint else ""
        if hint and template_tokens(name):
            mean += " (its chat-template tokens stripped, see PR009)"
        searches = _tool_searches(ctx) if searches is None else searches
        search = bool(ids) and all(i in searches for i in ids)
        if search:
            mean += (
                "; its result is a list of tool_reference blocks: a tool search, replayed "
                "into a request that does not declare the search tool"
            )
        yield make(
            RULE,
            ctx,
            f"{calls} to {name!r}, which is not a known tool{mean}",
            rows,
            call_ids=ids,
            session_id=sid or None,
            tool=name,
            severity=Severity.info if search else RULE.severity,
            fix=SEARCH_FIX if search else None,
            extra={"did_you_mean": hint},
            aim=Aim(key="name", needle=name),
        )


def _tool_searches(ctx: DiagnoseContext) -> set[str]:
    """Ids of the calls whose tool result carries tool_reference blocks (a tool search)."""
    ev = ctx.events()
    res = ev[ev["kind"].isin(RESULT_KINDS) & ev["tool_call_id"].notna() & ev["detail"].notna()]
    hit = res["detail"].astype(str).str.contains(_TOOL_REFERENCE)
    return {str(c) for c in res.loc[hit.to_numpy(dtype=bool), "tool_call_id"]}
