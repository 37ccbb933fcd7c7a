"""Retry after remediation: repeats of one call that each follow a different action and end
in success are the model fixing what an error named, not a loop (FL001 skips them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.frames import first_rows
from toolcall_cli.diagnose.kit.tool_failures import call_outcomes
from toolcall_cli.diagnose.rules.flooding.observed_calls import observed_calls
from toolcall_cli.model.cells import text

if TYPE_CHECKING:
    import pandas as pd


def retried_after_remediation(ctx: DiagnoseContext, group: pd.DataFrame) -> bool:
    """True when, in *group* (one session's calls of one tool with equal arguments, with
    `_occasion` and `_rank` from `observed_calls`), another action came between every two
    occasions and the last occasion's calls came back without a failure."""
    occasions = group.drop_duplicates("_occasion").sort_values("_rank", kind="stable")
    occasions = occasions[occasions["_rank"].notna()]  # turns of the conversation's record
    ranks = [int(r) for r in occasions["_rank"].tolist()]
    scope = group["_scope"].iloc[0]
    mixed = _mixed_occasions(ctx)
    for earlier, (later, occ) in zip(
        ranks, zip(ranks[1:], occasions["_occasion"].tolist()[1:], strict=True), strict=False
    ):
        if later - earlier < 2 and (scope, occ) not in mixed:
            return False  # back-to-back repeats: nothing changed between them
    last = group[group["_occasion"] == occasions["_occasion"].iloc[-1]]
    outcomes = call_outcomes(ctx)
    got = [outcomes.get(text(c) or "") for c in last["tool_call_id"].tolist()]
    return bool(got) and all(failed is False for failed in got)


def _mixed_occasions(ctx: DiagnoseContext) -> set[tuple[object, object]]:
    """(scope, occasion) of the turns that hold more than one distinct action: a retry made
    beside a remedy in one turn (`pressBrakePedal` then `startEngine`) follows a change."""

    def build() -> set[tuple[object, object]]:
        calls = observed_calls(ctx)
        # one row per call: the middleware's record of a call (no arguments) is the same
        # action as the conversation's, not a second one beside it
        calls = calls.sort_values("_canon", na_position="last", kind="stable")
        calls = first_rows(calls, ["_scope", "_ident"])
        actions = calls.assign(
            _action=calls["tool"].astype(str) + "\0" + calls["_canon"].fillna("")
        )
        n = actions.groupby(["_scope", "_occasion"], sort=False)["_action"].nunique()
        return set(n[n > 1].index.tolist())

    return ctx.memo("flooding:mixed_occasions", build)
