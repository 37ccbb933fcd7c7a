"""The pcap adapter survives every real capture of the shared corpus (Zeek, suricata-verify)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import CORPUS
from tests.sources.pcap_parsed import parsed
from toolcall_cli.sources import detect

pytestmark = [pytest.mark.tshark, pytest.mark.corpus]

CAPTURES = sorted(p.name for p in (CORPUS / "pcap").glob("*/*.pcap*")) if CORPUS.is_dir() else []


def _path(corpus: Path, name: str) -> Path:
    return next((corpus / "pcap").glob(f"*/{name}"))


def _parse(path: Path) -> pd.DataFrame:
    return parsed(path).frame  # each capture costs one tshark start: once per session


@pytest.mark.parametrize("name", CAPTURES or ["(corpus missing)"])
def test_every_corpus_capture_ingests(corpus: Path, tshark: str, name: str) -> None:
    path = _path(corpus, name)
    assert detect(path) == "pcap"
    df = _parse(path)
    assert set(df["kind"]) <= {
        "http_request",
        "http_response",
        "tool_call",
        "tool_result",
        "system",
        "unparsed",
    }
    for attrs in df["attrs"].dropna():
        assert isinstance(json.loads(attrs), dict)
    assert df["origin"].str.startswith(str(path)).all()


def test_thousand_requests_one_dropped_response(corpus: Path, tshark: str) -> None:
    df = _parse(_path(corpus, "http__1000-requests-one-dropped-response.pcap.gz"))
    counts = df["kind"].value_counts().to_dict()
    assert counts == {"http_request": 1000, "http_response": 999}
    unanswered = [
        a for a in df.loc[df["kind"] == "http_request", "attrs"] if json.loads(a).get("no_response")
    ]
    assert len(unanswered) == 1
    resp = df[df["kind"] == "http_response"]
    assert resp["duration_ms"].notna().all() and (resp["duration_ms"] >= 0).all()


def test_gzip_and_chunked_corpus_bodies_are_read(corpus: Path, tshark: str) -> None:
    # httpbin's /gzip answer is gzip JSON; after decoding it parses and reports gzipped: true
    df = _parse(_path(corpus, "http__get-gzip.pcap"))
    resp = df[df["kind"] == "http_response"].iloc[0]
    assert json.loads(resp["attrs"])["content_encoding"] == "gzip"
    assert resp["size"] > 100
    # docker API: JSON request bodies on a keep-alive connection, all paired
    df = _parse(_path(corpus, "http__docker-http-upgrade.pcap"))
    assert (df["kind"] == "http_request").sum() == (df["kind"] == "http_response").sum() == 6
    assert df.loc[df["kind"] == "http_response", "duration_ms"].notna().all()


def test_smuggling_frames_keep_both_requests(corpus: Path, tshark: str) -> None:
    df = _parse(_path(corpus, "http__261__variant-04-te_cl_desync.pcap"))
    req = df[df["kind"] == "http_request"]
    assert req["detail"].tolist() == ["POST / HTTP/1.1", "GET /smuggled-te-cl HTTP/1.1"]
    assert all(json.loads(a).get("multi_message_frame") for a in req["attrs"])
