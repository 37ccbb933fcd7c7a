"""`--otlp-endpoint` against a real OTLP consumer: Arize Phoenix (`phoenix serve` on loopback,
its own SQLite in a temporary directory), read back through Phoenix's REST API."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import FIXTURES, need_phoenix, run_cli

LOOP = FIXTURES / "otel" / "genai_loop" / "traces.otlp.jsonl"
START_TIMEOUT = 180.0  # seconds; a loaded CI box migrates Phoenix's database slowly


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return orjson.loads(r.read())


@pytest.fixture
def phoenix(tmp_path: Path) -> Iterator[str]:
    exe = need_phoenix()
    port = _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(tmp_path),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = (tmp_path / "phoenix.log").open("wb")
    proc = subprocess.Popen([str(exe), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    tail = (tmp_path / "phoenix.log").read_text(errors="replace")[-2000:]
                    pytest.fail(f"phoenix serve did not come up: {tail}")
                time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


def _spans(base: str, want: int) -> list[dict[str, Any]]:
    """Phoenix ingests asynchronously: poll its span list until *want* spans are there."""
    deadline = time.monotonic() + 60
    while True:
        got = _get(f"{base}/v1/projects/default/spans?limit=100")["data"]
        if len(got) >= want or time.monotonic() > deadline:
            return list(got)
        time.sleep(0.5)


def test_phoenix_shows_the_findings_in_the_source_trace(phoenix: str) -> None:
    res = run_cli(["diagnose", str(LOOP), "--otlp-endpoint", phoenix, "--fail-on", "never"])
    assert res.exit_code == 0, res.output
    assert "posted 17 spans" in res.stderr
    spans = _spans(phoenix, 17)
    assert len(spans) == 17
    assert {s["context"]["trace_id"] for s in spans} == {"036652a04b9193a33c02f6de6bb4d984"}
    (finding,) = [s for s in spans if s["name"] == "FL001 model-loop"]
    assert finding["status_code"] == "ERROR"
    assert finding["attributes"]["toolcall.finding.code"] == "FL001"
    assert finding["attributes"]["gen_ai.tool.call.id"] == "call_loop_1"
    assert finding["parent_id"] == "2036651b882344bb"  # the execute_tool span of call_loop_1
    calls = sorted(
        s["attributes"]["gen_ai.tool.call.id"]
        for s in spans
        if s["name"].startswith("toolcall.call")
    )
    assert calls == [f"call_loop_{i}" for i in range(1, 5)]
