"""What every transcript format shares: the sniffed head and a streaming line reader.

A format is a `TranscriptFormat` (name, samples, `sniff(head) -> score`, `parse(path, opts)`,
and `parse_chunks` for the line-oriented ones that stream). Formats reuse the messages
adapter's rows (:mod:`toolcall_cli.sources.messages.rows`) and emitters through a
:class:`.chunks.ChunkSink`; their frames carry `source = "transcripts"`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pandas as pd

from toolcall_cli.model.events import EventChunk
from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.sources.base import HEAD_BYTES, ParseOptions, ProgressFn
from toolcall_cli.sources.messages.rows import Sink

if TYPE_CHECKING:
    from toolcall_cli.sources.transcripts.chunks import ChunkSink

#: Bytes read between two progress reports of a streamed file.
_PROGRESS_BYTES = 4 << 20


@dataclass(frozen=True)
class Head:
    """The first ≤64 KiB of a file, decoded once and parsed lazily for every format's sniff."""

    raw: bytes
    path: Path

    @cached_property
    def text(self) -> str:
        """The head as text (BOM removed)."""
        return self.raw.decode("utf-8", errors="replace").lstrip("\ufeff")

    @property
    def whole_file(self) -> bool:
        """True when the head is the whole file."""
        return len(self.raw) < HEAD_BYTES

    @cached_property
    def document(self) -> Any:
        """The whole file as one JSON value, when the head holds all of it; else None."""
        return try_loads(self.text) if self.whole_file else None

    @cached_property
    def lines(self) -> list[Any]:
        """The head's complete JSON lines, parsed (None for a line that is not JSON)."""
        rows = [ln for ln in self.text.splitlines() if ln.strip()]
        if not self.whole_file and rows:
            rows = rows[:-1]  # the last line may be cut
        return [try_loads(ln) for ln in rows[:200]]

    @cached_property
    def objects(self) -> list[dict[str, Any]]:
        """The head's JSON-object lines (for JSONL formats); empty when most lines are not."""
        objs = [x for x in self.lines if isinstance(x, dict)]
        return objs if objs and len(objs) * 2 >= len(self.lines) else []


@dataclass(frozen=True, slots=True)
class TranscriptFormat:
    """One transcript format: its detection and its parser."""

    name: str
    label: str  # what the user calls it ("Claude Code session JSONL")
    samples: tuple[str, ...]
    sniff: Callable[[Head], int]
    parse: Callable[[Path, ParseOptions], pd.DataFrame]
    #: The chunked parse of a line-oriented format (its `parse` is these chunks assembled).
    parse_chunks: Callable[[Path, ParseOptions], Iterator[EventChunk]] | None = None
    #: Keys whose presence makes a JSON object resemble this format (the exit-3 hint).
    keys: frozenset[str] = frozenset()
    needs: str = ""  # what a file must have to be read as this format


def json_lines(
    path: Path, progress: ProgressFn | None = None
) -> Iterator[tuple[int, Any, str | None]]:
    """(line number, parsed value or None, error or None) per non-blank line, streamed
    (*progress* is told the bytes read every few MiB)."""
    total = path.stat().st_size if progress is not None else 0
    done = told = 0
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, start=1):
            done += len(raw)
            if progress is not None and done - told >= _PROGRESS_BYTES:
                progress(done, total)
                told = done
            if not raw.strip():
                continue
            try:
                yield n, orjson.loads(raw), None
            except (orjson.JSONDecodeError, RecursionError) as e:
                yield n, raw.decode("utf-8", errors="replace").rstrip("\n"), f"not JSON: {e}"[:200]
    if progress is not None:
        progress(total, total)


def load_document(path: Path, opts: ParseOptions) -> Any:
    """A whole JSON file (size-capped like the messages adapter); None when it is not JSON."""
    from toolcall_cli.sources._shared.files import read_bytes

    return try_loads(read_bytes(path, limit=opts.max_decompressed))


def document_object(
    out: ChunkSink, path: Path, opts: ParseOptions, what: str
) -> dict[str, Any] | None:
    """The file as one JSON object; otherwise an `unparsed` row saying it is not *what*."""
    doc = load_document(path, opts)
    if isinstance(doc, dict):
        return doc
    out.sink.unparsed(None, str(path), "<not a JSON object>", f"not {what}")
    return None


def records(path: Path, opts: ParseOptions) -> Iterator[tuple[str, Any, str | None]]:
    """(origin, value, error) per entry of a file that is one JSON list (`path#/k`) or JSON
    lines (`path:n`), whichever it is."""
    from toolcall_cli.sources._shared.files import read_head

    if read_head(path, 256).lstrip().startswith(b"["):
        doc = load_document(path, opts)
        if isinstance(doc, list):
            for k, obj in enumerate(doc):
                yield f"{path}#/{k}", obj, None
            return
    for n, obj, err in json_lines(path):
        yield f"{path}:{n}", obj, err


def share(objs: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> float:
    """The share of *objs* that pass *test* (0 for none)."""
    return sum(1 for o in objs if test(o)) / len(objs) if objs else 0.0


def tag_rows(sink: Sink, start: int, extra: dict[str, Any]) -> None:
    """Add *extra* to the attrs of every row appended since *start* (the record's own keys:
    uuid, line, sidechain...), without overriding what the emitter already set."""
    add = {k: v for k, v in extra.items() if v is not None}
    if not add:
        return
    for row in sink.rows[start:]:
        row["attrs"] = {**add, **(row["attrs"] or {})}
