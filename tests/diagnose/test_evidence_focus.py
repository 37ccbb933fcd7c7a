"""Proof-centred evidence: each quote is a window around the part that proves the finding
(TR002: the cut tail and the size on the wire; FL001: the result the model got after its first
call), and the JSON output carries the focus."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import FIXTURES
from toolcall_cli.cli._inputs import evidence_for
from toolcall_cli.core.findings import Evidence, Finding
from toolcall_cli.diagnose.run import DiagnoseRequest, diagnose
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
