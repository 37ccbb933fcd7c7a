"""A part's files: its rows in storage order, written as a staged data file and its id index
(committed by the manifest, store/manifest.py)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from toolcall_cli.store import index as store_index
from toolcall_cli.store.layout import FILE, ROW
from toolcall_cli.store.manifest import STAGED, write_atomic

ROW_GROUP = 8_192
_SORT_KEYS = ("trace_id", "tool_call_id", "session_id")


def stage_table(directory: Path, key: str, table: pa.Table) -> None:
    """Write *table* (sorted, with `_row`) as part *key*'s staged data file and id index in
    *directory* (a bucket's)."""
    token = store_index.new_token()
    table = store_index.with_token(table, token)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", row_group_size=ROW_GROUP)
    data = sink.getvalue()
    md = pq.ParquetFile(pa.BufferReader(data)).metadata
    index = store_index.build(
        table,
        [md.row_group(g).num_rows for g in range(md.num_row_groups)],
        token=token,
        data_size=data.size,
    )
    write_atomic(directory / f"{key}.parquet{STAGED}", data.to_pybytes())
    write_atomic(directory / f"{key}{store_index.SUFFIX}{STAGED}", index)


def sort_rows(table: pa.Table) -> pa.Table:
    """*table* (with `_row`) in storage order: by its trace keys, then input position."""
    if table.num_rows <= 1:
        return table
    order = (*_SORT_KEYS, FILE, ROW) if FILE in table.column_names else (*_SORT_KEYS, ROW)
    return table.sort_by([(k, "ascending", "at_end") for k in order])
