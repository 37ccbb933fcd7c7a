"""The event table as the rules read it: parsed attrs, kind subsets, columns as lists.

Rules read a million-row table column-wise: `with_attrs` parses each distinct `attrs` text
once, `of_kind` filters by kind (only the columns asked for), and `column`, `objects`,
`attr_list`, `has_key` and `isin_set` hand out plain lists and masks, so rule loops never
touch pandas scalars; `rows_by_call` and `rows_of_calls` index the rows by tool_call_id
(`model.rows_by_key.RowsByKey`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.model.cells import attrs_of
from toolcall_cli.model.rows_by_key import RowsByKey

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


def with_attrs(ctx: DiagnoseContext) -> pd.DataFrame:
    """The aligned events plus a parsed `_attrs` column of dicts (computed once per context).

    The dicts are shared between rows with equal `attrs` text: read them, never write them.
    """

    import pandas as pd

    def build() -> pd.DataFrame:
        ev = ctx.events().copy(deep=False)  # only a column is added; the table stays shared
        ev["_attrs"] = pd.Series(_parse_attrs(ev["attrs"]), index=ev.index, dtype=object)
        return ev

    return ctx.memo("events_with_attrs", build)


def _parse_attrs(cells: pd.Series) -> np.ndarray:
    """`attrs_of` over a column, parsing each distinct text once (logs repeat the same attrs
    on most lines: one method, path and agent; one event name per middleware step)."""
    import numpy as np
    import pandas as pd

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
    return ev[keep][mask]  # the same rows as `.loc[mask, keep]`, a quarter cheaper


def attr(rows: pd.DataFrame, key: str) -> pd.Series:
    """One attrs key as a Series aligned with *rows* (None where absent)."""
    import pandas as pd

    return pd.Series(attr_list(rows, key), index=rows.index, dtype=object)


class EventColumns:
    """Cells of the event table by row label, for findings: the id columns every finding reads
    become lists on first use; wide text (detail, args) is read a cell at a time, when a
    quote needs it."""

    _WHOLE = frozenset({"origin", "session_id", "trace", "tool", "tool_call_id"})

    def __init__(self, ev: pd.DataFrame) -> None:
        import pandas as pd

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


def event_columns(ctx: DiagnoseContext) -> EventColumns:
    """The context's event table by row label (built once per context)."""
    return ctx.memo("columns", lambda: EventColumns(ctx.events()))


def column(ctx: DiagnoseContext, name: str) -> list[Any]:
    """One column of the context's event table as a list (built once; nulls stay NA/None)."""
    values = event_columns(ctx).get(name)
    if values is None:
        raise KeyError(name)
    return values


def objects(rows: pd.DataFrame, col: str) -> list[Any]:
    """A column as a plain list, nulls as None (an absent column gives all None)."""
    if col not in rows.columns:
        return [None] * len(rows)
    s = rows[col]
    values = s.tolist()  # the same cells `astype(object)` gives, without its copy and `where`
    if not s.hasnans:
        return values
    return [None if null else v for v, null in zip(values, s.isna().tolist(), strict=True)]


#: Rows up to which `first_rows` hashes cells in Python: pandas' multi-column
#: `drop_duplicates` has a fixed cost on any table, a set of tuples far less on a small one.
SMALL_TABLE = 4096


def first_rows(rows: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """`rows.drop_duplicates(columns)`: the first row of each distinct combination, in table
    order (nulls equal to nulls, as pandas has them), computed as a set of cell tuples on a
    small table."""
    if len(rows) > SMALL_TABLE or len(columns) < 2:
        return rows.drop_duplicates(list(columns))
    import numpy as np

    seen: set[tuple[Any, ...]] = set()
    keep = np.ones(len(rows), dtype=bool)  # a mask, not a list: pandas reads it as is
    for k, key in enumerate(zip(*(objects(rows, c) for c in columns), strict=True)):
        if key in seen:
            keep[k] = False
        seen.add(key)
    return rows[keep]


def attr_list(rows: pd.DataFrame, key: str) -> list[Any]:
    """One attrs key of every row of a `with_attrs` frame, as a list (None where absent)."""
    return [a.get(key) for a in rows["_attrs"].tolist()]


def has_key(rows: pd.DataFrame, key: str) -> np.ndarray:
    """Boolean mask: the row's parsed attrs hold *key* (text prefilter, then the dict)."""
    import numpy as np

    raw = rows["attrs"]
    maybe = raw.str.contains(f'"{key}"', regex=False).fillna(False).to_numpy(dtype=bool)
    out = np.zeros(len(rows), dtype=bool)
    where = np.flatnonzero(maybe)
    if len(where):
        parsed = rows["_attrs"].to_numpy()[where]
        out[where] = [key in a for a in parsed]
    return out


def isin_set(values: pd.Series, wanted: set[str] | frozenset[str]) -> np.ndarray:
    """Boolean mask: the string cell is in *wanted* (nulls never are). Hashes on the Arrow
    side: `Series.isin` with a large list converts the list element by element."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not len(values) or not wanted:
        return np.zeros(len(values), dtype=bool)
    arr = pa.array(values.array) if hasattr(values.array, "__arrow_array__") else None
    if arr is None or not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return values.isin(list(wanted)).fillna(False).to_numpy(dtype=bool)
    pool = pa.array([w for w in wanted if isinstance(w, str)], type=arr.type)
    return pc.is_in(arr, value_set=pool).fill_null(False).to_numpy(zero_copy_only=False)


def rows_by_call(ctx: DiagnoseContext) -> RowsByKey:
    """Labels of the event-table rows per tool_call_id (built once per context)."""
    return ctx.memo("rows_by_call_id", lambda: RowsByKey(ctx.events()["tool_call_id"]))


def rows_of_calls(ctx: DiagnoseContext, ids: Iterable[str | None]) -> RowsByKey:
    """Labels of the event-table rows per tool_call_id, for the named ids only (one hashed
    pass over the column; cheaper than indexing every id when findings are few)."""
    col = ctx.events()["tool_call_id"]
    return RowsByKey(col[isin_set(col, {i for i in ids if i is not None})])
