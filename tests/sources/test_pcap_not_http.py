"""A capture whose TCP data tshark does not dissect as HTTP/1.x is not empty evidence: it
gives one `unparsed` row (IN001) saying how many streams went unread, so a directory holding
it never reports the capture as read and clean (Zeek's HTTP/0.9 and version-less requests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import need_tshark
from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.sources import ingest_paths

pytestmark = [pytest.mark.tshark, pytest.mark.corpus]

ZEEK = "pcap/zeek"


@pytest.mark.parametrize(
    ("name", "streams"), [("http__http_09.pcap", 5), ("http__no-version.pcap", 1)]
)
def test_undissected_streams_are_counted(corpus: Path, name: str, streams: int) -> None:
    need_tshark()
    ev = ingest_paths([corpus / ZEEK / name]).events
    assert ev["kind"].tolist() == ["unparsed"]
    row = ev.iloc[0]
    assert row["detail"].startswith(f"{streams} TCP stream")
    assert json.loads(row["attrs"])["reason"].startswith("not HTTP/1.x")


def test_directory_names_the_unread_captures(corpus: Path) -> None:
    need_tshark()
    files = [corpus / ZEEK / n for n in ("http__http_09.pcap", "http__get.pcap")]
    rep = diagnose_events(ingest_paths(files).events)
    unread = [f for f in rep.findings if f.code == "IN001"]
    assert [f.message.split(" could")[0] for f in unread] == [f"1 record of {files[0]}"]


def test_http_captures_gain_no_row(corpus: Path) -> None:
    """The negative: a capture with HTTP/1.x keeps exactly its exchanges (no second pass)."""
    need_tshark()
    ev = ingest_paths([corpus / ZEEK / "http__get.pcap"]).events
    assert ev["kind"].tolist() == ["http_request", "http_response"]
