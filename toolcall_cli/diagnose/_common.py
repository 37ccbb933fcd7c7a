"""Helpers every classifier family shares: attrs access, event subsets, finding construction."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from toolcall_cli.core.findings import Finding, Rule
from toolcall_cli.core.jsonio import canonical, try_loads
from toolcall_cli.diagnose._byid import attr_list
from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.evidence import (
    ROW_COLUMNS,
    evidence_from,
    frame_cells,
    locate,
    missing,
)

#: How a flooding cancellation reads in any source (middleware text, a tool result, a proxy).
_FLOOD_PHRASE = r"tool[- ]call flooding|flooding (?:was )?detected|cancelled because .*flood"
_HEADING = re.compile(r"^(What it does|Why it matters|Example|Fix)\s*:?\s*$", re.M)

#: What a finding is proven by: a frame of event rows, or the labels of rows of the context's
#: event table (`ctx.events()`; its index is 0..n-1) — cheaper when findings are many.
Rows = pd.DataFrame | Sequence[int] | np.ndarray


def attrs_of(value: Any) -> dict[str, Any]:
    """The `attrs` cell as a dict ({} for null/empty/invalid)."""
    if not isinstance(value, str) or not value:
        return {}
    got = try_loads(value)
    return got if isinstance(got, dict) else {}


def with_attrs(ctx: DiagnoseContext) -> pd.DataFrame:
    """The aligned events plus a parsed `_attrs` column of dicts (computed once per context).

    The dicts are shared between rows with equal `attrs` text: read them, never write them.
    """

    def build() -> pd.DataFrame:
        ev = ctx.events().copy(deep=False)  # only a column is added; the table stays shared
        ev["_attrs"] = pd.Series(_parse_attrs(ev["attrs"]), index=ev.index, dtype=object)
        return ev

    return ctx.memo("events_with_attrs", build)


def _parse_attrs(cells: pd.Series) -> np.ndarray:
    """`attrs_of` over a column, parsing each distinct text once (logs repeat the same attrs
    on most lines: one method, path and agent; one event name per middleware step)."""
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)
    parsed = np.empty(len(uniques) + 1, dtype=object)
    for k, a in enumerate(uniques.tolist()):
        parsed[k] = attrs_of(a)
    parsed[-1] = {}  # null cells (code -1)
    return parsed[codes]


def of_kind(
    ctx: DiagnoseContext, *kinds: str, columns: Sequence[str] | None = None
) -> pd.DataFrame:
    """Events of the given kinds (with `_attrs`), in event-table order; only *columns* (and
    `_attrs`) when given — a filter copies every column it keeps, at a million rows that shows."""
    ev = with_attrs(ctx)
    mask = ev["kind"].isin(kinds).to_numpy()
    if columns is None:
        return ev[mask]
    keep = [c for c in dict.fromkeys([*columns, "_attrs"]) if c in ev.columns]
    return ev.loc[mask, keep]


def attr(rows: pd.DataFrame, key: str) -> pd.Series:
    """One attrs key as a Series aligned with *rows* (None where absent)."""
    return pd.Series(attr_list(rows, key), index=rows.index, dtype=object)


def text(value: Any) -> str | None:
    """A cell as str, or None for null."""
    if value is None:
        return None
    if not isinstance(value, str) and pd.isna(value):
        return None
    return str(value)


def canonical_args(raw: Any) -> str | None:
    """Canonical text of arguments: canonical JSON when they parse, else the raw text.

    Returns None for calls without arguments ("" / "{}" / null), which loop detection skips.
    """
    s = text(raw)
    if s is None or not s.strip():
        return None
    parsed = try_loads(s)
    if parsed is None and s.strip() != "null":
        return "raw:" + s.strip()
    if parsed in (None, {}, [], ""):
        return None
    return "json:" + canonical(parsed)


def doc_section(rule: Rule, heading: str) -> str | None:
    """The text under *heading* in the rule's doc, as one paragraph."""
    parts = _HEADING.split(rule.doc)
    for i in range(1, len(parts) - 1, 2):
        if parts[i] == heading:
            body = " ".join(line.strip() for line in parts[i + 1].strip().splitlines())
            return body or None
    return None


def make(
    rule: Rule,
    ctx: DiagnoseContext,
    message: str,
    rows: Rows,
    *,
    call_ids: Iterable[str | None] = (),
    session_id: str | None = None,
    trace_id: str | None = None,
    tool: str | None = None,
    extra: dict[str, Any] | None = None,
    explanation: str | None = None,
    fix: str | None = None,
    limit: int = 5,
    **kw: Any,
) -> Finding:
    """A finding of *rule* proven by *rows*: ids, trace and session filled from the rows."""
    ids = _unique(text(c) for c in call_ids)
    if isinstance(rows, pd.DataFrame):
        cells = _frame_cells(rows, limit)
    else:
        cells = _label_cells(ctx, rows, limit)
    if session_id is None:
        session_id = _first(cells["session_id"])
    if trace_id is None:
        trace_id = _first(cells["trace"])
    if trace_id is None and ids:
        trace_id = ctx.trace_of(ids[0])
    if tool is None:
        tool = _first(cells["tool"])
    proof = evidence_from(cells["origins"], cells["row"], limit=limit)
    if "location" not in kw and proof:
        kw["location"] = locate(proof[0].origin)
    return Finding.of(
        rule,
        message,
        trace_id=trace_id,
        session_id=session_id,
        tool_call_ids=ids,
        evidence=proof,
        explanation=explanation or _doc(rule, "Why it matters"),
        fix=fix or _doc(rule, "Fix"),
        tool=tool,
        extra=extra or {},
        **kw,
    )


def _frame_cells(rows: pd.DataFrame, limit: int) -> dict[str, Any]:
    origins, row = frame_cells(rows, limit)
    return {
        "session_id": _column_list(rows, "session_id"),
        "trace": _column_list(rows, "trace"),
        "tool": _column_list(rows, "tool"),
        "origins": origins,
        "row": row,
    }


def _column_list(rows: pd.DataFrame, col: str) -> list[Any]:
    return rows[col].tolist() if col in rows.columns else []


def _label_cells(
    ctx: DiagnoseContext, rows: Sequence[int] | np.ndarray, limit: int
) -> dict[str, Any]:
    labels = [int(x) for x in rows]
    cols = _columns(ctx)
    return {
        "session_id": cols.pick("session_id", labels),
        "trace": cols.pick("trace", labels),
        "tool": cols.pick("tool", labels),
        "origins": cols.pick("origin", labels[: limit * 10]),
        "row": lambda k: {c: cols.at(c, labels[k]) for c in ROW_COLUMNS if c in cols},
    }


class _Columns:
    """Cells of the event table by row label, for findings: the id columns every finding reads
    become lists on first use; wide text (detail, args) is read a cell at a time, when a
    quote needs it."""

    _WHOLE = frozenset({"origin", "session_id", "trace", "tool", "tool_call_id"})

    def __init__(self, ev: pd.DataFrame) -> None:
        # labels are positions: align() hands out the table with a fresh 0..n-1 index
        if not (isinstance(ev.index, pd.RangeIndex) and ev.index.start == 0 and ev.index.step == 1):
            raise ValueError("diagnose needs the aligned event table (a 0..n-1 index)")
        self._ev = ev
        self._lists: dict[str, list[Any]] = {}

    def get(self, name: str) -> list[Any] | None:
        """The whole column as a list (None when the table has no such column)."""
        got = self._lists.get(name)
        if got is None and name in self._ev.columns:
            got = self._lists[name] = self._ev[name].tolist()
        return got

    def pick(self, name: str, labels: list[int]) -> list[Any]:
        values = self.get(name)
        return [] if values is None else [values[i] for i in labels]

    def at(self, name: str, label: int) -> Any:
        if name in self._lists or name in self._WHOLE:
            values = self.get(name)
            return None if values is None else values[label]
        return self._ev[name].array[label]

    def __contains__(self, name: str) -> bool:
        return name in self._lists or name in self._ev.columns


def _columns(ctx: DiagnoseContext) -> _Columns:
    return ctx.memo("columns", lambda: _Columns(ctx.events()))


def column(ctx: DiagnoseContext, name: str) -> list[Any]:
    """One column of the context's event table as a list (built once; nulls stay NA/None)."""
    values = _columns(ctx).get(name)
    if values is None:
        raise KeyError(name)
    return values


def _first(values: list[Any]) -> str | None:
    for v in values:
        if not missing(v):
            return str(v)
    return None


def _doc(rule: Rule, heading: str) -> str | None:
    key = (rule.code, heading)
    if key not in _DOCS:
        _DOCS[key] = doc_section(rule, heading)
    return _DOCS[key]


_DOCS: dict[tuple[str, str], str | None] = {}


def _unique(items: Iterable[str | None]) -> list[str]:
    out: list[str] = []
    for x in items:
        if x is not None and x not in out:
            out.append(x)
    return out


def flood_rows(ctx: DiagnoseContext) -> pd.DataFrame:
    """Flooding cancellations: mw_flooded events, or events whose text names tool-call flooding."""

    def build() -> pd.DataFrame:
        ev = with_attrs(ctx)
        detail = ev["detail"].fillna("").str.lower()
        phrase = detail.str.contains(_FLOOD_PHRASE, regex=True) & ev["kind"].isin(
            ["mw_other", "mw_rejected", "mw_dropped", "system", "unparsed", "tool_result"]
        )
        return ev[(ev["kind"] == "mw_flooded") | phrase]

    return ctx.memo("flood_rows", build)


def cite_floods(
    ctx: DiagnoseContext, rows: Rows, *, session_ids: Sequence[str | None] = ()
) -> list[int]:
    """The labels of *rows* led by the first flooding cancellation of the same sessions or
    calls (the evidence to cite), for `make`."""
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
