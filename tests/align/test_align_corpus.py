"""The real conversations of the shared corpus align without error."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcall_cli.align import align
from toolcall_cli.align.select import select_traces
from toolcall_cli.sources import ingest_paths


@pytest.mark.corpus
def test_corpus_conversations_align(corpus: Path) -> None:
    result = ingest_paths([corpus / "conversations"])
    assert len(result.files) > 10
    tl = align(result.events)
    ev = tl.events
    assert len(ev) == len(result.events)
    calls = ev[(ev["kind"] == "tool_call") & ev["tool_call_id"].fillna("").ne("")]
    assert calls["trace"].notna().all()
    assert len(tl.calls) >= calls["tool_call_id"].nunique()
    # message order is kept inside every conversation file
    for _, grp in ev[ev["source"] == "messages"].groupby(ev["origin"].str.split("#").str[0]):
        placed = grp[grp["ts_corrected"].isna()]
        assert placed["seq"].is_monotonic_increasing
    assert {c.outcome for c in tl.calls} <= {
        "result",
        "rejected",
        "flooded",
        "timeout",
        "dropped",
        "missing",
    }
    report = select_traces(tl, limit=5)
    assert len(report.traces) == 5
    assert report.traces[0].trouble >= report.traces[-1].trouble
