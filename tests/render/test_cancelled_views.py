"""A call the timeline shows as `cancelled` says who cancelled it and when, in every view:
`timeline --format json` (fields `cancelled_by`, `cancelled_at`, `cancelled_origin`, added to
schema 1), the text and markdown timelines and the HTML calls table. Real recordings: a Codex
rollout whose last turn the user aborted (`turn_aborted`), an MCP session whose client
cancelled a slow call (`notifications/cancelled`)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FIXTURES, ROOT, run_cli

CODEX = "fixtures/transcripts/codex_rollout.jsonl"
MCP = "fixtures/mcp/session_2025-11-25.jsonl"


def _calls(path: str) -> dict[str, dict[str, object]]:
    res = run_cli(["timeline", path, "--format", "json"], cwd=ROOT)
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    return {c["tool_call_id"]: c for t in doc["traces"] for c in t["calls"]}


def _cancel_fields(call: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in call.items() if k.startswith("cancelled_")}


def test_json_says_the_user_aborted_the_turn_and_when() -> None:
    calls = _calls(CODEX)
    assert _cancel_fields(calls["call_R3run"]) == {
        "cancelled_by": "user",
        "cancelled_at": "2025-09-10T14:00:16.100000Z",  # the turn_aborted line's timestamp
        "cancelled_origin": f"{CODEX}:14#/payload",
    }
    # every other call carries the fields, null
    assert {cid: _cancel_fields(c) for cid, c in calls.items() if c["outcome"] != "cancelled"} == {
        cid: {"cancelled_by": None, "cancelled_at": None, "cancelled_origin": None}
        for cid in ("call_Q1w2e3", "call_L9k8", "call_P4tch")
    }


def test_json_says_the_client_cancelled_the_call_and_when() -> None:
    calls = _calls(MCP)
    assert calls["4"]["outcome"] == "cancelled"
    line = (FIXTURES / "mcp" / "session_2025-11-25.jsonl").read_text().splitlines()[12]
    assert '"notifications/cancelled"' in line  # line 13 is the client's cancellation
    assert _cancel_fields(calls["4"]) == {
        "cancelled_by": "client",
        "cancelled_at": "2026-12-01T09:41:20.210786Z",
        "cancelled_origin": f"{MCP}:13",
    }


def test_the_text_and_markdown_timelines_say_when() -> None:
    said = (
        "call_R3run cancelled at 2025-09-10 14:00:16.100 UTC: the user aborted its turn "
        '("turn aborted: interrupted") at'
    )
    text = run_cli(["timeline", CODEX, "--trace-id", "call_R3run"], cwd=ROOT).stdout
    assert f"{said} {CODEX}:14#/payload" in " ".join(text.split())
    md = run_cli(["timeline", MCP, "--trace-id", "4", "--format", "markdown"], cwd=ROOT).stdout
    assert (
        "- 4 cancelled at 2026-12-01 09:41:20.210 UTC: the client cancelled it "
        '\\("timed out after 1.0s"\\) at '
        "fixtures/mcp/session\\_2025-11-25.jsonl:13\n"
    ) in md


def test_the_html_calls_table_says_when() -> None:
    page = run_cli(["timeline", CODEX, "--format", "html"], cwd=ROOT).stdout
    assert (
        '<ul class="note cancelled"><li><code>call_R3run</code> cancelled at 2025-09-10 '
        "14:00:16.100 UTC: the user aborted its turn (&quot;turn aborted: interrupted&quot;) at "
        f"{CODEX}:14#/payload</li></ul>"
    ) in page


def _labels(page: str) -> set[str]:
    """The accessible labels of the cancelled calls' outcome glyphs (table and swimlane)."""
    import re

    tags = re.findall(r'class="out o-cancelled" title="([^"]*)"', page)
    titles = re.findall(r'<g class="outcome"><title>(cancelled[^<]*)</title>', page)
    return {*tags, *titles}


def test_the_html_label_says_the_user_aborted_the_turn_with_the_marker(tmp_path: Path) -> None:
    """A user's abort is not the client cancelling: the label says the user aborted the
    turn and quotes the marker, which names the agent's own record of it (Codex's
    `turn_aborted` event, Claude Code's `[Request interrupted by user]` turn)."""
    from tests.diagnose.test_diagnose_transcripts import _claude_code_with

    codex = run_cli(["timeline", CODEX, "--format", "html"], cwd=ROOT).stdout
    assert _labels(codex) == {
        "cancelled: the user aborted the turn (&quot;turn aborted: interrupted&quot;)"
    }
    claude = _claude_code_with(tmp_path, keep_result=False)
    page = run_cli(["timeline", str(claude), "--format", "html"], cwd=ROOT).stdout
    assert _labels(page) == {
        "cancelled: the user aborted the turn "
        "(&quot;[Request interrupted by user for tool use]&quot;)"
    }
    assert "cancelled by the client" not in codex + page


def test_the_html_label_keeps_cancelled_by_the_client_for_an_mcp_cancel() -> None:
    page = run_cli(["timeline", MCP, "--format", "html"], cwd=ROOT).stdout
    assert _labels(page) == {"cancelled by the client (&quot;timed out after 1.0s&quot;)"}


def test_a_trace_header_counts_a_cancelled_call_apart_from_those_without_result() -> None:
    """OR001 does not report a call whose turn the user aborted: the header must not call it
    `without result` either (it said `1 call, 1 without result` for the aborted call)."""
    text = run_cli(["timeline", CODEX, "--trace-id", "call_R3run"], cwd=ROOT).stdout
    assert "1 call, 0 without result, 1 cancelled · trouble" in " ".join(text.split())
    md = run_cli(["timeline", CODEX, "--format", "markdown"], cwd=ROOT).stdout
    headers = [ln for ln in md.splitlines() if ln.startswith("### ")]
    assert sum(", 1 cancelled" in ln for ln in headers) == 1  # the aborted call's trace only
    assert sum(", 0 without result" in ln for ln in headers) == len(headers) == 5
    for command in ("timeline", "diagnose"):
        page = run_cli([command, MCP, "--format", "html"], cwd=ROOT).stdout
        assert "1 call, <b>0 without result</b>, 1 cancelled, 0 over SLA" in page


def _call_spans(path: str) -> dict[str, dict[str, object]]:
    res = run_cli(["timeline", path, "--format", "otlp"], cwd=ROOT)
    spans = [
        s
        for line in res.stdout.splitlines()
        for rs in json.loads(line)["resourceSpans"]
        for ss in rs["scopeSpans"]
        for s in ss["spans"]
        if s["name"].startswith("toolcall.call ")
    ]
    out = {}
    for s in spans:
        attrs = {a["key"]: a["value"].get("stringValue") for a in s["attributes"]}
        out[str(attrs["gen_ai.tool.call.id"])] = {"status": s.get("status"), **attrs}
    return out


def test_otlp_exports_a_user_abort_as_no_error_and_a_client_cancel_as_one() -> None:
    """In Jaeger or Phoenix an error span is a failure to chase: the call whose turn the user
    aborted is not one (its span says who cancelled it, with the evidence); a call the client
    withdrew still is (OR001 reports it)."""
    user = _call_spans(CODEX)["call_R3run"]
    assert (user["status"], user["toolcall.call.outcome"]) == (None, "cancelled")
    assert user["toolcall.call.cancelled_by"] == "user"
    assert user["toolcall.call.cancelled_origin"] == f"{CODEX}:14#/payload"
    client = _call_spans(MCP)["4"]
    assert client["status"] == {"code": 2, "message": "cancelled"}
    assert client["toolcall.call.cancelled_by"] == "client"


def test_the_html_report_does_not_mark_a_user_abort_as_a_fault() -> None:
    """Red marks a fault: the aborted call's row and lane are plain (its glyph and word say
    `cancelled`); the call the client cancelled keeps its red mark (OR001 reports it)."""
    import re

    codex = run_cli(["timeline", CODEX, "--format", "html"], cwd=ROOT).stdout
    (lane,) = re.findall(
        r'<g class="lane lane-call"[^>]*data-outcome="cancelled">.*?</g>\n', codex, re.S
    )
    assert "lane-bad" not in lane and 'class="lbl">shell · call_R3run<' in lane
    assert re.search(r'<tr id="(t\d+-c\d+)-row" data-call="\1">(?:(?!</tr>).)*call_R3run', codex)
    mcp = run_cli(["timeline", MCP, "--format", "html"], cwd=ROOT).stdout
    assert re.search(r'<tr id="(t\d+-c\d+)-row" data-call="\1" class="bad"><td><code>4<', mcp)
