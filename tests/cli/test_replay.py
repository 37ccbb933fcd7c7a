"""`toolcall replay` end to end on fixtures/replay: goldens, what-if, exit codes, store, live."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, ROOT, assert_golden, run_cli
from tests.pipeline.replay_helpers import loopback

B = "fixtures/replay/booking"
INPUTS = [f"{B}/messages.json", f"{B}/middleware.log"]
CFG = ["--config", f"{B}/toolcall.toml"]
EXPECTED = json.loads((FIXTURES / "replay" / "booking" / "expected.json").read_text())


def _json(args: list[str]) -> dict[str, Any]:
    res = run_cli(
        [*CFG, "replay", *INPUTS, "--trace-id", "trace-book", "--format", "json", *args], cwd=ROOT
    )
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def test_known_verdicts() -> None:
    doc = _json([])
    got = {c["tool_call_id"]: [c["replayed"], c["observed"], c["agrees"]] for c in doc["calls"]}
    assert got == EXPECTED["calls"]
    assert doc["calls"][0]["tool_call_id"] == "call_8"  # disagreements first
    assert doc["schema_version"] == 1 and doc["trace_id"] == "trace-book" and doc["changes"] is None
    stage = doc["calls"][0]["stages"][0]
    assert set(stage) >= {"stage", "verdict", "code", "reason"}


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        (["--tools", f"{B}/tools_new.json"], "whatif_tools_new"),
        (["--config", f"{B}/looser.toml"], "whatif_looser"),
    ],
)
def test_what_if_lists_exactly_the_changed_calls(extra: list[str], key: str) -> None:
    doc = _json(extra)
    got = {c["tool_call_id"]: [c["before"], c["after"]] for c in doc["changes"]}
    assert got == EXPECTED[key]


def test_golden_table(update_goldens: bool) -> None:
    assert_golden(
        "replay/booking_table",
        [*CFG, "replay", *INPUTS, "--trace-id", "trace-book"],
        update=update_goldens,
    )


def test_golden_json(update_goldens: bool) -> None:
    assert_golden(
        "replay/booking_json",
        [*CFG, "replay", *INPUTS, "--trace-id", "trace-book", "-f", "json"],
        update=update_goldens,
    )


def test_golden_markdown_what_if(update_goldens: bool) -> None:
    assert_golden(
        "replay/booking_whatif_markdown",
        [
            *CFG,
            "replay",
            *INPUTS,
            "--trace-id",
            "trace-book",
            "--tools",
            f"{B}/tools_new.json",
            "--format",
            "markdown",
        ],
        update=update_goldens,
    )


def test_fail_on_disagree_exits_1() -> None:
    res = run_cli(
        [*CFG, "replay", *INPUTS, "--trace-id", "trace-book", "--fail-on-disagree", "-f", "json"],
        cwd=ROOT,
    )
    assert res.exit_code == 1
    healthy = run_cli(
        [
            "replay",
            "fixtures/incidents/healthy",
            "--trace-id",
            "trace-healthy",
            "--fail-on-disagree",
        ],
        cwd=ROOT,
    )
    assert healthy.exit_code == 0, healthy.stdout


@pytest.mark.parametrize(
    "args", [[], ["--trace-id", "a", "--session-id", "b"], ["--trace-id", "nope"]]
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    res = run_cli(["replay", *INPUTS, *args], cwd=ROOT)
    assert res.exit_code == 2
    assert res.stderr.startswith("toolcall: error:")


def test_golden_non_loopback_target_refused(update_goldens: bool) -> None:
    assert_golden(
        "replay/remote_target_refused",
        ["replay", *INPUTS, "--trace-id", "trace-book", "--target", "http://10.1.2.3:8080"],
        update=update_goldens,
    )


def test_session_id_and_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert (
        run_cli(["ingest", *[str(ROOT / p) for p in INPUTS], "--store", str(store)]).exit_code == 0
    )
    res = run_cli(
        [*CFG, "replay", "--session-id", "sess-book", "--store", str(store), "-f", "json"], cwd=ROOT
    )
    assert res.exit_code == 0, res.stderr
    got = {
        c["tool_call_id"]: [c["replayed"], c["observed"], c["agrees"]]
        for c in json.loads(res.stdout)["calls"]
    }
    assert got == EXPECTED["calls"]


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    res = run_cli(
        [*CFG, "replay", *INPUTS, "--trace-id", "trace-book", "-f", "markdown", "-o", str(out)],
        cwd=ROOT,
    )
    assert res.exit_code == 0 and res.stdout == ""
    assert out.read_text().startswith("**toolcall replay**")


class _Echo(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        raw = json.dumps(
            {
                "status": "success",
                "data": ["ok"],
                "call_id": self.headers["X-Tool-Call-ID"],
                "timestamp": int(self.headers["X-Request-Timestamp"]),
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def echo() -> Iterator[str]:
    with loopback(_Echo) as url:
        yield url


def test_live_target_on_loopback(echo: str) -> None:
    doc = _json(["--target", echo, "--timeout", "2"])
    live = {r["tool_call_id"]: r for r in doc["live"]}
    # the four calls the pipeline dispatches are sent; rejected ones are not
    assert sorted(live) == ["call_1", "call_5", "call_6", "call_8"]
    assert all(r["verdict"]["verdict"] == "pass" and r["http_status"] == 200 for r in live.values())
    assert live["call_1"]["diffs"] == []  # status and call_id as recorded by the middleware
