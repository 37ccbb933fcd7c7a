"""Calls whose turn the user aborted: an abort marker (attrs `turn_aborted`: Codex's
`turn_aborted` event, Claude Code's `[Request interrupted by user]` turn) comes after the call
in its conversation before the model's next turn and before the next prompt. The user stopped
the turn while the call was pending; a call the model had moved on from is not explained so."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.frames import attr, has_key
from toolcall_cli.diagnose.orphans.pairing import conversation_rows

if TYPE_CHECKING:
    import pandas as pd

_MODEL_KINDS = ("tool_call", "assistant_text")


def aborted_calls(ctx: DiagnoseContext) -> dict[int, int]:
    """Call row → the row of the abort marker that ended its turn (computed once)."""
    return ctx.memo("aborted_calls", lambda: _build(conversation_rows(ctx)))


def _build(conv: pd.DataFrame) -> dict[int, int]:
    import numpy as np
    import pandas as pd

    if not len(conv):
        return {}
    marker = has_key(conv, "turn_aborted")
    if not marker.any():
        return {}
    key = [conv["session_id"].fillna("").astype(str), conv["_file"]]
    kind = conv["kind"]
    model = kind.isin(_MODEL_KINDS)
    # the model's turn of each of its rows (parallel calls share one); rows are in seq order
    turn = pd.to_numeric(attr(conv, "turn"), errors="coerce").fillna(conv["_msg"]).where(model)
    before = turn.groupby(key, sort=False).ffill().groupby(key, sort=False).shift(1)
    next_turn = (model & (turn != before)).to_numpy(dtype=bool)
    prompt = (kind == "user").to_numpy(dtype=bool) & ~marker
    labels = conv.index.to_numpy()
    # per row, the first boundary after it in its conversation: a marker (its label), or the
    # next prompt or model turn (-1)
    boundary = pd.Series(
        np.where(marker, labels, np.where(prompt | next_turn, -1, np.nan)),
        index=conv.index,
        dtype=float,
    )
    after = boundary.groupby(key, sort=False).shift(-1).groupby(key, sort=False).bfill()
    hit = (kind == "tool_call").to_numpy(dtype=bool) & (after.to_numpy() >= 0)
    return {
        int(c): int(m)
        for c, m in zip(labels[hit].tolist(), after.to_numpy()[hit].tolist(), strict=True)
    }
