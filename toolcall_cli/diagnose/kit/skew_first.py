"""IN002 over a store diagnosed bucket by bucket: the finding one run would give.

IN002 (clock skew, diagnose/rules/ingest/clock_skew.py) reports each skewed source once, citing the
source's first row (in the aligned order) that carries a call id, and the first row of
another source with that id. With the store-wide estimate every bucket holding the source
reports it, each from its own first row. The aligned order is a total order on (corrected
time, kind rank, source, seq, place in the input order), so the row one run would cite is the
bucket candidate smallest on that key: each bucket returns its candidates' keys, the pool keeps
that finding and drops the rest.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

    from toolcall_cli.diagnose.kit.context import DiagnoseReport


def first_cited_keys(
    report: DiagnoseReport, positions: pa.Table, *, code: str
) -> dict[str, tuple[Any, ...]]:
    """Per *code* finding of *report* (by id): the order key of the source's first row, as
    the rule chose it; *positions* holds each row's origin with its `_file` and `_row`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from toolcall_cli.align import _RANK

    found = [f for f in report.findings if f.code == code]
    if not found:
        return {}
    ev = report.timeline.events
    shared = ev.loc[
        ev["tool_call_id"].notna() & (ev["tool_call_id"] != "") & ev["ts"].notna(),
        ["source", "kind", "seq", "origin", "ts_corrected"],
    ]
    out: dict[str, tuple[Any, ...]] = {}
    for f in found:
        rows = shared[shared["source"] == f.fact("source")]
        if not len(rows):
            continue
        first = rows.iloc[0]
        at = pc.index(positions["origin"], pa.scalar(first["origin"], pa.large_string())).as_py()
        place = (positions["_file"][at].as_py(), positions["_row"][at].as_py()) if at >= 0 else ()
        out[f.id] = (
            first["ts_corrected"].value,
            _RANK.get(str(first["kind"]), 99),
            int(first["seq"]),
            *place,
        )
    return out


def keep_first(
    parts: list[tuple[DiagnoseReport, dict[str, tuple[Any, ...]]]], *, code: str
) -> list[DiagnoseReport]:
    """The reports with each source's *code* finding kept only where its key is smallest."""
    best: dict[str, tuple[tuple[Any, ...], int, str]] = {}
    for i, (report, keys) in enumerate(parts):
        for f in report.findings:
            if f.code == code and f.id in keys:
                source = str(f.fact("source"))
                if source not in best or keys[f.id] < best[source][0]:
                    best[source] = (keys[f.id], i, f.id)
    kept = {(i, fid) for _, i, fid in best.values()}
    out = []
    for i, (report, _) in enumerate(parts):
        findings = tuple(f for f in report.findings if f.code != code or (i, f.id) in kept)
        if len(findings) != len(report.findings):
            report = dataclasses.replace(report, findings=findings)
        out.append(report)
    return out
