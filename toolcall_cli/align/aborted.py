"""Calls whose turn the user aborted: an abort marker (attrs `turn_aborted`: Codex's
`turn_aborted` event, Claude Code's `[Request interrupted by user]` turn) comes after the call
in its conversation before the model's next turn and before the next prompt. The user stopped
the turn while the call was pending; a call the model had moved on from is not explained so.

The timeline calls such a call `cancelled` (not `missing`), OR001 leaves it alone (no hop of
the round trip failed) and replay observes it `unknown` (not a silent drop). All read
:func:`aborted_turn_calls`, so they never disagree.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.align.arrays import EventArrays, attr_fields, true_mask
from toolcall_cli.model.events import CONVERSATION_KINDS
from toolcall_cli.model.origins import files_of, records_of

#: The attrs key an abort marker carries (set by the transcript readers).
MARKER = "turn_aborted"
_MODEL_KINDS = ("tool_call", "assistant_text")


def conversation_of(origin: pd.Series, session: pd.Series, trace: pd.Series) -> pd.Series:
    """Which conversation each conversation row belongs to: a JSON-lines record (`path:N`) is
    a conversation of its own unless it names its session or trace — an agent log's or an
    export's lines are records of the session (trace) they name, a messages JSONL line without
    one is a conversation by itself. (The session is the other grouping key.)"""
    record = records_of(origin).astype(str)  # `path` or `path:N`
    file = files_of(origin).astype(str)
    session = session.fillna("").astype(str)
    trace = trace.fillna("").astype(str)
    return record.mask(session != "", file).mask(
        (session == "") & (trace != ""), file + "\x1ftrace:" + trace
    )


def aborted_turn_calls(conv: pd.DataFrame, marker: np.ndarray, turn: pd.Series) -> dict[int, int]:
    """Call label → label of the abort marker that ended its turn.

    *conv*: conversation rows in seq order with `kind`, `session_id`, `_file` (see
    :func:`conversation_of`) and `_msg` (message index); *marker*: the rows that are abort
    markers; *turn*: the model turn each row's attrs give (None where absent)."""
    if not len(conv) or not marker.any():
        return {}
    key = [conv["session_id"].fillna("").astype(str), conv["_file"]]
    kind = conv["kind"]
    model = kind.isin(_MODEL_KINDS)
    # the model's turn of each of its rows (parallel calls share one); rows are in seq order
    turns = pd.to_numeric(turn, errors="coerce").fillna(conv["_msg"]).where(model)
    before = turns.groupby(key, sort=False).ffill().groupby(key, sort=False).shift(1)
    next_turn = (model & (turns != before)).to_numpy(dtype=bool)
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


def aborted_positions(events: pd.DataFrame, a: EventArrays) -> tuple[np.ndarray, np.ndarray]:
    """(positions in *events* of the tool calls whose turn the user aborted, the position of
    the marker that aborted each). Cheap when no conversation row carries a marker: one
    substring scan of the conversation rows' attrs."""
    none = np.array([], dtype=np.int64)
    rows = np.flatnonzero(a.kind.mask(CONVERSATION_KINDS))
    attrs = a.attrs.take(pa.array(rows))
    if not true_mask(pc.match_substring(attrs, f'"{MARKER}"')).any():
        return none, none
    sub = events.iloc[rows].set_axis(rows)
    got = sorted(_aborted(sub, attrs, a.seq[rows]).items())
    if not got:
        return none, none
    calls, markers = zip(*got, strict=True)
    return np.array(calls, dtype=np.int64), np.array(markers, dtype=np.int64)


def markers_of(rows: np.ndarray, aborted: np.ndarray, markers: np.ndarray) -> np.ndarray:
    """Per position in *rows*, the position of the marker that aborted its turn, else -1
    (*aborted* and *markers* as `aborted_positions` returns them)."""
    out = np.full(len(rows), -1, dtype=np.int64)
    at = np.isin(rows, aborted)
    out[at] = markers[np.searchsorted(aborted, rows[at])]
    return out


def aborted_rows(events: pd.DataFrame) -> set[Any]:
    """Row labels of the tool calls of *events* whose turn the user aborted (the event table
    as is, aligned or not)."""
    sub = events[events["kind"].isin(CONVERSATION_KINDS).to_numpy(dtype=bool)]
    marked = sub["attrs"].str.contains(f'"{MARKER}"', regex=False).fillna(False)
    if not marked.to_numpy(dtype=bool).any():
        return set()
    attrs = pa.array(sub["attrs"].astype(object), type=pa.large_string(), from_pandas=True)
    return set(_aborted(sub, attrs, sub["seq"].to_numpy()))


def _aborted(sub: pd.DataFrame, attrs: pa.Array, seq: np.ndarray) -> dict[Any, Any]:
    """`aborted_turn_calls` of the conversation rows *sub* (their `attrs` as Arrow text and
    their `seq`), by *sub*'s labels."""
    fields = attr_fields(attrs, (MARKER, "turn", "msg_index"))
    conv = pd.DataFrame(
        {
            "kind": sub["kind"].to_numpy(dtype=object),
            "session_id": sub["session_id"].to_numpy(dtype=object),
            "_file": conversation_of(sub["origin"], sub["session_id"], sub["trace_id"]).to_numpy(
                dtype=object
            ),
            "_msg": pd.to_numeric(
                pd.Series(fields["msg_index"].to_pandas()), errors="coerce"
            ).to_numpy(),
            "_turn": fields["turn"].to_pandas().to_numpy(dtype=object),
            "_marker": true_mask(pc.is_valid(fields[MARKER])),
        },
        index=sub.index,
    )
    conv = conv.iloc[np.argsort(seq, kind="stable")]
    return aborted_turn_calls(conv, conv["_marker"].to_numpy(dtype=bool), conv["_turn"])
