"""The context's row indexes by tool_call_id (`core.rows_by_key.RowsByKey`): `rows_by_call`
for every id, `rows_of_calls` for a few named ids."""

from __future__ import annotations

from collections.abc import Iterable

from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.frames import isin_set
from toolcall_cli.model.rows_by_key import RowsByKey


def rows_by_call(ctx: DiagnoseContext) -> RowsByKey:
    """Labels of the event-table rows per tool_call_id (built once per context)."""
    return ctx.memo("rows_by_call_id", lambda: RowsByKey(ctx.events()["tool_call_id"]))


def rows_of_calls(ctx: DiagnoseContext, ids: Iterable[str | None]) -> RowsByKey:
    """Labels of the event-table rows per tool_call_id, for the named ids only (one hashed
    pass over the column; cheaper than indexing every id when findings are few)."""
    col = ctx.events()["tool_call_id"]
    return RowsByKey(col[isin_set(col, {i for i in ids if i is not None})])
