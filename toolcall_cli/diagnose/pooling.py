"""Diagnosing in parts (store buckets, engine tasks) and pooling the parts into the report
one run would give: each part is diagnosed as asked with the whole evidence's skew estimate,
hands back its findings, summary and calls rows, and the driver ranks the findings together,
keeps IN002 once per source and adds up the counts (parts share no trace, session or call).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.diagnose.request import DiagnoseRequest, diagnose_as_asked
from toolcall_cli.model.config import Config

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    from toolcall_cli.align.skew import SkewEstimate

#: The code whose finding is judged over the whole store (see the module docstring).
SKEW_CODE = "IN002"


class PartTask(Protocol):
    """What a part's task carries: the run's request and config, its inputs, and the skew
    estimate of the whole evidence."""

    @property
    def req(self) -> DiagnoseRequest: ...
    @property
    def cfg(self) -> Config: ...
    @property
    def inputs(self) -> tuple[str, ...]: ...
    @property
    def quotable(self) -> tuple[str, ...]: ...
    @property
    def skew(self) -> SkewEstimate: ...


@dataclass(frozen=True, slots=True)
class BucketResult:
    """What a bucket's task returns: its report (no timeline), its calls as the store's
    `calls` rows, and the order key of each IN002 finding's first cited row."""

    report: DiagnoseReport
    calls: pa.Table
    skew_firsts: dict[str, tuple[Any, ...]]


def diagnose_part(events: pd.DataFrame, task: PartTask) -> DiagnoseReport:
    """One bucket's *events* diagnosed with *task*'s request and config and the skew estimate
    of the whole evidence (its timeline kept, for `bucket_result`)."""
    return diagnose_as_asked(
        events, task.req, cfg=task.cfg, inputs=task.inputs, quotable=task.quotable, scope=None,
        skew_estimate=task.skew,
    )  # fmt: skip


def bucket_result(
    report: DiagnoseReport, positions: pa.Table, *, buckets: np.ndarray | None = None
) -> BucketResult:
    """What a part's task hands back of *report*: its findings and summary, its calls rows
    and the order keys of its IN002 candidates (*positions*: each row's origin, `_file` and
    `_row`); the timeline stays in the task. With the store bucket of each row of *positions*
    (*buckets*), each call's bucket is its first event's, in a `bucket` column: recording the
    calls then needs no key-map look-up."""
    from toolcall_cli.diagnose.kit.skew_first import first_cited_keys
    from toolcall_cli.store.results import calls_table

    firsts = first_cited_keys(report, positions, code=SKEW_CODE)
    calls = calls_table(report.timeline.calls)
    if buckets is not None:
        calls = calls.append_column("bucket", _bucket_of_call(calls, positions, buckets))
    return BucketResult(dataclasses.replace(report, timeline=None), calls, firsts)


def _bucket_of_call(calls: pa.Table, positions: pa.Table, buckets: np.ndarray) -> pa.Array:
    """Each call's bucket: the part's one bucket, else that of its first event's origin, or
    null where that origin holds rows of several buckets (the store's key map then decides,
    store/results.py)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(buckets) and buckets.min() == buckets.max():  # one bucket: every call is in it
        return pa.array([int(buckets[0])] * calls.num_rows, pa.int64())
    rows = pa.table({"origin": positions["origin"], "bucket": pa.array(buckets, pa.int64())})
    per = rows.group_by("origin").aggregate([("bucket", "min"), ("bucket", "max")])
    one = pc.equal(per["bucket_min"], per["bucket_max"])
    at = pc.index_in(calls["origin"], value_set=per["origin"])
    return pc.if_else(one.take(at), per["bucket_min"].take(at), pa.scalar(None, pa.int64()))


def pool_results(
    results: list[BucketResult], *, inputs: tuple[str, ...]
) -> tuple[DiagnoseReport, pa.Table]:
    """One report from the buckets' results (IN002 kept once per source) and their calls."""
    import pyarrow as pa

    from toolcall_cli.diagnose.kit.skew_first import keep_first

    reports = keep_first([(r.report, r.skew_firsts) for r in results], code=SKEW_CODE)
    calls = pa.concat_tables([r.calls for r in results]) if results else None
    report = pool_reports(reports, inputs=inputs)
    return report, calls if calls is not None else pa.table({})


def pool_reports(reports: list[DiagnoseReport], *, inputs: tuple[str, ...]) -> DiagnoseReport:
    """One report from the buckets' reports: findings ranked together, counts added up."""
    from toolcall_cli.diagnose import finding_counts
    from toolcall_cli.diagnose.kit.incidents import in_incident_order, unique_across

    parts = unique_across([r.findings for r in reports])
    ranked = in_incident_order(f for part in parts for f in part)  # a trace is in one bucket
    summary: dict[str, Any] = {}
    for r in reports:
        summary = _add(summary, r.summary)
    summary.update(finding_counts(ranked))
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
