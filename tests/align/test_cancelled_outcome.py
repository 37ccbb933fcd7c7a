"""A call the client cancelled (MCP `notifications/cancelled`) is `cancelled` in the timeline,
as OR001's breakpoint has it, not a bare `missing`; a call answered after all stays `result`."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcall_cli.align import align
from toolcall_cli.sources import parse_file

MCP = Path(__file__).resolve().parents[2] / "fixtures" / "mcp"


@pytest.mark.parametrize(
    "name", ["session_2025-11-25.jsonl", "session_2026-07-28.log", "session_2026-07-28.raw.jsonl"]
)
def test_a_cancelled_call_is_cancelled(name: str) -> None:
    tl = align(parse_file(MCP / name))
    outcome = {c.tool_call_id: c.outcome for c in tl.calls}
    assert outcome["4"] == "cancelled"  # slow_report, cancelled after its progress reports
    assert {o for cid, o in outcome.items() if cid != "4"} == {"result"}


def test_a_session_without_cancellation_has_none() -> None:
    tl = align(parse_file(MCP / "session_2025-06-18.jsonl"))
    assert tl.calls and "cancelled" not in {c.outcome for c in tl.calls}
