"""\
What it does
  Groups a session's tool calls by tool name and canonical arguments (parsed JSON with sorted
  keys; arguments that do not parse are compared as raw text) and fires when three or more
  calls with different ids share a group. Calls without arguments ({} or "") are not grouped:
  repeating a parameterless call (list, refresh) is normal. Identical calls that failed count
  too: a model retrying a failing call unchanged is the classic loop. Calls are counted per
  assistant turn: identical calls inside one turn are FL007 (parallel-duplicate), not a loop.
  A retry after remediation is not a loop either: when every repeat follows a different
  action (`startEngine` fails, the model calls `lockDoors` and `pressBrakePedal`, then
  `startEngine` again) and the last repeat succeeds, the model fixed what the error named.

Why it matters
  A model that repeats the same call is not getting a result it can use: the result is
  missing, truncated, an error it does not understand, or injected in the wrong place. The
  repeats trip the middleware's flooding limit, and the cancellation hides the real cause.

Example
  search_flights {"from": "SFO", "to": "JFK", "date": "2024-05-01"} called as call_1, call_2,
  call_3 and call_4; the middleware cancels call_4 with "tool-call flooding was detected".

Fix
  Look at the result the model received after the first call (see OR001, TR002, PR006 for
  the same session): make sure it is injected right after its call, complete, and readable.
  Return errors as short actionable text, and add identical-call dedupe that answers the
  repeat with the earlier result instead of cancelling it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import column, rows_by_call
from toolcall_cli.diagnose.rules.flooding.cancellations import cite_floods
from toolcall_cli.diagnose.rules.flooding.observed_calls import observed_calls
from toolcall_cli.diagnose.rules.flooding.remediation import retried_after_remediation
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import RESULT_KINDS
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.words import NO_ID, plural

if TYPE_CHECKING:
    import pandas as pd

#: A loop is this many calls of one tool with equal arguments and different ids.
LOOP_MIN = 3
#: Characters of the first call's result that locate it in the quoted line.
_HEAD = 40

RULE = rule(
    "FL001",
    "model-loop",
    Severity.error,
    "≥3 calls of one tool with canonically equal arguments, different ids, in one session",
    doc=__doc__,
)


def _short(s: str | None, limit: int = 120) -> str:
    s = s or ""
    s = s.removeprefix("json:").removeprefix("raw:")
    return s if len(s) <= limit else s[: limit - 1] + "…"


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Same tool, canonically equal arguments, ≥3 distinct ids in one session."""
    calls = observed_calls(ctx)
    calls = calls[calls["_canon"].notna()]
    if not len(calls):
        return
    # only groups that can reach the threshold (cheap pre-filter before the per-group work)
    size = calls.groupby(["_scope", "tool", "_canon"], sort=False)["_occasion"].transform("nunique")
    calls = calls[size >= LOOP_MIN]
    for (scope, tool, canon), grp in calls.groupby(["_scope", "tool", "_canon"], sort=True):
        idents = list(dict.fromkeys(grp["_ident"]))
        if grp["_occasion"].nunique() < LOOP_MIN or retried_after_remediation(ctx, grp):
            continue
        firsts = grp.drop_duplicates("_ident")
        ids = [text(c) for c in firsts["tool_call_id"]]
        shown = [i or NO_ID for i in ids]
        rows, aims = _story(ctx, firsts, ids[0], str(scope), str(tool))
        yield make(
            RULE,
            ctx,
            f"{tool} was called {plural(len(idents), 'time')} with the same arguments "
            f"{_short(str(canon))} "
            f"({', '.join(shown[:5])}{' …' if len(shown) > 5 else ''})",
            rows,
            call_ids=ids,
            session_id=str(scope),
            tool=str(tool),
            extra={"repeats": len(idents)},
            aims=aims,
        )


def _story(
    ctx: DiagnoseContext, firsts: pd.DataFrame, first_id: str | None, scope: str, tool: str
) -> tuple[list[int], dict[int, Aim]]:
    """The rows that tell the loop, in reading order: the first call, the result the model got
    after it, the flooding cancellation, the repeats; and the point of each row."""
    labels = [int(x) for x in firsts.index]
    cited = cite_floods(ctx, labels, session_ids=[scope])
    flood = cited[:1] if len(cited) > len(labels) else []
    kinds, details = column(ctx, "kind"), column(ctx, "detail")
    result = [i for i in rows_by_call(ctx).labels(first_id) if kinds[i] in RESULT_KINDS][:1]
    aims = {i: Aim(key="arguments", needle=tool) for i in labels}
    for i in result:
        aims[i] = Aim(key="content", needle=(text(details[i]) or "")[:_HEAD] or None)
    for i in flood:
        aims[i] = Aim(key="msg", needle="flooding")
    return [labels[0], *result, *flood, *labels[1:]], aims
