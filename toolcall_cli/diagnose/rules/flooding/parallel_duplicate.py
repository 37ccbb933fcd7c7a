"""\
What it does
  Groups the calls of each assistant turn (one message's `tool_calls`, one text message's
  blocks, one BFCL step) by tool name and canonical arguments (parsed JSON with sorted keys;
  arguments that do not parse are compared as raw text) and fires when two or more calls with
  different ids share a group. Calls without arguments are not grouped: asking a generator or
  a clock twice at once can be the point ("two names for my pelican"). Calls seen only by a
  middleware, with no turn, are not grouped. FL001 counts such a turn once.

Why it matters
  The model asked for the same thing several times at once: the tool runs it once per copy
  (a booking or a payment made twice), the results repeat in the context, and a flooding
  limit counts each copy.

Example
  One assistant message holds five `tool_calls` of `get_weather {"city": "Paris"}`, ids
  call_1 to call_5.

Fix
  Turn off parallel tool calls for tools with side effects (`parallel_tool_calls: false`),
  or dedupe identical calls of one turn before dispatch and answer each copy with the one
  result.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.rules.flooding.observed_calls import observed_calls
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.words import NO_ID, plural

RULE = rule(
    "FL007",
    "parallel-duplicate",
    Severity.warning,
    "≥2 calls of one tool with canonically equal arguments inside one assistant turn",
    doc=__doc__,
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Same tool, canonically equal arguments, ≥2 distinct ids in one assistant turn."""
    calls = observed_calls(ctx)
    calls = calls[~calls["_occasion"].astype(str).str.startswith("@") & calls["_canon"].notna()]
    if not len(calls):
        return
    calls = calls.assign(_same=calls["_canon"])
    keys = ["_scope", "_occasion", "tool", "_same"]
    size = calls.groupby(keys, sort=False)["_ident"].transform("nunique")
    calls = calls[size >= 2]
    for (scope, _turn, tool, canon), grp in calls.groupby(keys, sort=True):
        firsts = grp.drop_duplicates("_ident")
        ids = [text(c) for c in firsts["tool_call_id"]]
        shown = [i or NO_ID for i in ids]
        args = str(canon).removeprefix("json:").removeprefix("raw:")
        args = _short(args)
        yield make(
            RULE,
            ctx,
            f"{tool} was called {plural(len(firsts), 'time')} in one assistant turn with {args} "
            f"({', '.join(shown[:5])}{' …' if len(shown) > 5 else ''})",
            firsts,
            call_ids=ids,
            session_id=str(scope),
            tool=str(tool),
            extra={"copies": len(firsts)},
            aim=Aim(key="arguments"),
        )


def _short(s: str, limit: int = 120) -> str:
    return s if len(s) <= limit else s[: limit - 1] + "…"
