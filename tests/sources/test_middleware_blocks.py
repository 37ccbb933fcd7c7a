"""middleware JSON lines read in parallel blocks: the same table as one pyarrow call."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from toolcall_cli.sources import parse_file
from toolcall_cli.sources.middleware import _all_json
from toolcall_cli.sources.middleware.blocks import MAX_BLOCK, block_bytes_for, split_blocks

WHOLE = 1 << 40  # a block size that keeps the file in one block

MESSAGES = (
    "tool call received",
    "POST /tools/get_weather",
    "Received response from lookup_order",
    "missing required field city",
    "call_id mismatch: expected call_1 got call_99",
    "tool call cancelled because tool-call flooding was detected",
    "heartbeat",
    'quote " and \\ back',
    "tab\there ünïcödé ✓",
    "auth Bearer abcdefghijklmnop used",
)
EVENTS = ("tool_call.received", "tool_call.request", "tool_call.response", "tool_call.rejected",
          "tool_call.dropped", "heartbeat", "odd-event")  # fmt: skip


def records(n: int, seed: int = 5) -> list[dict[str, Any]]:
    """Varied middleware records whose key types agree within the file (pyarrow reads it)."""
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        r: dict[str, Any] = {"ts": f"2025-03-01T00:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z"}
        if i < n // 3:
            r["reason"] = "schema_violation"  # on every row of the first blocks only
        if rnd.random() < 0.9:
            r["event"] = rnd.choice(EVENTS)
        if rnd.random() < 0.95:
            r["msg"] = rnd.choice(MESSAGES)
        if rnd.random() < 0.7:
            r["tool_call_id"] = f"call_{i // 4}"
        if rnd.random() < 0.5:
            r["tool"] = rnd.choice(["get_weather", "-", "", "search"])
        if rnd.random() < 0.3:
            r["duration_ms"] = rnd.randint(1, 900)
        if i >= n // 2 and rnd.random() < 0.3:  # floats only later: int + float widen to float
            r["count"] = rnd.randint(0, 9) + 0.5
        elif rnd.random() < 0.3 or i == 0:
            r["count"] = rnd.randint(0, 9) if i else 2**53 + 1  # a float would round this one
        if i >= n // 2 and rnd.random() < 0.2:  # a key that appears only in later blocks
            r["meta"] = {"k": rnd.randint(0, 3), "s": "x"}
        if rnd.random() < 0.05:
            r["flag"] = rnd.random() < 0.5
        out.append(r)
    return out


def write(path: Path, recs: list[dict[str, Any]]) -> bytes:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return path.read_bytes()


def test_blocks_give_the_table_of_one_call(tmp_path: Path) -> None:
    p = tmp_path / "mw.log"
    data = write(p, records(3000))
    one = _all_json(data, p, "Europe/Berlin", block_bytes=WHOLE)
    assert one is not None
    for size in (4096, 50_000, len(data) // 2):
        assert len(split_blocks(data, size)) > 1
        many = _all_json(data, p, "Europe/Berlin", block_bytes=size)
        assert many is not None
        pd.testing.assert_frame_equal(one, many)
    # the cases the blocks must reconcile really occur
    rows = [json.loads(a) if isinstance(a, str) else {} for a in one["attrs"]]
    assert [r.get("reason") == "schema_violation" for r in rows] == [i < 1000 for i in range(3000)]
    assert {type(r["count"]) for r in rows if "count" in r} == {int, float}
    assert any("meta" in r for r in rows)
    assert list(one["seq"]) == list(range(1, 3001))
    assert one["origin"].iloc[-1] == f"{p}:3000"


def test_a_last_line_without_newline(tmp_path: Path) -> None:
    p = tmp_path / "mw.log"
    data = write(p, records(500)).rstrip(b"\n")
    one = _all_json(data, p, "UTC", block_bytes=WHOLE)
    many = _all_json(data, p, "UTC", block_bytes=2000)
    assert one is not None and many is not None and len(many) == 500
    pd.testing.assert_frame_equal(one, many)


@pytest.mark.parametrize("where", ["inside", "at_boundary"])
def test_a_blank_line_anywhere_leaves_the_block_path(tmp_path: Path, where: str) -> None:
    p = tmp_path / "mw.log"
    lines = [json.dumps(r) for r in records(400)]
    size = sum(len(x) + 1 for x in lines[:200])
    cut = 200 if where == "at_boundary" else 310  # line 201 starts block 2 when cut at `size`
    data = ("\n".join(lines[:cut]) + "\n\n" + "\n".join(lines[cut:]) + "\n").encode()
    assert _all_json(data, p, "UTC", block_bytes=size) is None
    p.write_bytes(data)
    df = parse_file(p, source="middleware")  # line by line, as before
    assert list(df["seq"]) == [*range(1, cut + 1), *range(cut + 2, 402)]
    assert (df["kind"] != "unparsed").all()


def test_key_types_that_disagree_across_blocks_leave_the_block_path(tmp_path: Path) -> None:
    p = tmp_path / "mw.log"
    recs = records(400)
    for i, r in enumerate(recs):
        r["status"] = 200 if i < 200 else "ok"  # a number, later text: pyarrow refuses the file
    data = write(p, recs)
    assert _all_json(data, p, "UTC", block_bytes=WHOLE) is None
    assert _all_json(data, p, "UTC", block_bytes=4096) is None
    df = parse_file(p, source="middleware")  # line by line, as before
    assert list(df["status"].iloc[[0, -1]]) == ["200", "ok"]


def test_a_malformed_line_is_an_unparsed_row_and_nothing_else_is_lost(tmp_path: Path) -> None:
    p = tmp_path / "mw.log"
    lines = [json.dumps(r) for r in records(300)]
    lines[150] = lines[150][:40]  # a cut record
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    df = parse_file(p, source="middleware")
    assert len(df) == 300
    assert list(df.loc[df["kind"] == "unparsed", "seq"]) == [151]


def test_repeated_secrets_are_redacted(tmp_path: Path) -> None:
    """Redaction scans few-distinct columns once per distinct value; secrets still go."""
    p = tmp_path / "mw.log"
    recs = [{"event": "tool_call.received", "msg": MESSAGES[i % 3 + 7]} for i in range(6000)]
    write(p, recs)
    detail = parse_file(p, source="middleware")["detail"]
    assert set(detail) == {MESSAGES[7], MESSAGES[8], "auth Bearer [REDACTED] used"}


def test_block_sizes() -> None:
    mib = 1 << 20
    assert block_bytes_for(20 * mib, 1) == 20 * mib  # one CPU: one block,
    assert block_bytes_for(100 * mib, 1) == MAX_BLOCK  # up to MAX_BLOCK
    assert block_bytes_for(10 * mib, 2) == 10 * mib  # small: one block
    assert -(-100 * mib // block_bytes_for(100 * mib, 2)) == 4  # two per worker
    assert -(-20 * mib // block_bytes_for(20 * mib, 2)) == 2
    assert block_bytes_for(1000 * mib, 2) == MAX_BLOCK  # a big file: blocks of MAX_BLOCK
    data = b'{"a":1}\n{"a":2}\n{"a":3}'
    blocks = split_blocks(data, 5)
    assert [data[s:e] for s, e in blocks] == [b'{"a":1}\n', b'{"a":2}\n', b'{"a":3}']


def test_a_file_streamed_in_blocks_gives_the_table_of_one_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`toolcall ingest` takes a clean file's blocks one by one (parse_chunks): put together,
    they are the table parse() gives, and several blocks really are read."""
    from toolcall_cli.model.events import assemble_chunks
    from toolcall_cli.sources.base import ParseOptions
    from toolcall_cli.sources.middleware import ADAPTER, blocks

    p = tmp_path / "mw.log"
    write(p, records(3000))
    whole = ADAPTER.parse(p, ParseOptions(tz="Europe/Berlin"))
    monkeypatch.setattr(blocks, "block_bytes_for", lambda total, n: 20_000)
    chunks = list(ADAPTER.parse_chunks(p, ParseOptions(tz="Europe/Berlin")))
    assert len(chunks) > 5
    pd.testing.assert_frame_equal(assemble_chunks(chunks), whole)
    assert [c.at for c in chunks] == list(
        itertools.accumulate([0] + [len(c.frame) for c in chunks[:-1]])
    )


@pytest.mark.parametrize("size", [WHOLE, 4096])
def test_typed_first_line_keys_give_the_table_of_inferred_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    # every scalar key of the first line is given its type (scalar_schema); a block that
    # refuses a type (an int key with a float later, text where the first line has a bool)
    # is read with the time keys' types alone: the table is the one inference alone gives
    from toolcall_cli.sources.middleware import blocks

    p = tmp_path / "mw.log"
    recs = records(600)
    recs[0].update(level="info", ok=True, ratio=0.5, code=3, when="2025-03-01", none=None)
    recs[450].update(code=3.5, ratio=1)  # a float where the first line had an int
    recs[500]["level"] = "WARN"
    data = write(p, recs)
    typed = _all_json(data, p, "UTC", block_bytes=size)
    monkeypatch.setattr(blocks, "scalar_schema", lambda line, keys: None)
    inferred = _all_json(data, p, "UTC", block_bytes=size)
    assert typed is not None and inferred is not None
    pd.testing.assert_frame_equal(typed, inferred)
    assert '"code":3.5' in typed["attrs"].iloc[450]
