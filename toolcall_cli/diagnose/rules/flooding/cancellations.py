"""Flooding cancellations: the rows where a middleware, a tool or a proxy said it cancelled a
call as tool-call flooding, and the first of them to cite beside a cause."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.evidence import missing
from toolcall_cli.diagnose.kit.frames import column, with_attrs
from toolcall_cli.model.events import CANCELLATION_TEXT_KINDS

if TYPE_CHECKING:
    import pandas as pd

    from toolcall_cli.diagnose.kit.finding_builder import Rows

#: How a flooding cancellation reads in any source (middleware text, a tool result, a proxy).
_FLOOD_PHRASE = r"tool[- ]call flooding|flooding (?:was )?detected|cancelled because .*flood"


def flood_rows(ctx: DiagnoseContext) -> pd.DataFrame:
    """Flooding cancellations: mw_flooded events, or events whose text names tool-call flooding."""

    def build() -> pd.DataFrame:
        ev = with_attrs(ctx)
        detail = ev["detail"].fillna("").str.lower()
        phrase = detail.str.contains(_FLOOD_PHRASE, regex=True) & ev["kind"].isin(
            CANCELLATION_TEXT_KINDS
        )
        return ev[(ev["kind"] == "mw_flooded") | phrase]

    return ctx.memo("flood_rows", build)


def cite_floods(
    ctx: DiagnoseContext, rows: Rows, *, session_ids: Sequence[str | None] = ()
) -> list[int]:
    """The labels of *rows* led by the first flooding cancellation of the same sessions or
    calls (the evidence to cite), for `make`."""
    import pandas as pd

    labels = rows.index.tolist() if isinstance(rows, pd.DataFrame) else [int(x) for x in rows]
    by_session, by_call = _flood_index(ctx)
    if not by_session and not by_call:
        return labels
    sess, calls = column(ctx, "session_id"), column(ctx, "tool_call_id")
    first: list[int] = []
    for s in session_ids:
        if s and s in by_session:
            first.append(by_session[s])
    for i in labels:
        s, c = sess[i], calls[i]
        if not missing(s) and s in by_session:
            first.append(by_session[s])
        if not missing(c) and c and c in by_call:
            first.append(by_call[c])
    # the cancellation that comes first in the event table (as the frame filter it replaces)
    return [min(first), *labels] if first else labels


def _flood_index(ctx: DiagnoseContext) -> tuple[dict[str, int], dict[str, int]]:
    """session id → first flooding row, call id → first flooding row (labels)."""

    def build() -> tuple[dict[str, int], dict[str, int]]:
        fl = flood_rows(ctx)
        by_session: dict[str, int] = {}
        by_call: dict[str, int] = {}
        for label, s, c in zip(
            fl.index.tolist(), fl["session_id"].tolist(), fl["tool_call_id"].tolist(), strict=True
        ):
            if not missing(s):
                by_session.setdefault(str(s), int(label))
            if not missing(c) and c:
                by_call.setdefault(str(c), int(label))
        return by_session, by_call

    return ctx.memo("flood_index", build)
