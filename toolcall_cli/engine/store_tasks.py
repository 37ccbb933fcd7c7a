"""Diagnose a store per correlation bucket, each worker reading its own bucket's rows.

The driver reads only the key columns of the store's data files, labels their components and
deals them into buckets (engine/buckets.py); each task then reads the files itself, keeping
the rows whose keys belong to its bucket, in the order `load_events` gives them, and
diagnoses them. So neither the driver nor any worker holds the whole event table: the driver
holds the keys, a worker one bucket.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolcall_cli.core.config import Config
from toolcall_cli.diagnose.base import DiagnoseReport
from toolcall_cli.engine.buckets import KEY_COLUMNS, bucket_of_rows, split_rows
from toolcall_cli.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from toolcall_cli.diagnose.run import DiagnoseRequest
    from toolcall_cli.engine import Engine

#: Rows read from a data file at a time while a task picks out its bucket.
READ_BATCH = 65_536


@dataclass(frozen=True, slots=True)
class StoreBucket:
    """Which rows of the store one task diagnoses: those carrying any of these key values
    (and, for one task, the rows that carry no key at all)."""

    files: tuple[str, ...]
    keys: dict[str, list[str]]
    keyless: bool


@dataclass(frozen=True, slots=True)
class StoreBucketTask:
    """One bucket of a store and what a worker needs to diagnose it."""

    bucket: StoreBucket
    req: DiagnoseRequest
    cfg: Config
    inputs: tuple[str, ...]
    quotable: tuple[str, ...]


def plan_buckets(store: Path, engine: Engine) -> list[StoreBucket]:
    """The store's buckets for *engine*, from its data files' key columns alone (kept in
    Arrow, dictionary-encoded: ten million rows of keys cost their codes, not Python strings)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from toolcall_cli.core.store_manifest import part_paths, read_manifest
    from toolcall_cli.engine.diagnose_tasks import bucket_count

    files = part_paths(store, read_manifest(store))
    encoded, codes = [], []
    for col in KEY_COLUMNS:  # one column at a time: only its codes and distinct values stay
        values = pa.chunked_array([pq.read_table(pf, columns=[col])[col] for pf in files])
        enc = values.combine_chunks().dictionary_encode()
        del values
        encoded.append(enc)
        codes.append(pc.fill_null(enc.indices, -1).to_numpy().astype(np.int64))
    n = bucket_count(engine, len(codes[0]))
    rows_of = split_rows(bucket_of_rows(codes, n), n)
    keyless = np.logical_and.reduce([c < 0 for c in codes])
    out = []
    for i, rows in enumerate(rows_of):
        values = {}
        for col, enc, code in zip(KEY_COLUMNS, encoded, codes, strict=True):
            used = np.unique(code[rows])
            used = used[used >= 0]
            values[col] = enc.dictionary.take(pa.array(used)).to_pylist()
        out.append(
            StoreBucket(tuple(map(str, files)), values, i == 0 and bool(keyless[rows].any()))
        )
    return out


def _plan_task(task: tuple[str, int]) -> list[StoreBucket]:
    """`plan_buckets` as an engine task: (store path, the engine's worker count)."""
    from toolcall_cli.engine.local import LocalEngine

    store, workers = task
    return plan_buckets(Path(store), LocalEngine(workers=workers))


def read_bucket(bucket: StoreBucket) -> pd.DataFrame:
    """The bucket's events, file by file in the store's order, each in its input's order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from toolcall_cli.core.events import concat_frames
    from toolcall_cli.core.store_read import input_order, to_events

    value_sets = {c: pa.array(v, type=pa.string()) for c, v in bucket.keys.items() if v}
    frames = []
    for pf in bucket.files:
        with pq.ParquetFile(pf) as file:
            kept = [_pick(pa.Table.from_batches([b]), value_sets, bucket.keyless)
                    for b in file.iter_batches(batch_size=READ_BATCH)]  # fmt: skip
        if kept:
            frames.append(to_events(input_order(pa.concat_tables(kept)), pf))
    return concat_frames(frames)


def _pick(table: pa.Table, value_sets: dict[str, pa.Array], keyless: bool) -> pa.Table:
    """The rows of *table* that belong to the bucket."""
    import pyarrow.compute as pc

    mask = None
    for col, values in value_sets.items():
        hit = pc.fill_null(pc.is_in(table[col], value_set=values), False)
        mask = hit if mask is None else pc.or_(mask, hit)
    if keyless:
        none = pc.and_(*(pc.is_null(table[c]) for c in KEY_COLUMNS[:2]))
        for c in KEY_COLUMNS[2:]:
            none = pc.and_(none, pc.is_null(table[c]))
        mask = none if mask is None else pc.or_(mask, none)
    return table.filter(mask) if mask is not None else table.slice(0, 0)


def diagnose_store_bucket(task: StoreBucketTask) -> DiagnoseReport:
    """Read and diagnose one bucket (in a worker); only the report without its timeline
    comes back."""
    from toolcall_cli.engine.diagnose_tasks import BucketTask, diagnose_bucket

    events = read_bucket(task.bucket)
    return diagnose_bucket(BucketTask(events, task.req, task.cfg, task.inputs, task.quotable))


def diagnose_store(
    engine: Engine, store: Path, req: DiagnoseRequest, *, cfg: Config
) -> DiagnoseReport:
    """The whole store diagnosed bucket by bucket on *engine*, pooled into one report; quotes
    come from the files its manifest records, as for a one-process run."""
    from toolcall_cli.core.store_manifest import read_manifest
    from toolcall_cli.engine.diagnose_tasks import pool_reports

    recorded = read_manifest(store)["files"]
    if not recorded:
        raise InputError(
            f"the store {store} is empty", hint="run `toolcall ingest PATH...` first, or pass PATHs"
        )
    quotable = tuple(str(e["path"]) for e in recorded.values())
    inputs = (str(store),)
    # planned in a task too: the keys of the whole store are read where the memory they take
    # goes back with the task (a pool worker lives for one task), not in this process
    plan = engine.map(_plan_task, [(str(store), engine.workers)])[0]
    tasks = [StoreBucketTask(b, req, cfg, inputs, quotable) for b in plan]
    return pool_reports(engine.map(diagnose_store_bucket, tasks), inputs=inputs)
