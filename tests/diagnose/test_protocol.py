"""PR001–PR007: arguments, tool names, the response contract, raw JSON results."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.conftest import FIXTURES, need_tshark
from tests.diagnose.rule_fixture_helpers import run_rule
from toolcall_cli.diagnose import CLASSIFIERS, DiagnoseContext, diagnose_events
from toolcall_cli.diagnose.rules.protocol.arguments_not_json import damage
from toolcall_cli.diagnose.rules.protocol.timestamp_skew import parse_instant
from toolcall_cli.sources import parse_file
from toolcall_cli.tools.loaders import load_tools
from toolcall_cli.tools.registry import registry_from_defs

CODES = ("PR001", "PR002", "PR003", "PR004", "PR005", "PR006", "PR007")


def _a(**kw: Any) -> str:
    return json.dumps(kw)


def _run(ctx: DiagnoseContext, code: str) -> list[Any]:
    return list(CLASSIFIERS.get(code)(ctx))


# ---- PR001 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kind", "repairable"),
    [
        ("{'city': 'Paris', 'units': None}", "python literals", True),
        ('{"city": "Paris", // the capital\n "units": "c"}', "comments", True),
        ('"{\\"city\\": \\"Paris\\"}"', "double-encoded", True),
        ('{"city": "Par', "cut off", True),
        ('{"city": "Paris",}', "trailing comma", True),
        ("{city: 1}", "unquoted keys", True),
        ("[1, 2]", "a JSON array, not an object", False),
        ("42", "a JSON number, not an object", False),
        ("search for flights", "malformed", False),
    ],
)
def test_damage_kinds(args: str, kind: str, repairable: bool) -> None:
    hurt = damage(args)
    assert hurt is not None
    assert (hurt.kind, hurt.repairable) == (kind, repairable)


@pytest.mark.parametrize("args", ['{"a": 1}', "", "  ", '{"url": "http://x.test/a//b"}'])
def test_valid_or_empty_arguments_are_fine(args: str) -> None:
    assert damage(args) is None


def test_pr001_says_the_repair() -> None:
    (f,) = run_rule("PR001", "positive")
    assert "python literals" in f.message and "repair recovers it (city, units)" in f.message
    assert dict(f.extra) == {"damage": "python literals", "repairable": True}


def test_pr001_react_plain_input_is_not_json_by_design(
    make_ctx: Callable[..., DiagnoseContext],
) -> None:
    rows = [
        {
            "source": "messages",
            "kind": "tool_call",
            "session_id": "s",
            "tool_call_id": "c1",
            "tool": "search",
            "args": "cheap flights to Oslo",
            "attrs": _a(msg_index=1, protocol="react"),
        }
    ]
    assert _run(make_ctx(rows), "PR001") == []


# ---- PR002 / PR003 -------------------------------------------------------------------------


def test_pr002_did_you_mean() -> None:
    (f,) = run_rule("PR002", "positive")
    assert "'get_wether'" in f.message and "did you mean 'get_weather'" in f.message
    assert f.tool_call_ids == ("call_n1",)
    assert f.message.startswith("1 call to 'get_wether', which")  # not "1 call(s)"


def test_pr003_names_the_real_tool() -> None:
    (f,) = run_rule("PR003", "positive")
    assert "'Get_Weather'" in f.message and "'get_weather'" in f.message
    assert f.message.startswith("1 call to 'Get_Weather';")  # not "1 call(s)"


def test_pr002_skipped_without_any_tool_list(make_ctx: Callable[..., DiagnoseContext]) -> None:
    rows = [
        {
            "source": "messages",
            "kind": "tool_call",
            "session_id": "s",
            "tool_call_id": "c1",
            "tool": "anything_goes",
            "args": "{}",
            "attrs": _a(msg_index=1),
        }
    ]
    assert _run(make_ctx(rows), "PR002") == []


def test_pr002_uses_the_registry(make_ctx: Callable[..., DiagnoseContext]) -> None:
    reg = registry_from_defs(load_tools([FIXTURES / "schemas" / "openai_tools.json"]))
    known = reg.names()[0]
    rows = [
        {
            "source": "messages",
            "kind": "tool_call",
            "session_id": "s",
            "tool_call_id": "c1",
            "tool": known,
            "args": "{}",
            "attrs": _a(msg_index=1),
        },
        {
            "source": "messages",
            "kind": "tool_call",
            "session_id": "s",
            "tool_call_id": "c2",
            "tool": "definitely_not_a_tool",
            "args": "{}",
            "attrs": _a(msg_index=2),
        },
    ]
    ctx = make_ctx(rows)
    ctx = DiagnoseContext(timeline=ctx.timeline, cfg=ctx.cfg, registry=reg)
    (f,) = _run(ctx, "PR002")
    assert f.tool_call_ids == ("c2",)
    ctx = make_ctx([rows[1], {**rows[1], "tool_call_id": "c3", "attrs": _a(msg_index=3)}])
    ctx = DiagnoseContext(timeline=ctx.timeline, cfg=ctx.cfg, registry=reg)
    (f,) = _run(ctx, "PR002")
    assert f.message.startswith("2 calls to 'definitely_not_a_tool', which is not a known tool")


# ---- PR004 / PR005 -------------------------------------------------------------------------


def _resp(**kw: Any) -> dict[str, Any]:
    base = {
        "source": "pcap",
        "kind": "http_response",
        "ts": "2025-03-01T12:00:00.05Z",
        "session_id": "s",
        "tool_call_id": "c1",
        "tool": "check_seats",
        "http_status": 200,
    }
    return {**base, **kw}


def test_pr004_error_status_with_data(make_ctx: Callable[..., DiagnoseContext]) -> None:
    ctx = make_ctx(
        [_resp(status="error", attrs=_a(content_type="application/json", data_empty=False))]
    )
    (f,) = _run(ctx, "PR004")
    assert "'error'" in f.message and "`data`" in f.message


def test_pr004_ignores_non_json_bodies(make_ctx: Callable[..., DiagnoseContext]) -> None:
    ctx = make_ctx([_resp(http_status=502, attrs=_a(content_type="text/html"))])
    assert _run(ctx, "PR004") == []


def test_pr005_fixture_offset() -> None:
    need_tshark()
    (f,) = run_rule("PR005", "positive")
    assert dict(f.extra)["offset_ms"] == pytest.approx(4250, abs=1)
    assert "X-Request-Timestamp" in f.message


def test_pr005_falls_back_to_the_request_time(make_ctx: Callable[..., DiagnoseContext]) -> None:
    rows = [
        {
            "source": "pcap",
            "kind": "http_request",
            "ts": "2025-03-01T12:00:00Z",
            "session_id": "s",
            "tool_call_id": "c1",
            "tool": "check_seats",
            "attrs": _a(stream=1),
        },
        _resp(status="ok", attrs=_a(stream=1, timestamp="2025-03-01T11:59:58Z")),
    ]
    (f,) = _run(make_ctx(rows), "PR005")
    assert "capture time" in f.message and dict(f.extra)["offset_ms"] == -2000.0


@pytest.mark.parametrize(
    ("value", "iso"),
    [
        (1740830400, "2025-03-01T12:00:00+00:00"),
        (1740830400123, "2025-03-01T12:00:00.123000+00:00"),
        ("1740830400.5", "2025-03-01T12:00:00.500000+00:00"),
        ("2025-03-01T13:00:00+01:00", "2025-03-01T12:00:00+00:00"),
        ("2025-03-01 12:00:00", "2025-03-01T12:00:00+00:00"),
    ],
)
def test_parse_instant(value: Any, iso: str) -> None:
    got = parse_instant(value)
    assert got is not None and got.isoformat() == iso


@pytest.mark.parametrize("value", [None, True, "soon", [1]])
def test_parse_instant_rejects(value: Any) -> None:
    assert parse_instant(value) is None


# ---- PR006 / PR007 -------------------------------------------------------------------------


def test_pr006_groups_per_tool() -> None:
    (f,) = run_rule("PR006", "positive")
    assert f.tool == "search_flights" and "raw JSON" in f.message


def test_pr006_small_flat_json_is_fine(make_ctx: Callable[..., DiagnoseContext]) -> None:
    rows = [
        {
            "source": "messages",
            "kind": "tool_result",
            "session_id": "s",
            "tool_call_id": "c1",
            "detail": json.dumps({"a": [1, 2], "b": {"c": 1}}),
            "attrs": _a(msg_index=2),
        }
    ]
    assert _run(make_ctx(rows), "PR006") == []


def test_pr007_names_the_type() -> None:
    (f,) = run_rule("PR007", "positive")
    assert "JSON object" in f.message and f.tool_call_ids == ("call_o1",)


def test_tool_lists_frame_is_unmodified(make_ctx: Callable[..., DiagnoseContext]) -> None:
    ctx = make_ctx(
        [
            {
                "source": "messages",
                "kind": "tool_call",
                "session_id": "s",
                "tool_call_id": "c1",
                "tool": "x",
                "args": "{'a': 1}",
                "attrs": _a(msg_index=1),
            }
        ]
    )
    before = ctx.events().copy()
    for code in CODES:
        _run(ctx, code)
    pd.testing.assert_frame_equal(ctx.events(), before)


def test_pr004_middleware_responses(tmp_path: Path) -> None:
    log = tmp_path / "middleware.log"
    base = {"event": "tool_call.response", "tool": "check_seats", "session_id": "s"}
    lines = [
        {
            **base,
            "ts": "2025-03-01T12:00:00.5Z",
            "msg": "Received response from check_seats",
            "tool_call_id": "c1",
            "status": "error",
            "data": {"seats": 3},
        },
        {
            **base,
            "ts": "2025-03-01T12:00:00.6Z",
            "msg": "Received response from check_seats without status",
            "tool_call_id": "c2",
        },
        {
            **base,
            "ts": "2025-03-01T12:00:00.7Z",
            "msg": "Received response from check_seats",
            "tool_call_id": "c3",
            "status": "ok",
            "data": {"seats": 3},
        },
    ]
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    rep = diagnose_events(parse_file(log, source="middleware"), select=["PR004"])
    got = {f.tool_call_ids: f.message for f in rep.findings}
    assert set(got) == {("c1",), ("c2",)}
    assert "'error'" in got[("c1",)] and "no `status`" in got[("c2",)]
