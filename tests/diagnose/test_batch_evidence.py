"""Evidence cited by row inside a batch (diagnose/kit/batches.py) reads that row's text.

A batch's table is re-indexed; a rule cites rows by the batch's labels, and the stand-in text
(what a capture frame is quoted with) is read from the whole table. Read by the batch's label,
frame 4 of retry-duplicate's capture was quoted with a middleware line of another call. The
bench bundle reuses ids across its conversations, so its incident bundles land in later batches.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from bench.scale.bundle import write_bundle
from tests.conftest import ROOT, run_cli


@pytest.mark.tshark
def test_frame_evidence_names_the_finding_s_own_call(tmp_path: Path) -> None:
    write_bundle(tmp_path / "bundle", 30_000, incidents=ROOT / "fixtures" / "incidents")
    res = run_cli(["-q", "diagnose", "bundle", "-f", "json", "--fail-on", "never"], cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    frames = [
        (f["tool_call_ids"], e["text"])
        for f in orjson.loads(res.stdout)["findings"]
        for e in f["evidence"]
        if "#frame=" in e["origin"] and f["tool_call_ids"]
    ]
    assert len(frames) >= 2
    for ids, text in frames:
        named = re.search(r"tool_call_id=(\S+)", text)
        assert named is not None and named.group(1) in ids, (ids, text)
    assert any("frame 4 of capture.pcap: http_request book_flight" in t for _, t in frames)
