"""fixtures/gen/pcapwriter.py round-trips through tshark: valid checksums, reassembly, decoding."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fixtures.gen.pcapwriter import LINKTYPE_RAW, PcapWriter, http_exchange
from toolcall_cli.sources import parse_file

pytestmark = pytest.mark.tshark
T0 = 1700000000.0


def _write(path: Path, **kw: Any) -> None:  # kw: PcapWriter options (linktype, fmt)
    w = PcapWriter(path, **kw)
    a = w.tcp(client=("192.168.1.10", 40001), server=("192.168.1.20", 9000))
    b = w.tcp(client=("192.168.1.11", 40002), server=("192.168.1.20", 9000))
    big = {"status": "success", "data": ["é" * 50] * 200, "call_id": "c-a1"}
    http_exchange(
        a,
        T0,
        T0 + 0.25,
        "POST",
        "/tools/alpha",
        {
            "X-Tool-Call-ID": "c-a1",
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        },
        {"function": "alpha", "arguments": {"k": [1, 2]}},
        200,
        {},
        big,
        req_segments=4,
        resp_segments=5,
        chunked=True,
        gzip=True,
    )
    # b interleaves with a; its request is never answered.
    http_exchange(b, T0 + 0.1, None, "POST", "/tools/beta", {"X-Tool-Call-ID": "c-b1"}, b'{"x": 1}')
    http_exchange(a, T0 + 1, T0 + 1.5, "GET", "/health", {}, None, 503, {}, "down")
    w.close()


@pytest.mark.parametrize(
    "kw", [{}, {"linktype": LINKTYPE_RAW}, {"fmt": "pcapng"}], ids=["eth", "raw", "ng"]
)
def test_writer_round_trip(tmp_path: Path, tshark: str, kw: dict[str, Any]) -> None:
    path = tmp_path / "w.pcap"
    _write(path, **kw)
    df = parse_file(path)
    assert df["kind"].tolist() == [
        "http_request",
        "http_request",
        "http_response",
        "http_request",
        "http_response",
    ]
    req = df[df["kind"] == "http_request"]
    assert req["tool_call_id"].fillna("-").tolist() == ["c-a1", "c-b1", "-"]
    assert req["args"].tolist()[0] == '{"k":[1,2]}'
    a0 = json.loads(req["attrs"].iloc[0])
    assert a0["args_type"] == "object" and "no_response" not in a0
    assert json.loads(req["attrs"].iloc[1])["no_response"] is True
    assert df["trace_id"].iloc[0] == "0af7651916cd43dd8448eb211c80319c"
    resp = df[df["kind"] == "http_response"]
    assert resp["http_status"].tolist() == [200, 503]
    assert resp["duration_ms"].round(3).tolist() == [250.0, 500.0]
    big = json.dumps({"status": "success", "data": ["é" * 50] * 200, "call_id": "c-a1"})
    assert resp["size"].iloc[0] == len(big.encode())
    assert resp["status"].iloc[0] == "success"


def test_writer_checksums_and_handshake_are_valid(tmp_path: Path, tshark: str) -> None:
    path = tmp_path / "w.pcap"
    _write(path)
    out = subprocess.run(
        [
            tshark,
            "-n",
            "-r",
            str(path),
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "tcp.check_checksum:TRUE",
            "-T",
            "fields",
            "-e",
            "ip.checksum.status",
            "-e",
            "tcp.checksum.status",
            "-e",
            "tcp.flags.str",
            "-e",
            "_ws.expert.severity",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    rows = [line.split("\t") for line in out]
    assert rows and all(r[0] == "1" and r[1] == "1" for r in rows), rows  # 1 = good, 0 = bad
    flags = [r[2] for r in rows]
    assert sum("S" in f and "A" not in f for f in flags) == 2  # two SYNs
    assert sum("F" in f for f in flags) == 4  # FIN + FIN/ACK per conversation
    analysis = subprocess.run(
        [tshark, "-n", "-r", str(path), "-Y", "tcp.analysis.flags && !tcp.analysis.window_update"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert analysis.strip() == ""  # no retransmission / lost segment / bad ack warnings
