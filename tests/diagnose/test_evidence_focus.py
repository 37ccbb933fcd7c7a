"""Proof-centred evidence: each quote is a window around the part that proves the finding
(TR002: the cut tail and the size on the wire; FL001: the result the model got after its first
call), and the JSON output carries the focus."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import FIXTURES
from toolcall_cli.cli._inputs import evidence_for
from toolcall_cli.diagnose.request import DiagnoseRequest
from toolcall_cli.diagnose.run import diagnose
from toolcall_cli.model.findings import Evidence, Finding
from toolcall_cli.sources.base import ParseOptions


def _findings(bundle: Path, code: str) -> list[Finding]:
    got = evidence_for([bundle], store=Path("unused-store"), source=None, opts=ParseOptions())
    req = DiagnoseRequest(select=(code,))
    rep = diagnose(got.events, req, inputs=got.inputs, quotable=got.quotable)
    return [f for f in rep.findings if f.code == code]


def _focus(e: Evidence) -> str:
    assert e.focus is not None
    return e.text[e.focus[0] : e.focus[1]]


def _by_origin(f: Finding, suffix: str) -> Evidence:
    (e,) = [e for e in f.evidence if e.origin.endswith(suffix)]
    return e


def test_tr002_quotes_the_size_on_the_wire_not_the_head_of_the_line() -> None:
    (f,) = [f for f in _findings(FIXTURES / "replay" / "booking", "TR002") if "call_5" in f.message]
    wire = _by_origin(f, "middleware.log:15")
    assert _focus(wire) == '"size": 40'
    assert wire.text.startswith("…") and wire.text.endswith('"size": 40}')
    raw = (FIXTURES / "replay" / "booking" / "middleware.log").read_text().splitlines()[14]
    assert (wire.line, wire.column) == (15, raw.index('"size": 40') + 1)


def test_tr002_quotes_the_tail_where_the_1000_byte_result_was_cut() -> None:
    (f,) = _findings(FIXTURES / "incidents" / "truncated-result", "TR002")
    result = _by_origin(f, "messages.json#/messages/2")
    assert _focus(result).endswith('\\"fare')  # the last characters the model received
    assert result.text.endswith('\\"fare"}') and result.text.startswith("…")
    assert result.line is not None and result.column == 5
    access = _by_origin(f, "access.log:1")
    assert _focus(access) == "3109"
    assert access.column == access.text.index(" 3109 ") + 2


def test_fl001_quotes_the_result_the_model_received_after_the_first_call() -> None:
    (f,) = _findings(FIXTURES / "incidents" / "flooding-model-loop", "FL001")
    first, result, flood = f.evidence[:3]
    assert first.origin.endswith("#/messages/1/tool_calls/0")
    assert _focus(first) == '"arguments":"{\\"city\\": \\"Paris\\"}"'
    assert result.origin.endswith("#/messages/2")
    assert _focus(result).startswith('"content":"{\\"city\\": \\"Paris\\", \\"temp_c\\": 11')
    assert "flooding was detected" in _focus(flood)


def test_json_evidence_carries_focus_line_and_column() -> None:
    (f,) = _findings(FIXTURES / "incidents" / "truncated-result", "TR002")
    d = f.to_dict()["evidence"][1]
    assert d == {
        "origin": f.evidence[1].origin,
        "text": f.evidence[1].text,
        "focus": list(f.evidence[1].focus or ()),
        "line": 1,
        "column": f.evidence[1].column,
    }


RULES = FIXTURES / "rules"


def _focus_of(path: Path, code: str) -> list[str]:
    (f,) = _findings(path, code)
    return [_focus(e) for e in f.evidence]


def test_flooding_rules_focus_on_the_duplicated_value() -> None:
    assert _focus_of(RULES / "FL003" / "positive.json", "FL003") == ['"id":"call_0"'] * 2
    assert (
        _focus_of(RULES / "FL004" / "positive.middleware.log", "FL004")
        == ['"tool_call_id": "call_r1"'] * 2
    )
    assert sorted(_focus_of(RULES / "FL005" / "positive.middleware.log", "FL005")) == [
        '"instance": "mw-1"',
        '"instance": "mw-2"',
        '"instance": "mw-2"',
    ]
    assert (
        _focus_of(RULES / "FL002" / "positive.access.log", "FL002")
        == ['[01/Mar/2025:12:00:03 +0000] "POST /v1/chat/completions'] * 2
    )


def test_orphan_and_truncation_rules_focus_on_the_call_and_the_cut() -> None:
    assert _focus_of(RULES / "OR001" / "positive.json", "OR001") == ['"id":"call_book"']
    assert _focus_of(RULES / "OR002" / "positive.json", "OR002") == ['"tool_call_id":"call_9"']
    assert _focus_of(RULES / "TR001" / "positive.messages.json", "TR001") == ['"id":"call_d1"']
    (cut,) = _focus_of(RULES / "TR003" / "positive.json", "TR003")
    assert cut.endswith("Revenue grew by 12% in")  # the last characters before the cut
    # TR004: the value the late call took from the rolled-out result, in both lines
    assert _focus_of(RULES / "TR004" / "positive.json", "TR004") == ["ZFA04Y", "ZFA04Y"]


def test_protocol_rules_focus_on_the_name_arguments_or_status() -> None:
    assert _focus_of(RULES / "PR002" / "positive.json", "PR002") == ['"name":"get_wether"']
    assert _focus_of(RULES / "PR003" / "positive.json", "PR003") == ['"name":"Get_Weather"']
    assert _focus_of(RULES / "PR001" / "positive.json", "PR001") == [
        "\"arguments\":\"{'city': 'Paris', 'units': None}\""
    ]
    assert _focus_of(RULES / "PR004" / "positive.pcap", "PR004") == ["http_status=200"]
    tokens = [_focus(f.evidence[0]) for f in _findings(RULES / "PR009" / "positive.json", "PR009")]
    assert sorted(tokens) == ["<|channel|>", "<|im_end|>"]
    errors = _findings(RULES / "PR011" / "positive.json", "PR011")
    assert {_focus(f.evidence[0]) for f in errors} >= {
        '\\"status\\": \\"error\\"',
        '\\"error\\": {',
    }


def test_timeout_rules_focus_on_the_error_and_the_timestamps() -> None:
    (bare,) = _focus_of(RULES / "TM001" / "positive.messages.json", "TM001")
    assert bare == '{\\"error\\": \\"tool call timed out after 30s\\"}'
    stamps = _focus_of(RULES / "TM002" / "positive.middleware.log", "TM002")
    assert stamps[0] == '"ts": "2025-03-01T12:00:00.300Z"'
    assert all(s.startswith('"ts": ') for s in stamps)


def test_headline_and_markdown_carry_the_proving_quote() -> None:
    from toolcall_cli.diagnose.kit.headlines import proof
    from toolcall_cli.render.diagnose_markdown_view import evidence_lines

    (f,) = _findings(RULES / "PR002" / "positive.json", "PR002")
    proven = proof(f)
    assert proven is not None and proven[1] == '"name":"get_wether"'
    head, carets = evidence_lines(f.evidence[0]).splitlines()[1:]
    start = carets.index("^")
    assert head[start : len(carets)] == '"name":"get_wether"'


def test_pr006_quotes_the_raw_result_inside_a_text_transcript(corpus: Path) -> None:
    """tau-bench's few-shot lines hold a whole conversation as text (`messages_display`):
    the quote centres on the raw JSON result, not on the conversation's first user turn."""
    path = (
        corpus
        / "conversations"
        / "tau-bench"
        / "few_shot_data__MockAirlineDomainEnv-few_shot.jsonl"
    )
    (f,) = _findings(path, "PR006")
    (e,) = f.evidence
    assert _focus(e).startswith('[[{"flight_number": "HAT110"')
    assert not e.text.startswith("user: Hi there!")


def test_pr006_still_quotes_the_content_member_of_a_tool_message(corpus: Path) -> None:
    """The negative: a JSON tool message is quoted at its `content`, as before."""
    path = corpus / "conversations" / "tau-bench" / "historical_trajectories__gpt-4o-airline.json"
    got = [f for f in _findings(path, "PR006") if f.tool == "search_onestop_flight"]
    assert got
    assert all(_focus(e).startswith('"content":') for f in got for e in f.evidence)
