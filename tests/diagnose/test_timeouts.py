"""TM001 (timeout reported without progress) and TM002 (SLA breaches per phase)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.diagnose.conftest import MiniTimeline
from tests.diagnose.rule_fixture_helpers import run_rule
from toolcall_cli.align.model import CallView
from toolcall_cli.diagnose import CLASSIFIERS, DiagnoseContext
from toolcall_cli.diagnose.rules.timeouts.sla_breach import MAX_CALL_FINDINGS, breached_phases
from toolcall_cli.diagnose.rules.timeouts.timeout_without_partial import bare_timeout
from toolcall_cli.model.config import Sla


def _a(**kw: Any) -> str:
    return json.dumps(kw)


def _run(ctx: DiagnoseContext, code: str) -> list[Any]:
    return list(CLASSIFIERS.get(code)(ctx))


def test_tm001_fixture_message() -> None:
    (f,) = run_rule("TM001", "positive")
    assert "middleware logged a tool call timeout" in f.message
    assert "search_flights" in f.message and f.tool_call_ids == ("call_x1",)


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ('{"error": "tool call timeout"}', True),
        ("Error: upstream timed out", True),
        ('{"status": "partial", "data": [1, 2]}', False),
        ('{"error": "timeout", "resume_token": "t-1"}', False),
        ('{"error": "timeout", "job_id": "j-9"}', False),
        ("timed out; poll check_task with task_id 42", False),
        ("unhandled timeout in worker", True),
    ],
)
def test_bare_timeout(text: str, bare: bool) -> None:
    assert bare_timeout(text) is bare


def _call_rows(result: str, *, status: int = 504) -> list[dict[str, Any]]:
    return [
        {
            "source": "messages",
            "kind": "tool_call",
            "session_id": "s",
            "tool_call_id": "c1",
            "tool": "export",
            "args": "{}",
            "attrs": _a(msg_index=1),
        },
        {
            "source": "nginx",
            "kind": "http_access",
            "ts": "2025-03-01T12:00:30Z",
            "session_id": "s",
            "tool_call_id": "c1",
            "tool": "export",
            "http_status": status,
            "detail": "POST /tools/export HTTP/1.1",
        },
        {
            "source": "messages",
            "kind": "tool_result",
            "session_id": "s",
            "tool_call_id": "c1",
            "detail": result,
            "attrs": _a(msg_index=2),
        },
    ]


def test_tm001_nginx_504_then_bare_error(make_ctx: Callable[..., DiagnoseContext]) -> None:
    (f,) = _run(make_ctx(_call_rows('{"error": "upstream error"}')), "TM001")
    assert "nginx logged HTTP 504" in f.message and "export" in f.message


def test_tm001_successful_retry_is_not_a_bare_timeout(
    make_ctx: Callable[..., DiagnoseContext],
) -> None:
    assert _run(make_ctx(_call_rows('{"booking": "PNR7QX"}', status=499)), "TM001") == []


def test_tm001_result_text_alone(make_ctx: Callable[..., DiagnoseContext]) -> None:
    rows = [
        {
            "source": "messages",
            "kind": "tool_result",
            "session_id": "s",
            "tool_call_id": "c9",
            "detail": "Error: deadline exceeded",
            "attrs": _a(msg_index=2),
        }
    ]
    assert len(_run(make_ctx(rows), "TM001")) == 1
    rows[0]["detail"] = "Flight status: delayed. " + "x" * 700 + " timeout"
    assert _run(make_ctx(rows), "TM001") == []


def test_breached_phases() -> None:
    phases = {
        "initiation_ms": 20.0,
        "service_ms": 2140.0,
        "injection_ms": None,
        "end_to_end_ms": 3420.0,
    }
    assert breached_phases(phases, Sla()) == [
        ("service_ms", 2140.0, 800.0),
        ("end_to_end_ms", 3420.0, 3000.0),
    ]
    assert breached_phases(phases, Sla(service_ms=5000, end_to_end_ms=5000)) == []


def test_tm002_one_finding_per_call_listing_phases(
    make_ctx: Callable[..., DiagnoseContext],
) -> None:
    ctx = make_ctx(
        [
            {
                "source": "middleware",
                "kind": "mw_request",
                "ts": "2025-03-01T12:00:00Z",
                "session_id": "s",
                "tool_call_id": "c1",
                "tool": "search",
                "detail": "POST /tools/search",
            }
        ]
    )
    slow = CallView(
        "c1",
        "search",
        "c1",
        "s",
        "result",
        {"initiation_ms": 250.0, "service_ms": 2140.0, "injection_ms": 10.0, "end_to_end_ms": None},
    )
    fast = CallView(
        "c2",
        "search",
        "c2",
        "s",
        "result",
        {"initiation_ms": 5.0, "service_ms": 100.0, "injection_ms": 10.0, "end_to_end_ms": 900.0},
    )
    timeline = MiniTimeline(events=ctx.timeline.events, calls=(slow, fast))
    (f,) = _run(DiagnoseContext(timeline=timeline, cfg=ctx.cfg), "TM002")
    assert f.tool_call_ids == ("c1",)
    assert (
        f.message
        == "call c1 (search): initiation 250 ms (SLA 100 ms), service 2,140 ms (SLA 800 ms)"
    )
    assert set(dict(f.extra)["breaches"]) == {"initiation_ms", "service_ms"}


def test_tm002_caps_per_call_findings(make_ctx: Callable[..., DiagnoseContext]) -> None:
    ctx = make_ctx([])
    calls = tuple(
        CallView(f"c{i}", "search", f"c{i}", "s", "result", {"service_ms": 900.0 + i})
        for i in range(MAX_CALL_FINDINGS + 7)
    )
    timeline = MiniTimeline(events=ctx.timeline.events, calls=calls)
    found = _run(DiagnoseContext(timeline=timeline, cfg=ctx.cfg), "TM002")
    assert len(found) == MAX_CALL_FINDINGS + 1
    summary = next(f for f in found if f.message.startswith("7 more calls"))
    assert "service 7 calls" in summary.message and "worst 906 ms" in summary.message
    # the worst call is reported on its own
    assert any(f.tool_call_ids == (f"c{MAX_CALL_FINDINGS + 6}",) for f in found)
