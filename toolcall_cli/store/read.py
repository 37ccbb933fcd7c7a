"""Reading events back from the store: whole, by file, by row group, in input order.

Data files hold the event table (DESIGN §3) sorted by trace keys plus the hidden columns
`_file` and `_row` (store/layout.py), which restore the order the inputs were read in:
whole-store and selected reads come back in input order, so outputs do not depend on
buckets. A file whose columns are not the event table's is damaged input (exit 3).
Which files to read comes from the manifest (store/manifest.py); a one-trace read picks
its row groups through the id index (store/read_selection.py, store/index.py).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from toolcall_cli.errors import InputError
from toolcall_cli.model.events import COLUMNS, empty_frame
from toolcall_cli.store.layout import FILE, HIDDEN, KEYS_FILE, ROW, bucket_of_label
from toolcall_cli.store.manifest import part_paths, read_manifest


def load_events(store: Path, *, filters: list[tuple[str, str, Any]] | None = None) -> pd.DataFrame:
    """All stored events (optionally filtered on columns via Parquet predicate push-down)."""
    manifest = read_manifest(store)
    if not manifest["files"]:
        raise InputError(
            f"the store {store} is empty", hint="run `toolcall ingest PATH...` first, or pass PATHs"
        )
    return tables_to_events(
        [_read_whole(pf, filters) for pf in part_paths(store, manifest)], str(store)
    )


def _read_whole(pf: Path, filters: Any = None) -> pa.Table:
    try:
        return pq.read_table(pf, filters=filters)
    except (OSError, pa.ArrowException) as e:
        raise InputError(
            f"store file {pf} is unreadable: {e}", hint="re-ingest its input"
        ) from None


def tables_to_events(tables: list[pa.Table], where: str) -> pd.DataFrame:
    """Whole rows of bucketed parts as one event table, in the order the inputs were read
    (inputs by key, each in its own order), so outputs do not depend on buckets."""
    tables = [t for t in tables if t.num_rows]
    if not tables:
        return empty_frame()
    for t in tables:
        check_schema(t.schema, where)
    try:
        one = pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise damaged(where, str(e).splitlines()[0][:200]) from None
    if FILE in one.column_names and one.num_rows > 1:
        one = one.take(pc.sort_indices(one, [(FILE, "ascending"), (ROW, "ascending")]))
    return to_events(_drop_hidden(one), where)


def check_schema(schema: pa.Schema, pf: Path | str) -> None:
    """An event file must hold every event column with a type of the right family; a file
    rewritten with other columns is damaged input (exit 3), not a bug."""
    have = {f.name: f.type for f in schema}
    for field in expected_schema():
        got = have.get(field.name)
        if got is None:
            raise damaged(pf, f"it has no column {field.name!r}")
        if _family(got) != _family(field.type):
            raise damaged(pf, f"column {field.name!r} is {got}, not {field.type}")


def to_events(table: pa.Table, pf: Path | str) -> pd.DataFrame:
    """Rows of store file *pf* as the event table (its schema checked first)."""
    check_schema(table.schema, pf)
    try:
        return table.to_pandas().astype(COLUMNS)
    except (ValueError, TypeError, KeyError, pa.ArrowException) as e:
        raise damaged(pf, str(e).splitlines()[0][:200]) from None


def damaged(pf: Path | str, why: str) -> InputError:
    return InputError(f"store file {pf} is damaged: {why}", hint="re-ingest its input")


def _family(t: pa.DataType) -> str:
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "text"
    if pa.types.is_timestamp(t):
        return "time"
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_floating(t):
        return "float"
    if pa.types.is_null(t):
        return "null"
    return str(t)


@lru_cache(maxsize=1)
def expected_schema() -> pa.Schema:
    return pa.Schema.from_pandas(empty_frame(), preserve_index=False)


def read_file(
    pf: Path,
    *,
    columns: list[str] | None = None,
    filters: Any = None,
    row_groups: list[int] | None = None,
) -> pa.Table:
    """One store file (optionally only *columns*, only *row_groups*, rows filtered with Parquet
    push-down).

    A whole-row read comes back in the input's order without the hidden `_row` column; a read
    of named columns comes back in storage order (sorted by trace keys).
    """
    try:
        if row_groups is not None:
            with pq.ParquetFile(pf) as file:  # closed at once: stores hold thousands
                table = file.read_row_groups(row_groups, columns=columns)
            if filters is not None:
                table = table.filter(filters)
        else:
            table = pq.read_table(pf, columns=columns, filters=filters)
    except (OSError, pa.ArrowException) as e:
        raise InputError(
            f"store file {pf} is unreadable: {e}", hint="re-ingest its input"
        ) from None
    if ROW not in table.column_names:
        return table
    return input_order(table) if columns is None else _drop_hidden(table)


def input_order(table: pa.Table) -> pa.Table:
    """Whole rows read from a store file, back in their input's order without `_row`."""
    if ROW not in table.column_names:
        return table
    if table.num_rows > 1:
        order = [(FILE, "ascending"), (ROW, "ascending")] if FILE in table.column_names else None
        idx = pc.sort_indices(table, order) if order else pc.sort_indices(table.column(ROW))
        table = table.take(idx)
    return _drop_hidden(table)


def _drop_hidden(table: pa.Table) -> pa.Table:
    return table.drop_columns([c for c in HIDDEN if c in table.column_names])


def row_groups_of(pf: Path, positions: np.ndarray) -> list[int]:
    """The row groups of store file *pf* that hold the rows at storage *positions*."""
    with pq.ParquetFile(pf) as file:
        md = file.metadata
    starts = np.cumsum([0] + [md.row_group(g).num_rows for g in range(md.num_row_groups)])
    return sorted({int(g) for g in np.searchsorted(starts, positions, side="right") - 1})


#: How store/buckets.py tags each id column's values in the key map (`<tag>\x1f<value>`).
_TAGS = {"tool_call_id": "c", "trace_id": "t", "request_id": "r", "session_id": "s"}


def buckets_of_ids(store: Path, ids: dict[str, set[str]], buckets: int) -> set[int]:
    """The buckets holding rows with any of *ids* (column -> values), from the key map; empty
    when the map knows none of them (the caller then reads every bucket).

    The map is sorted by key, so its row groups' min/max statistics name the one or two that
    can hold each key: a lookup reads those, not the map of the whole store."""
    keys = sorted({f"{_TAGS[c]}\x1f{v.strip()}" for c, vs in ids.items() for v in vs if v.strip()})
    path = store / KEYS_FILE
    if not keys or not path.exists():
        return set()
    try:
        with pq.ParquetFile(path) as keymap:
            md = keymap.metadata
            col = keymap.schema_arrow.get_field_index("key")
            groups = []
            for g in range(md.num_row_groups):
                stats = md.row_group(g).column(col).statistics
                has_range = stats is not None and stats.has_min_max
                if not has_range or any(stats.min <= k <= stats.max for k in keys):
                    groups.append(g)
            table = keymap.read_row_groups(groups, columns=["key", "label"], use_threads=False)
    except (OSError, pa.ArrowException) as e:
        raise InputError(
            f"store key map {path} is unreadable: {e}", hint="delete the store and re-ingest"
        ) from None
    hit = table.filter(pc.is_in(table["key"], value_set=pa.array(keys, pa.large_string())))
    return {bucket_of_label(str(x), buckets) for x in hit["label"].unique().to_pylist()}
