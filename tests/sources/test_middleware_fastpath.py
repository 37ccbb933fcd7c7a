"""The middleware fast path (the file read by pyarrow in parallel blocks) gives the table the
row-wise reader gives, on real JSON-lines files and on hostile ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from toolcall_cli.sources import parse_file
from toolcall_cli.sources._shared.textlog import nonblank, split_lines
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.middleware import _all_json, read_rows

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"


def row_wise(data: bytes, path: Path, tz: str) -> pd.DataFrame:
    lines, line_no = nonblank(split_lines(data))
    return read_rows(lines, line_no, path, tz, ParseOptions(tz=tz))


def json_line_files() -> list[Path]:
    """Corpus and fixture files of JSON-object lines small enough for a unit test."""
    found = []
    for top in (CORPUS, ROOT / "fixtures"):
        for p in sorted(top.rglob("*")):
            if p.is_file() and p.stat().st_size < 4 << 20 and p.read_bytes()[:1] == b"{":
                found.append(p)
    return found


def test_real_json_lines_files_read_alike() -> None:
    compared = 0
    for p in json_line_files():
        data = p.read_bytes()
        fast = _all_json(data, p, "Europe/Berlin")
        if fast is None:  # the fast path declined: parse() reads it row-wise anyway
            continue
        pd.testing.assert_frame_equal(fast, row_wise(data, p, "Europe/Berlin"), obj=str(p))
        compared += 1
    assert compared >= 100  # middleware logs, OTLP/JSON lines, transcripts, BFCL files


def _lines(first: list[dict[str, Any]], later: list[dict[str, Any]], n: int = 2000) -> str:
    """*first* as the file's head, then *later* records cycled in later blocks."""
    recs = first * (n // len(first)) + [later[i % len(later)] for i in range(n)]
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs)


BASE = {"ts": "2025-03-01T00:00:01Z", "event": "tool_call.received", "tool_call_id": "c1"}

Records = list[dict[str, Any]]
#: (head, later records): a key's type (or presence) changes after the first lines.
HOSTILE: dict[str, tuple[Records, Records]] = {
    "text-then-number": ([{**BASE, "status": "ok"}], [{**BASE, "status": 200}]),
    "int-then-float": ([{**BASE, "size": 12}], [{**BASE, "size": 12.5}]),
    "int-then-huge": ([{**BASE, "size": 12}], [{**BASE, "size": 2**70}]),
    "bool-then-text": ([{**BASE, "ok": True}], [{**BASE, "ok": "yes"}]),
    "text-then-object": ([{**BASE, "tool": "a"}], [{**BASE, "tool": {"name": "b"}}]),
    "text-then-list": ([{**BASE, "msg": "a"}], [{**BASE, "msg": ["a", None]}]),
    "null-then-text": ([{**BASE, "reason": None}], [{**BASE, "reason": "late"}]),
    "absent-then-present": ([BASE], [{**BASE, "rule": "schema", "n": 3}]),
    "present-then-absent": ([{**BASE, "rule": "schema", "n": 3}], [BASE]),
    "timestamp-like-text": (
        [{**BASE, "created": "2025-03-01T00:00:00"}],
        [{**BASE, "created": "not a time"}],
    ),
    "nested-changes": (
        [{**BASE, "headers": {"a": "1"}}],
        [{**BASE, "headers": {"a": "1", "b": 2}}, {**BASE, "headers": None}],
    ),
    "odd-text": (
        [{**BASE, "msg": 'quote " back \\ tab \t ünï ✓ \u2028'}],
        [{**BASE, "msg": "bearer sk-abcdefghijklmnopqrstuvwx", "call_id": "c2"}],
    ),
    "duplicate-key": ([BASE], [BASE]),  # the raw text below repeats a key
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
@pytest.mark.parametrize("block_bytes", [None, 20_000])
def test_hostile_json_lines_read_alike(tmp_path: Path, case: str, block_bytes: int | None) -> None:
    first, later = HOSTILE[case]
    text = _lines(first, later)
    if case == "duplicate-key":
        text = text.replace('"event":', '"event": "x", "event":', 1)
    p = tmp_path / "mw.log"
    p.write_text(text, encoding="utf-8")
    data = p.read_bytes()
    expected = row_wise(data, p, "UTC")
    fast = _all_json(data, p, "UTC", block_bytes=block_bytes)
    if fast is not None:
        pd.testing.assert_frame_equal(fast, expected)
    # and the adapter itself, whichever path it takes, with redaction as users run it
    parsed = parse_file(p, source="middleware", opts=ParseOptions())
    assert len(parsed) == len(expected) == 4000
