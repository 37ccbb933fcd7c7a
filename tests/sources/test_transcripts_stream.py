"""A big session streams: its events reach the store chunk by chunk, the same rows as a whole
parse, and the whole-file checks (threads, results before calls) still see every line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from toolcall_cli.model.events import EventChunk, assemble_chunks
from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.sources import StreamedFile, iter_ingest, parse_file, parse_file_chunks
from toolcall_cli.sources.transcripts import chunks
from toolcall_cli.store.read_selection import load_selected
from toolcall_cli.store.write import write_files

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
_ID = re.compile(r'"((?:u|t|s)-\d+|toolu_\w+|msg_\w+)"')
#: Rows per chunk in these tests (the real `CHUNK_ROWS` is 20,000; a small one keeps the
#: generated files small and the tests fast).
SMALL_CHUNK = 100
COPIES = 60  # 1,443 lines, 1,384 events: 16 chunks


def _suffixed(line: str, tag: str) -> str:
    """*line* with its uuids and ids made unique to copy *tag*."""
    return _ID.sub(lambda m: f'"{m[1]}-{tag}"', line)


def _session(tmp_path: Path, copies: int) -> Path:
    """Both Claude Code fixtures (one with a broken line, a missing parent, a cycle and a result
    before its call) repeated *copies* times, led by a result whose call comes half a file later
    and a result that never gets one."""
    lines = [
        *(FIX / "claude_code_session.jsonl").read_text().splitlines(),
        *(FIX / "claude_code_threads.jsonl").read_text().splitlines(),
    ]
    call = next(ln for ln in lines if '"tool_use"' in ln and "toolu_01Read" in ln)
    result = next(ln for ln in lines if '"tool_use_id"' in ln and "toolu_01Read" in ln)
    out = [_suffixed(result, "far"), _suffixed(result, "orphan")]
    for k in range(copies):
        out.extend(_suffixed(ln, str(k)) for ln in lines)
        if k == copies // 2:
            out.append(_suffixed(call, "far"))
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, pd.DataFrame]]:
    """The generated session and its whole parse, with small chunks while the module runs."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(chunks, "CHUNK_ROWS", SMALL_CHUNK)
        path = _session(tmp_path_factory.mktemp("stream"), copies=COPIES)
        yield path, parse_file(path)


def test_session_is_handed_on_in_bounded_chunks(session: tuple[Path, pd.DataFrame]) -> None:
    path, whole = session
    source, parts = parse_file_chunks(path)
    assert source == "transcripts"
    got = list(parts)
    sizes = [len(c.frame) for c in got]
    assert len(got) >= len(whole) // SMALL_CHUNK
    # a chunk is cut after the record that fills it: at most one record's rows over
    assert max(sizes) <= SMALL_CHUNK + 10
    assert assemble_chunks(got).equals(whole)  # row for row the whole parse


def test_whole_file_checks_see_every_chunk(session: tuple[Path, pd.DataFrame]) -> None:
    _, whole = session
    a = [try_loads(x) or {} for x in whole["attrs"]]
    early = whole.loc[[i for i, x in enumerate(a) if x.get("result_before_call")], "tool_call_id"]
    # every copy's early result, and the one whose call came 1,000 lines (5 chunks) later
    assert len(early) == COPIES + 1 and "toolu_01Read-far" in set(early)
    assert "toolu_01Read-orphan" in set(whole["tool_call_id"].dropna())
    assert "toolu_01Read-orphan" not in set(early)  # never met its call: not "before" it
    summary = whole[whole["kind"] == "system"].iloc[-1]
    assert (try_loads(summary["attrs"]) or {})["thread_problems"] == {
        "missing parent": 3 * COPIES + 3,  # and the far call's, the far and orphan results'
        "parent cycle": COPIES,
    }
    assert (whole["kind"] == "unparsed").sum() == COPIES  # each copy's broken line, rest kept


def test_ingest_writes_the_chunks_as_they_come(
    session: tuple[Path, pd.DataFrame], tmp_path: Path
) -> None:
    path, whole = session
    (item,) = iter_ingest([path], stream=True)
    assert isinstance(item, StreamedFile)  # not one table: chunks, read as the store asks
    seen: list[int] = []

    def counted(parts: Iterator[EventChunk]) -> Iterator[EventChunk]:
        for chunk in parts:
            seen.append(len(chunk.frame))
            yield chunk

    store = tmp_path / "store"
    (stored,) = write_files(store, [(item.path, item.source, counted(item.chunks))])
    assert len(seen) >= len(whole) // SMALL_CHUNK and max(seen) <= SMALL_CHUNK + 10
    assert (stored.events, stored.unparsed) == (len(whole) - COPIES, COPIES)
    back = load_selected(store)
    pd.testing.assert_frame_equal(back, whole)
