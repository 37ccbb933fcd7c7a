"""The table's excerpt frame: never wider than asked, never a token broken, indentation kept,
carets under the focus; and the ruff-like header."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from toolcall_cli.model.findings import Evidence, Finding, Severity
from toolcall_cli.render.excerpt import frame, header, wrap

LINE = (
    '…from send_email", "trace_id": "trace-book", "session_id": "sess-book", '
    '"tool_call_id": "call_5", "tool": "send_email", "instance": "mw-1", '
    '"status": "success", "call_id": "call_5", "size": 40}'
)
COMPACT = (
    '{"id":"call_2","type":"function","function":{"name":"Search_Flights",'
    '"arguments":"{\\"origin\\": \\"CDG\\", \\"destination\\": \\"JFK\\", '
    '\\"date\\": \\"2025-03-15\\"}"}}'
)
FOCUS = LINE.index('"size"')
ITEM = Evidence("logs/mw.log:15", LINE, (FOCUS, FOCUS + 10), line=15, column=291)


def _lines(e: Evidence, width: int) -> list[str]:
    con = Console(width=400, no_color=True, color_system=None)
    with con.capture() as cap:
        con.print(frame(e, width), crop=False)
    return cap.get().rstrip("\n").split("\n")


def _quote(lines: list[str]) -> list[str]:
    """The quote's lines (after the gutter), caret lines left out."""
    out = []
    for ln in lines[2:]:
        body = ln.split(" | ", 1)[1] if " | " in ln else ""
        if body.strip() and set(body.strip()) != {"^"}:
            out.append(body)
    return out


@pytest.mark.parametrize("width", [80, 100, 120, 200])
@pytest.mark.parametrize("text", [LINE, COMPACT])
def test_frame_fits_the_width_and_never_breaks_a_token(width: int, text: str) -> None:
    e = Evidence("logs/mw.log:15", text, (0, len(text)), line=15, column=1)
    lines = _lines(e, width)
    assert max(len(ln) for ln in lines) <= width
    pieces = _quote(lines)
    # every token of the source is on one line (a wrap falls after a space or a comma)
    tokens = re.split(r"(?<=[ ,])", text)
    shown = [re.split(r"(?<=[ ,])", p.rstrip()) for p in pieces]
    flat = [t.strip() for piece in shown for t in piece]
    for tok in tokens:
        if tok.strip() and tok.strip() in "".join(flat):
            assert tok.strip() in flat, (tok, pieces)
    assert "".join(p.strip() for p in pieces).replace(" ", "") == text.replace(" ", "")


@pytest.mark.parametrize("width", [80, 100, 120, 200])
def test_carets_sit_under_the_focus(width: int) -> None:
    lines = _lines(ITEM, width)
    assert lines[0].strip() == "--> logs/mw.log:15:291"
    carets = [i for i, ln in enumerate(lines) if ln.rstrip().endswith("^")]
    assert len(carets) == 1
    above, marks = lines[carets[0] - 1], lines[carets[0]]
    at = marks.index("^")
    assert above[at : at + marks.count("^")] == '"size": 40'


def test_a_wrapped_line_keeps_its_indentation() -> None:
    text = '{\n    "flights": [' + ", ".join(f'"XX{i:03}"' for i in range(30)) + "]\n}"
    e = Evidence("a.json#/x", text, (0, len(text)), line=3, column=5)
    pieces = [ln.split(" | ", 1)[1] for ln in _lines(e, 80)[2:]]
    assert pieces[1].startswith('    "flights": [')
    assert len(pieces) > 3 and all(p.startswith("    ") for p in pieces[2:-1])


def test_wrap_cuts_a_token_only_when_it_is_wider_than_the_line() -> None:
    assert wrap("a" * 50, 20) == [(0, 20, 0), (20, 40, 0), (40, 50, 0)]
    assert wrap("short words only", 10) == [(0, 6, 0), (6, 16, 0)]


def test_frame_escapes_controls_and_keeps_the_focus_on_the_same_characters() -> None:
    text = "bad \x1b[31mred\x1b[0m then size=40 end"
    at = text.index("size=40")
    lines = _lines(Evidence("x.log:1", text, (at, at + 7), line=1, column=at + 1), 80)
    assert "\x1b" not in "".join(lines)
    quote, marks = lines[2], lines[3]
    at_mark = marks.index("^")
    assert quote[at_mark : at_mark + marks.count("^")] == "size=40"


def test_header_is_path_line_col_code_message() -> None:
    f = Finding(
        code="TR002",
        name="result-truncated",
        severity=Severity.warning,
        message="the result of call call_5 looks cut short",
        evidence=(ITEM,),
    )
    assert header(f).plain == (
        "logs/mw.log:15:291 TR002 result-truncated: the result of call call_5 looks cut short"
    )


@pytest.mark.parametrize("width", [80, 100, 120, 200])
def test_the_diagnose_table_never_rewraps_a_frame(width: int) -> None:
    from tests.conftest import FIXTURES, run_cli

    res = run_cli(["diagnose", str(FIXTURES / "replay" / "booking")], env={"COLUMNS": str(width)})
    assert res.exit_code == 1, res.stderr
    in_frame, framed = False, 0
    for ln in res.stdout.splitlines():
        if ln.count("│") != 4:  # a row border: the next row starts with its header
            in_frame = False
            continue
        c = ln.split("│")[3]
        if c.strip().startswith("-->"):
            in_frame = True
        elif c.strip().startswith("fix:") or c.startswith(" ") is False:
            in_frame = False
        elif in_frame:
            # a frame line carries its gutter: a table re-wrap would start a line without it
            assert re.match(r"^\s*\d*\s\|", c), (width, c)
            framed += 1
    assert framed > 20


def test_a_quoted_value_numbers_only_its_own_line_of_the_file(corpus: object) -> None:
    """tau-bench's few-shot JSONL keeps each conversation as one string (`messages_display`)
    on one line: the PR006 quote of line 11 holds that string's newlines, which are `\\n`
    escapes, not lines 12 and 13 of the file (those are other conversations)."""
    from pathlib import Path

    from tests.conftest import ROOT
    from toolcall_cli.cli._inputs import evidence_for
    from toolcall_cli.diagnose.request import DiagnoseRequest
    from toolcall_cli.diagnose.run import diagnose
    from toolcall_cli.sources.base import ParseOptions

    assert isinstance(corpus, Path)
    path = (
        corpus
        / "conversations"
        / "tau-bench"
        / "few_shot_data__MockAirlineDomainEnv-few_shot.jsonl"
    )
    got = evidence_for([path], store=ROOT / "unused-store", source=None, opts=ParseOptions())
    report = diagnose(
        got.events, DiagnoseRequest(select=("PR006",)), inputs=got.inputs, quotable=got.quotable
    )
    (e,) = report.findings[0].evidence
    assert e.line == 11 and "\n" in e.text
    con = Console(width=100, color_system=None)
    with con.capture() as cap:
        con.print(frame(e, 80))
    numbers = re.findall(r"^\s*(\d+) \|", cap.get(), flags=re.MULTILINE)
    assert numbers == ["11"]
    raw = Evidence(origin="log.txt:7", text="first\nsecond", line=7)  # file lines: consecutive
    with con.capture() as cap:
        con.print(frame(raw, 80))
    assert re.findall(r"^\s*(\d+) \|", cap.get(), flags=re.MULTILINE) == ["7", "8"]
