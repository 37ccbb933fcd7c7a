"""\
What it does
  Fires when one tool_call_id is carried by two or more different calls (different tool or
  different arguments) in one session, across turns or inside one turn, and when calls have
  an empty id (""). The same call repeated in a replayed history (same id, tool and
  arguments) is not a duplicate. It is an error when the calls share one turn (or the
  middleware rejected the repeat), a warning when an id is reused in a later turn after the
  first call was answered: pairing still works there, but only by luck.

Why it matters
  Results are paired with calls by id. Two calls with one id make one of them unanswerable,
  a dedupe or flooding guard keyed on the id cancels the second as a repeat, and providers
  reject the next request ("Duplicate value for 'tool_call_id'", "tool_use ids must be
  unique"). An empty id cannot be paired at all.

Example
  Turn 3 calls get_weather {"city": "Paris"} as call_0 and turn 5 calls get_time
  {"tz": "CET"} as call_0 again: the framework restarts its id counter every turn.

Fix
  Generate ids that are unique for the whole conversation (the provider's ids, or a UUID);
  never reuse a counter per turn, and never send "" as an id.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import attr, first_rows, of_kind
from toolcall_cli.diagnose.kit.incidents import FLOOD_OR001
from toolcall_cli.diagnose.rules.flooding.cancellations import cite_floods
from toolcall_cli.diagnose.rules.flooding.observed_calls import observed_calls
from toolcall_cli.model.events import MIDDLEWARE_NOTE_KINDS
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim

if TYPE_CHECKING:
    import pandas as pd

RULE = rule(
    "FL003",
    "duplicate-call-id",
    Severity.error,
    "one tool_call_id on two or more different calls (id generation defect)",
    doc=__doc__,
    other_severities={
        Severity.warning: "an id reused in a later turn after the first call was answered, or "
        "one call with an empty id"
    },
    explains=(FLOOD_OR001,),
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One id on different calls (tool or arguments differ), and empty ids."""
    import pandas as pd

    calls = observed_calls(ctx)
    # a middleware line that did not log the arguments says nothing about them
    known = (calls["kind"] == "tool_call") | calls["args"].notna()
    calls = calls[calls["tool_call_id"].notna() & known]
    if not len(calls):
        return
    calls = calls.assign(_what=calls["tool"].astype(str) + "|" + calls["_canon"].fillna("{}"))
    distinct = first_rows(calls, ["_scope", "tool_call_id", "_what"])
    counts = distinct.groupby(["_scope", "tool_call_id"], sort=False).size()
    suspects = {k for k, n in counts.items() if n > 1 or cast(tuple[str, str], k)[1] == ""}
    if not suspects:
        return
    keys = pd.Series(
        list(zip(distinct["_scope"], distinct["tool_call_id"], strict=True)), index=distinct.index
    )
    distinct = distinct[keys.isin(suspects)]
    rejected = _rejected_as_duplicate(ctx)
    for (scope, cid), variants in distinct.groupby(["_scope", "tool_call_id"], sort=True):
        if cid == "":
            yield _empty_id(ctx, str(scope), variants)
            continue
        tools = ", ".join(dict.fromkeys(str(t) for t in variants["tool"]))
        turns = attr(variants, "msg_index").fillna(attr(variants, "turn"))
        one_turn = bool(turns.notna().all() and turns.duplicated().any()) or turns.isna().all()
        noticed = str(cid) in rejected
        where = "in one turn" if one_turn else "in different turns"
        sev = Severity.error if (one_turn or noticed) else Severity.warning
        yield make(
            RULE,
            ctx,
            f"tool_call_id {cid} is carried by {len(variants)} different calls {where} ({tools})"
            + ("; the middleware rejected the repeat" if noticed else ""),
            cite_floods(ctx, variants, session_ids=[str(scope)]),
            call_ids=[str(cid)],
            session_id=str(scope),
            severity=sev,
            extra={"calls": len(variants), "same_turn": one_turn},
            aim=Aim(key="id", needle=str(cid)),
        )


def _empty_id(ctx: DiagnoseContext, scope: str, variants: pd.DataFrame) -> Finding:
    n = len(variants)
    what = f"{n} different calls have" if n > 1 else f"a call of {variants['tool'].iloc[0]} has"
    return make(
        RULE,
        ctx,
        f"{what} an empty tool_call_id; results cannot be paired with "
        f"{'them' if n > 1 else 'it'} by id",
        cite_floods(ctx, variants, session_ids=[scope]),
        call_ids=[],
        session_id=scope,
        severity=Severity.error if n > 1 else Severity.warning,
        extra={"calls": n, "empty_id": True},
        aim=Aim(key="id"),
    )


def _rejected_as_duplicate(ctx: DiagnoseContext) -> set[str]:
    """Ids the middleware rejected or cancelled as duplicates."""
    mw = of_kind(ctx, *MIDDLEWARE_NOTE_KINDS)
    said = mw["detail"].fillna("").str.contains("duplicate", case=False) | attr(
        mw, "reason"
    ).fillna("").astype(str).str.contains("duplicate", case=False)
    return {str(c) for c in mw.loc[said, "tool_call_id"].dropna()}
