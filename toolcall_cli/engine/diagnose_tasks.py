"""Diagnose per correlation bucket on an engine, and the pooled report.

Each task diagnoses one bucket's events the whole way (align, classify, quote) with the run's
request and config; the driver pools the findings, ranks them as one run does and adds up the
summaries (buckets share no trace, session or call, so the counts add).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolcall_cli.core.config import Config
from toolcall_cli.core.findings import Severity
from toolcall_cli.diagnose.base import DiagnoseReport

if TYPE_CHECKING:
    import pandas as pd

    from toolcall_cli.diagnose.run import DiagnoseRequest
    from toolcall_cli.engine import Engine

#: Buckets per worker: several, so one slow bucket does not leave the others idle.
BUCKETS_PER_WORKER = 4
#: Rows a bucket aims at at most: a worker's memory follows its bucket, not the store.
BUCKET_ROWS = 120_000


def bucket_count(engine: Engine, rows: int) -> int:
    """How many buckets *rows* events are dealt into on *engine*."""
    return max(engine.workers * BUCKETS_PER_WORKER, -(-rows // BUCKET_ROWS))


@dataclass(frozen=True, slots=True)
class BucketTask:
    """One bucket's events and everything a worker needs to diagnose them."""

    events: pd.DataFrame
    req: DiagnoseRequest
    cfg: Config
    inputs: tuple[str, ...]
    quotable: tuple[str, ...]


def diagnose_bucket(task: BucketTask) -> DiagnoseReport:
    """Diagnose one bucket (in a worker, in the driver's directory: evidence is quoted from
    the inputs as it names them); the timeline stays there, only findings return."""
    from toolcall_cli.diagnose.run import diagnose

    report = diagnose(
        task.events, task.req, inputs=task.inputs, quotable=task.quotable, cfg=task.cfg
    )
    return dataclasses.replace(report, timeline=None)


def diagnose_on(
    engine: Engine,
    events: pd.DataFrame,
    req: DiagnoseRequest,
    *,
    cfg: Config,
    inputs: tuple[str, ...],
    quotable: tuple[str, ...],
) -> DiagnoseReport:
    """*events* diagnosed bucket by bucket on *engine*, pooled into one report."""
    from toolcall_cli.engine.buckets import bucket_rows

    rows = bucket_rows(events, bucket_count(engine, len(events)))
    tasks = [
        BucketTask(events.iloc[r].reset_index(drop=True), req, cfg, inputs, quotable) for r in rows
    ]
    return pool_reports(engine.map(diagnose_bucket, tasks), inputs=inputs)


def pool_reports(reports: list[DiagnoseReport], *, inputs: tuple[str, ...]) -> DiagnoseReport:
    """One report from the buckets' reports: findings ranked together, counts added up."""
    from toolcall_cli.diagnose.headlines import incident_counts, trace_headlines
    from toolcall_cli.diagnose.incidents import in_incident_order

    ranked = in_incident_order(f for r in reports for f in r.findings)  # a trace is in one bucket
    summary: dict[str, Any] = {}
    for r in reports:
        summary = _add(summary, r.summary)
    by_sev = {s.value: 0 for s in Severity}
    by_code: dict[str, int] = {}
    for f in ranked:
        by_sev[f.severity.value] += 1
        by_code[f.code] = by_code.get(f.code, 0) + 1
    summary.update(findings=by_sev, by_code=dict(sorted(by_code.items())))
    incident_n, symptom_n = incident_counts(ranked)
    summary.update(incidents=incident_n, symptoms=symptom_n, headlines=trace_headlines(ranked))
    if "by_source" in summary:
        summary["by_source"] = dict(sorted(summary["by_source"].items()))
    return DiagnoseReport(
        command="diagnose", findings=tuple(ranked), summary=summary, inputs=inputs
    )


def _add(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Counts of *a* and *b* added key by key (nested dicts too); other values: *a*'s first."""
    out = dict(a)
    for k, v in b.items():
        if k not in out:
            out[k] = v
        elif isinstance(v, bool) or not isinstance(v, (int, float, dict)):
            continue
        elif isinstance(v, dict) and isinstance(out[k], dict):
            out[k] = _add(out[k], v)
        elif isinstance(v, (int, float)) and isinstance(out[k], (int, float)):
            out[k] = out[k] + v
    return out
