"""`toolcall diagnose` of a store, one correlation bucket at a time (DESIGN §6b).

The store is partitioned by correlation bucket: a bucket holds whole components of the key
graph, so every trace, session and call lies inside one bucket and a bucket can be diagnosed
alone. What crosses buckets is computed once, up front, from narrow columns: the clock-skew
estimate (`align.skew_facts` of each bucket, combined — the estimate the whole store would
give) goes into every bucket's alignment. Each task then takes a run of buckets one at a time:
reads a bucket's rows, diagnoses them, keeps only its findings, its summary and its calls rows,
frees the rest, and goes on to the next; the driver pools them
(`diagnose.pooling.pool_reports`). So memory follows the largest bucket, not the store, and
one process, the local pool and Dask run the same tasks and give the same findings.

IN002 (clock skew) is judged on the whole evidence: every bucket that holds the skewed source
reports it, each citing its own first row; the pooled report keeps the finding of the bucket
whose first row comes first in the aligned order of the whole store, as one run would cite.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.diagnose.pooling import BucketResult, bucket_result, diagnose_part, pool_results
from toolcall_cli.diagnose.request import DiagnoseRequest
from toolcall_cli.errors import InputError
from toolcall_cli.model.config import Config

if TYPE_CHECKING:
    import pyarrow as pa

    from toolcall_cli.align.skew import SkewEstimate, SkewFacts
    from toolcall_cli.store.engines import Engine

T = TypeVar("T")
#: Tasks per worker (as `diagnose.bucket_tasks`): several, so one slow task does not leave
#: the other workers idle.
TASKS_PER_WORKER = 4
#: The columns the skew pass reads (`align.skew_facts`); the hidden ones give the input order.
SKEW_COLUMNS = (
    "ts", "seq", "duration_ms", "source", "kind", "origin", "attrs",
    "session_id", "trace_id", "tool_call_id", "request_id", "_file", "_row",
)  # fmt: skip
#: A bucket of more rows is diagnosed in parts of whole components (`split_components`), so a
#: task's memory stays bounded however the components fall (about 2.5 KB per event diagnosed).
SPLIT_ROWS = 250_000
#: Buckets are diagnosed together up to this many rows (`_merged`), so a store of many small
#: buckets does not pay the rules' set-up once per bucket.
MERGE_ROWS = 20_000


@dataclass(frozen=True, slots=True)
class BucketRun:
    """One bucket's diagnose task: its data files and what the run asks for."""

    files: tuple[str, ...]
    req: DiagnoseRequest
    cfg: Config
    inputs: tuple[str, ...]
    quotable: tuple[str, ...]
    skew: SkewEstimate
    part: tuple[int, int] = (0, 1)  # (this part, parts of the bucket)


def store_buckets(store: Path) -> list[tuple[tuple[str, ...], int]]:
    """The data files and row count of each non-empty bucket of *store*, in bucket order."""
    from toolcall_cli.store.manifest import part_paths, read_manifest

    manifest = read_manifest(store)
    if not manifest["files"]:
        raise InputError(
            f"the store {store} is empty", hint="run `toolcall ingest PATH...` first, or pass PATHs"
        )
    by_bucket: dict[int, list[str]] = {}
    rows: dict[int, int] = {}
    for pf in part_paths(store, manifest):
        b = _bucket_of(pf)
        by_bucket.setdefault(b, []).append(str(pf))
        rows[b] = rows.get(b, 0) + int(manifest["parts"].get(pf.stem, {}).get("rows", 0))
    return [(tuple(files), rows[b]) for b, files in sorted(by_bucket.items())]


def _bucket_of(pf: Path) -> int:
    """The bucket number of a data file (`…/bucket=NN/<part>.parquet`)."""
    return int(pf.parent.name.partition("=")[2])


def _read(files: tuple[str, ...], columns: list[str] | None = None) -> list[pa.Table]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from toolcall_cli.store.read import check_schema

    out = []
    for pf in files:
        try:
            # a file rewritten with other column types is damaged input (3), whatever is read
            check_schema(pq.read_schema(pf), pf)
            out.append(pq.read_table(pf, columns=columns, use_threads=False))
        except (OSError, pa.ArrowException) as e:
            raise InputError(
                f"store file {pf} is unreadable: {e}", hint="re-ingest its input"
            ) from None
    return out


def _in_input_order(tables: list[pa.Table]) -> pa.Table:
    """One table of a bucket's rows in the order the whole store is read (inputs by key, each
    in its own order: `store.read.tables_to_events`), so a bucket's rows keep their order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    one = pa.concat_tables(tables, promote_options="permissive")
    if one.num_rows > 1:
        one = one.take(pc.sort_indices(one, [("_file", "ascending"), ("_row", "ascending")]))
    return one


def bucket_skew_facts(files: tuple[str, ...]) -> SkewFacts:
    """What one bucket tells the store-wide skew estimate (a task: reads narrow columns;
    `attrs` is kept on wire rows only, the TCP stream of a capture's exchanges)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from toolcall_cli.align import skew_facts
    from toolcall_cli.model.events import COLUMNS, WIRE_SOURCES

    table = _in_input_order(_read(files, list(SKEW_COLUMNS)))
    wire = pc.fill_null(pc.is_in(table["source"], value_set=pa.array(WIRE_SOURCES)), False)
    attrs = pc.if_else(wire, table["attrs"], pa.scalar(None, table.schema.field("attrs").type))
    table = table.set_column(table.schema.get_field_index("attrs"), "attrs", attrs)
    cols = [c for c in SKEW_COLUMNS if not c.startswith("_")]
    events = table.select(cols).to_pandas().astype({c: COLUMNS[c] for c in cols})
    del table
    return skew_facts(events)


def diagnose_bucket(task: BucketRun) -> BucketResult:
    """Read and diagnose one bucket with the store-wide skew estimate (a task)."""
    import numpy as np

    from toolcall_cli.store.read import tables_to_events

    raw = _read(task.files)
    if task.part[1] > 1:  # an oversized bucket: this task's share of its components
        import pyarrow as pa

        from toolcall_cli.store.buckets import split_components

        one = pa.concat_tables(raw, promote_options="permissive")
        raw = [one.filter(pa.array(split_components(one, task.part[1]) == task.part[0]))]
        del one
    events = tables_to_events(raw, str(Path(task.files[0]).parent))
    positions = _positions(raw)
    whole = task.part[1] == 1  # else one table: this task's share of one bucket
    of_file = [_bucket_of(Path(f)) for f in (task.files if whole else task.files[:1])]
    buckets = np.repeat(of_file, [t.num_rows for t in raw])
    del raw
    report = diagnose_part(events, task)
    del events
    return bucket_result(report, positions, buckets=buckets)


def _positions(raw: list[pa.Table]) -> pa.Table:
    """Each row's origin with its place in the store's input order (`_file`, `_row`)."""
    import pyarrow as pa

    return pa.concat_tables([t.select(["origin", "_file", "_row"]) for t in raw])


def diagnose_store(
    store: Path, req: DiagnoseRequest, *, cfg: Config, engine: Engine | None = None
) -> tuple[DiagnoseReport, pa.Table]:
    """The whole *store* diagnosed bucket by bucket on *engine* (default: this process), pooled
    into one report, and the calls table of every bucket."""
    from toolcall_cli.align.skew import combine, estimate_from
    from toolcall_cli.store.engines.local import LocalEngine
    from toolcall_cli.store.manifest import read_manifest

    buckets = store_buckets(store)
    runner = engine if engine is not None else LocalEngine(workers=1)
    quotable = tuple(str(e["path"]) for e in read_manifest(store)["files"].values())
    inputs = (str(store),)
    groups = runner.workers * TASKS_PER_WORKER
    facts = runner.map(_skew_of_group, _grouped([f for f, _ in buckets], groups))
    skew = estimate_from(combine(facts))
    del facts
    tasks = [
        BucketRun(files, req, cfg, inputs, quotable, skew, (i, parts))
        for files, rows in _merged(buckets)
        for parts in [-(-rows // SPLIT_ROWS) or 1]
        for i in range(parts)
    ]
    results = [r for group in runner.map(_diagnose_group, _grouped(tasks, groups)) for r in group]
    return pool_results(results, inputs=inputs)


def _merged(buckets: list[tuple[tuple[str, ...], int]]) -> list[tuple[tuple[str, ...], int]]:
    """Consecutive buckets of at most `MERGE_ROWS` rows together taken as one part: a bucket
    is self-contained, so several are diagnosed at once for what one costs to set up (every
    rule runs once per part); a bigger bucket stays a part of its own."""
    out: list[tuple[tuple[str, ...], int]] = []
    for files, rows in buckets:
        if out and rows <= MERGE_ROWS and out[-1][1] + rows <= MERGE_ROWS:
            out[-1] = (out[-1][0] + files, out[-1][1] + rows)
        else:
            out.append((files, rows))
    return out


def _grouped(items: list[T], groups: int) -> list[list[T]]:
    """*items* in at most *groups* runs of consecutive items: a task per group, so a process
    pool starts a few processes (each for one task: its memory goes back with it), not one per
    bucket, while several tasks per worker keep a slow one from leaving the others idle."""
    size = max(1, -(-len(items) // max(1, groups)))
    return [items[i : i + size] for i in range(0, len(items), size)]


def _skew_of_group(group: list[tuple[str, ...]]) -> SkewFacts:
    """The combined skew facts of a group of buckets (a task)."""
    from toolcall_cli.align.skew import combine

    return combine([bucket_skew_facts(files) for files in group])


def _diagnose_group(group: list[BucketRun]) -> list[BucketResult]:
    """A group of buckets diagnosed one after another (a task)."""
    return [diagnose_bucket(task) for task in group]
