"""Live replay against a real HTTP tool service on loopback (http.server in a thread)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

import pytest

from tests.replay.replay_helpers import call, frame, live_results, loopback, mw
from toolcall_cli.errors import UsageError
from toolcall_cli.replay import replay
from toolcall_cli.replay.live import check_target, live_replay


class ToolService(BaseHTTPRequestHandler):
    """Answers POST /tools/NAME like the middleware's tool service; `mode` misbehaves on demand."""

    mode: ClassVar[str] = "good"
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        cid = self.headers["X-Tool-Call-ID"]
        ts = int(self.headers["X-Request-Timestamp"])
        ToolService.seen.append(
            {"path": self.path, "body": body, "cid": cid, "trace": self.headers["X-Trace-ID"]}
        )
        answer: dict[str, Any] = {
            "status": "success",
            "data": [1],
            "message": "ok",
            "call_id": cid,
            "timestamp": ts,
        }
        if self.mode == "wrong_id":
            answer["call_id"] = "tc_def456"
        elif self.mode == "no_status":
            del answer["status"]
        elif self.mode == "slow":
            time.sleep(1.0)
        elif self.mode == "error_with_data":
            answer["status"] = "error"
        raw = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def service() -> Iterator[str]:
    ToolService.seen = []
    ToolService.mode = "good"
    with loopback(ToolService) as url:
        yield url


def _report() -> Any:
    rows = [
        call("c1", "query_db", '{"user_id": "u1"}'),
        call("c2", "query_db", "{'broken': True}", turn=2),
        mw("mw_request", "c1", "2024-05-01T00:00:00Z"),
        mw(
            "mw_response",
            "c1",
            "2024-05-01T00:00:00.2Z",
            status="success",
            attrs={"call_id": "c1", "status": "success"},
        ),
    ]
    return replay(frame(rows), trace_id="t1")


def test_live_replay_sends_what_the_middleware_sends(service: str) -> None:
    rows = live_results(live_replay(_report(), target=service))
    assert len(rows) == 1  # c2 is rejected at prescreen: never sent
    live = rows[0]
    assert live.verdict.verdict == "pass" and live.http_status == 200
    assert live.diffs == ()  # status and call_id as recorded; timestamp ignored
    sent = ToolService.seen[0]
    assert sent == {
        "path": "/tools/query_db",
        "body": {"function": "query_db", "arguments": {"user_id": "u1"}},
        "cid": "c1",
        "trace": "t1",
    }


@pytest.mark.parametrize(
    ("mode", "code"),
    [
        ("wrong_id", "call-id-mismatch"),
        ("no_status", "status-missing"),
        ("error_with_data", "error-with-data"),
    ],
)
def test_misbehaving_service(service: str, mode: str, code: str) -> None:
    ToolService.mode = mode
    live = live_results(live_replay(_report(), target=service))[0]
    assert (live.verdict.verdict, live.verdict.code) == ("fail", code)
    assert live.diffs, "the answer differs from the recorded one"


def test_wrong_call_id_diff_names_the_field(service: str) -> None:
    ToolService.mode = "wrong_id"
    live = live_results(live_replay(_report(), target=service))[0]
    assert [(d.path, d.recorded, d.live) for d in live.diffs] == [
        ("call_id", '"c1"', '"tc_def456"')
    ]


def test_too_slow_service_times_out(service: str) -> None:
    ToolService.mode = "slow"
    live = live_results(live_replay(_report(), target=service, timeout=0.2))[0]
    assert (live.verdict.verdict, live.verdict.code) == ("fail", "timeout")


def test_ignore_can_name_more_fields(service: str) -> None:
    ToolService.mode = "wrong_id"
    live = live_results(live_replay(_report(), target=service, ignore=("timestamp", "call_id")))[0]
    assert live.diffs == ()


def test_unreachable_target() -> None:
    live = live_results(live_replay(_report(), target="http://127.0.0.1:9"))[0]
    assert live.verdict.code in ("unreachable", "timeout")


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8080", "http://127.8.9.10", "http://[::1]:80", "http://localhost:1"]
)
def test_loopback_targets_are_allowed(url: str) -> None:
    assert check_target(url) == url


@pytest.mark.parametrize("url", ["http://10.0.0.1:8080", "http://8.8.8.8", "http://[2001:db8::1]/"])
def test_non_loopback_targets_are_refused(url: str) -> None:
    with pytest.raises(UsageError) as e:
        check_target(url)
    assert "--allow-remote" in (e.value.hint or "")
    assert check_target(url, allow_remote=True)


def test_bad_target_url() -> None:
    with pytest.raises(UsageError):
        check_target("ftp://127.0.0.1/")


def test_hostile_ids_are_sent_as_safe_headers(service: str) -> None:
    rows = [
        call("c1\r\nX-Evil: 1", "query_db", '{"user_id": "u1"}'),
        mw("mw_request", "c1\r\nX-Evil: 1", "2024-05-01T00:00:00Z"),
    ]
    rep = live_replay(replay(frame(rows), session_id="s1"), target=service)
    assert live_results(rep)[0].http_status == 200
    assert ToolService.seen[0]["cid"] == "c1??X-Evil: 1"
