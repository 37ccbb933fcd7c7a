"""Live replay never leaves loopback: no redirects, no proxies, no rebinding, one deadline.

Every server here is a real `http.server` on 127.0.0.1; the `connects` guard (conftest)
refuses any connect to another address, so a regression fails instead of sending traffic.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.conftest import ROOT, run_cli
from tests.replay.replay_helpers import call, frame, live_results, loopback, mw
from tests.security.conftest import Connects
from toolcall_cli.replay import ReplayReport, replay
from toolcall_cli.replay.live import live_replay

B = "fixtures/replay/booking"
REPLAY = ["--config", f"{B}/toolcall.toml", "replay", f"{B}/messages.json", f"{B}/middleware.log"]
REPLAY += ["--trace-id", "trace-book", "--format", "json"]
TOOLCALL = str(Path(sys.executable).with_name("toolcall"))
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy")


class Recorder(BaseHTTPRequestHandler):
    """Records every request it gets; answers like a good tool service."""

    seen: ClassVar[list[tuple[str, str, dict[str, str]]]] = []

    def _record(self) -> None:
        Recorder.seen.append((self.command, self.path, dict(self.headers)))
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        raw = json.dumps(
            {"status": "success", "data": [1], "call_id": self.headers.get("X-Tool-Call-ID")}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = do_CONNECT = _record

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def recorder() -> Iterator[str]:
    Recorder.seen = []
    with loopback(Recorder) as url:
        yield url


def _report() -> ReplayReport:
    rows = [
        call("c1", "query_db", '{"user_id": "u1"}'),
        mw("mw_request", "c1", "2024-05-01T00:00:00Z"),
    ]
    return replay(frame(rows), trace_id="t1")


def test_a_redirect_is_the_answer_never_followed(recorder: str, connects: Connects) -> None:
    class Redirect(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(302)
            self.send_header("Location", f"{recorder}/steal")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return

    with loopback(Redirect) as url:
        live = live_results(live_replay(_report(), target=url))
    assert Recorder.seen == []  # no second request, anywhere
    assert [(r.http_status, r.verdict.verdict, r.verdict.code) for r in live] == [
        (302, "fail", "redirect")
    ]
    assert "/steal" in live[0].verdict.reason
    assert connects.outside == []


@pytest.mark.parametrize("var", ["http_proxy", "HTTP_PROXY", "ALL_PROXY"])
def test_environment_proxies_are_ignored(recorder: str, var: str) -> None:
    class Service(BaseHTTPRequestHandler):
        hits: ClassVar[int] = 0

        def do_POST(self) -> None:
            Service.hits += 1
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, format: str, *args: Any) -> None:
            return

    # A fresh process: urllib reads proxies once per process, as a user's shell would set them.
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy", *PROXY_VARS)}
    env[var] = recorder  # the "proxy": a loopback server that must get nothing
    with loopback(Service) as url:
        done = subprocess.run(
            [TOOLCALL, *REPLAY, "--target", url, "--timeout", "2"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert Recorder.seen == []
    assert Service.hits == 4


class Trickle(BaseHTTPRequestHandler):
    """Sends its headers, then one body byte every 0.2 s: every read succeeds, slowly."""

    stop: ClassVar[threading.Event] = threading.Event()

    def do_POST(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "60")
        self.end_headers()
        for _ in range(60):
            if self.stop.wait(0.2):
                return
            try:
                self.wfile.write(b" ")
                self.wfile.flush()
            except OSError:
                return

    def log_message(self, format: str, *args: Any) -> None:
        return


def test_timeout_is_a_total_deadline() -> None:
    Trickle.stop = threading.Event()
    with loopback(Trickle) as url:
        start = time.monotonic()
        live = live_results(live_replay(_report(), target=url, timeout=2.0))
        took = time.monotonic() - start
        Trickle.stop.set()
    assert [(r.verdict.verdict, r.verdict.code) for r in live] == [("fail", "timeout")]
    assert took < 3.0, f"--timeout 2 held the call for {took:.1f} s"


def test_dns_rebinding_never_reaches_the_second_answer(
    recorder: str, monkeypatch: pytest.MonkeyPatch, connects: Connects
) -> None:
    port = int(recorder.rsplit(":", 1)[1])
    real = socket.getaddrinfo
    answers = iter(["127.0.0.1", "127.0.0.1"])

    def rebinding(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "rebind.test":
            return real(host, *args, **kwargs)
        ip = next(answers, "10.255.255.1")  # loopback twice, then somewhere else
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (ip, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    res = run_cli([*REPLAY, "--target", f"http://rebind.test:{port}", "--timeout", "2"], cwd=ROOT)
    assert connects.outside == []
    assert res.exit_code == 0, res.stderr
    live = json.loads(res.stdout)["live"]
    assert len(live) == 4 and all(r["http_status"] == 200 for r in live)
    assert {h["Host"] for _, _, h in Recorder.seen} == {f"rebind.test:{port}"}


def test_userinfo_is_sent_but_never_shown(recorder: str) -> None:
    target = recorder.replace("http://", "http://alice:hunter2-secret@")
    res = run_cli([*REPLAY, "--target", target, "--timeout", "2"], cwd=ROOT)
    assert res.exit_code == 0, res.stderr
    assert "hunter2-secret" not in res.stdout + res.stderr
    assert {r["url"].split("/tools/")[0] for r in json.loads(res.stdout)["live"]} == {
        recorder.replace("http://", "http://***@")
    }
    assert len(Recorder.seen) == 4


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.1:99999",
        "http://127.0.0.1:abc",
        "http://[::1",
        "http://[127.0.0.1]:8080",
        "http://127.0.0.1:8080/\r\nX-Evil: 1",
        "http://127.0.0.1:8080\n",
    ],
)
def test_a_bad_target_is_a_one_line_usage_error(target: str) -> None:
    res = run_cli([*REPLAY, "--target", target])
    assert res.exit_code == 2, res.stderr
    assert res.stderr.startswith("toolcall: error: --target")
    assert "Traceback" not in res.stderr
