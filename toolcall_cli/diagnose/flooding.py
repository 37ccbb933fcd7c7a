"""Flooding caused by the model or by id generation: model loops (FL001), duplicate ids (FL003).

A "tool call cancelled because tool-call flooding was detected" is a symptom. These rules read
the calls themselves: the same call repeated with fresh ids is the model looping (it never saw
a usable result); one id carried by different calls is a broken id generator, which a
middleware's dedupe then mistakes for a flood.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import pandas as pd

from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose._common import attr, canonical_args, cite_floods, make, of_kind, text
from toolcall_cli.diagnose.base import DiagnoseContext

#: A loop is this many calls of one tool with equal arguments and different ids.
LOOP_MIN = 3

FL001 = rule(
    "FL001",
    "model-loop",
    Severity.error,
    "≥3 calls of one tool with canonically equal arguments, different ids, in one session",
    doc="""\
What it does
  Groups a session's tool calls by tool name and canonical arguments (parsed JSON with sorted
  keys; arguments that do not parse are compared as raw text) and fires when three or more
  calls with different ids share a group. Calls without arguments ({} or "") are not grouped:
  repeating a parameterless call (list, refresh) is normal. Identical calls that failed count
  too: a model retrying a failing call unchanged is the classic loop.

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
""",
)

FL003 = rule(
    "FL003",
    "duplicate-call-id",
    Severity.error,
    "one tool_call_id on two or more different calls (id generation defect)",
    doc="""\
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
""",
)


def _calls(ctx: DiagnoseContext) -> pd.DataFrame:
    """Every observed tool call (conversation, capture, middleware) with scope and identity."""

    def build() -> pd.DataFrame:
        calls = of_kind(ctx, "tool_call", "mw_received").copy()
        calls = calls[calls["tool"].notna()]
        calls["_scope"] = calls["session_id"].fillna(calls.get("trace", calls["trace_id"]))
        ids = calls["tool_call_id"].astype(object)
        calls["_ident"] = ids.where(ids.notna() & (ids != ""), "@" + calls["origin"].astype(str))
        calls["_canon"] = [canonical_args(a) for a in calls["args"].tolist()]
        return calls[calls["_scope"].notna()]

    return ctx.memo("flooding_calls", build)


def _short(s: str | None, limit: int = 120) -> str:
    s = s or ""
    s = s.removeprefix("json:").removeprefix("raw:")
    return s if len(s) <= limit else s[: limit - 1] + "…"


@CLASSIFIERS.register("FL001")
def model_loop(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Same tool, canonically equal arguments, ≥3 distinct ids in one session."""
    calls = _calls(ctx)
    calls = calls[calls["_canon"].notna()]
    if not len(calls):
        return
    # only groups that can reach the threshold (cheap pre-filter before the per-group work)
    size = calls.groupby(["_scope", "tool", "_canon"], sort=False)["_ident"].transform("nunique")
    calls = calls[size >= LOOP_MIN]
    for (scope, tool, canon), grp in calls.groupby(["_scope", "tool", "_canon"], sort=True):
        idents = list(dict.fromkeys(grp["_ident"]))
        if len(idents) < LOOP_MIN:
            continue
        firsts = grp.drop_duplicates("_ident")
        ids = [text(c) for c in firsts["tool_call_id"]]
        shown = [i or "(empty id)" for i in ids]
        yield make(
            FL001,
            ctx,
            f"{tool} was called {len(idents)} times with the same arguments {_short(str(canon))} "
            f"({', '.join(shown[:5])}{' …' if len(shown) > 5 else ''})",
            cite_floods(ctx, firsts, session_ids=[str(scope)]),
            call_ids=ids,
            session_id=str(scope),
            tool=str(tool),
            extra={"repeats": len(idents)},
        )


@CLASSIFIERS.register("FL003")
def duplicate_call_id(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One id on different calls (tool or arguments differ), and empty ids."""
    calls = _calls(ctx)
    # a middleware line that did not log the arguments says nothing about them
    known = (calls["kind"] == "tool_call") | calls["args"].notna()
    calls = calls[calls["tool_call_id"].notna() & known]
    if not len(calls):
        return
    calls = calls.assign(_what=calls["tool"].astype(str) + "|" + calls["_canon"].fillna("{}"))
    distinct = calls.drop_duplicates(["_scope", "tool_call_id", "_what"])
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
            FL003,
            ctx,
            f"tool_call_id {cid} is carried by {len(variants)} different calls {where} ({tools})"
            + ("; the middleware rejected the repeat" if noticed else ""),
            cite_floods(ctx, variants, session_ids=[str(scope)]),
            call_ids=[str(cid)],
            session_id=str(scope),
            severity=sev,
            extra={"calls": len(variants), "same_turn": one_turn},
        )


def _empty_id(ctx: DiagnoseContext, scope: str, variants: pd.DataFrame) -> Finding:
    n = len(variants)
    what = f"{n} different calls have" if n > 1 else f"a call of {variants['tool'].iloc[0]} has"
    return make(
        FL003,
        ctx,
        f"{what} an empty tool_call_id; results cannot be paired with them by id",
        cite_floods(ctx, variants, session_ids=[scope]),
        call_ids=[],
        session_id=scope,
        severity=Severity.error if n > 1 else Severity.warning,
        extra={"calls": n, "empty_id": True},
    )


def _rejected_as_duplicate(ctx: DiagnoseContext) -> set[str]:
    """Ids the middleware rejected or cancelled as duplicates."""
    mw = of_kind(ctx, "mw_rejected", "mw_flooded", "mw_dropped", "mw_other")
    said = mw["detail"].fillna("").str.contains("duplicate", case=False) | attr(
        mw, "reason"
    ).fillna("").astype(str).str.contains("duplicate", case=False)
    return {str(c) for c in mw.loc[said, "tool_call_id"].dropna()}
