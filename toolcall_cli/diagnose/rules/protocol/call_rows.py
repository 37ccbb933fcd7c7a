"""The calls PR001 and PR007 read: observed calls with parsed attrs, one entry per call id."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.frames import objects, with_attrs
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import OBSERVED_CALL_KINDS

if TYPE_CHECKING:
    import pandas as pd


def call_rows(ctx: DiagnoseContext) -> pd.DataFrame:
    """Every observed call (conversation, capture, middleware), with `_attrs` (read only)."""

    def build() -> pd.DataFrame:
        ev = with_attrs(ctx)
        return ev[ev["kind"].isin(OBSERVED_CALL_KINDS)]

    return ctx.memo("observed_call_rows", build)  # three rules read it; none writes to it


def row_mask(rows: pd.DataFrame, flags: list[bool]) -> pd.Series:
    """A boolean row mask (a bare empty list would select columns, not rows)."""
    import pandas as pd

    return pd.Series(flags, index=rows.index, dtype=bool)


def per_call(rows: pd.DataFrame) -> Iterator[tuple[str | None, list[Any]]]:
    """(tool_call_id, row labels) per call, first row first: rows sharing a non-empty id are
    one call (the conversation and a capture of the same completion)."""
    by_id: dict[str, list[Any]] = {}
    order: list[tuple[str | None, list[Any]]] = []
    for label, raw in zip(rows.index.tolist(), objects(rows, "tool_call_id"), strict=True):
        cid = text(raw)
        if not cid:
            order.append((cid, [label]))
        elif cid in by_id:
            by_id[cid].append(label)
        else:
            by_id[cid] = [label]
            order.append((cid, by_id[cid]))
    yield from order
