"""Diagnose an event table per correlation bucket on an engine, and the pooled report.

Each task diagnoses one bucket's events the whole way (align, classify, quote) with the run's
request and config and the skew estimate of all the events; the driver pools the findings,
ranks them as one run does and adds up the summaries (buckets share no trace, session or call,
so the counts add). A store is diagnosed per its own buckets: diagnose/run_store.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.diagnose.pooling import BucketResult, bucket_result, diagnose_part, pool_results
from toolcall_cli.diagnose.request import DiagnoseRequest
from toolcall_cli.model.config import Config

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from toolcall_cli.align.skew import SkewEstimate
    from toolcall_cli.store.engines import Engine

#: Buckets per worker: several, so one slow bucket does not leave the others idle.
BUCKETS_PER_WORKER = 4
#: Rows a bucket aims at at most: a worker's memory follows its bucket, not the store.
BUCKET_ROWS = 120_000


def bucket_count(engine: Engine, rows: int) -> int:
    """How many buckets *rows* events are dealt into on *engine*."""
    return max(engine.workers * BUCKETS_PER_WORKER, -(-rows // BUCKET_ROWS))


@dataclass(frozen=True, slots=True)
class BucketTask:
    """One bucket's events and everything a worker needs to diagnose them: *skew* is the
    estimate over every bucket (made once by the driver), *rows* the bucket's row positions
    in the whole table (they order IN002's candidates, diagnose/kit/skew_first.py)."""

    events: pd.DataFrame
    req: DiagnoseRequest
    cfg: Config
    inputs: tuple[str, ...]
    quotable: tuple[str, ...]
    skew: SkewEstimate
    rows: np.ndarray


def diagnose_bucket(task: BucketTask) -> BucketResult:
    """Diagnose one bucket (in a worker, in the driver's directory: evidence is quoted from
    the inputs as it names them); the timeline stays there, only findings return."""
    import pyarrow as pa

    report = diagnose_part(task.events, task)
    positions = pa.table(
        {
            "origin": pa.array(task.events["origin"].astype(object), pa.large_string()),
            "_file": pa.array([""] * len(task.rows), pa.large_string()),
            "_row": pa.array(task.rows, pa.int64()),
        }
    )
    return bucket_result(report, positions)


def diagnose_on(
    engine: Engine,
    events: pd.DataFrame,
    req: DiagnoseRequest,
    *,
    cfg: Config,
    inputs: tuple[str, ...],
    quotable: tuple[str, ...],
) -> DiagnoseReport:
    """*events* diagnosed bucket by bucket on *engine*, pooled into one report; the skew
    estimate is made once, over all of them."""
    from toolcall_cli.align import skew_facts
    from toolcall_cli.align.skew import estimate_from
    from toolcall_cli.store.buckets import deal_rows, key_table

    skew = estimate_from(skew_facts(events))
    rows = deal_rows(key_table(events), bucket_count(engine, len(events)))
    tasks = [
        BucketTask(events.iloc[r].reset_index(drop=True), req, cfg, inputs, quotable, skew, r)
        for r in rows
    ]
    return pool_results(engine.map(diagnose_bucket, tasks), inputs=inputs)[0]
