"""A transcript's events in bounded chunks: rows become a frame every `CHUNK_ROWS` rows, and
the frame is handed on (to the store, by `toolcall ingest`) before the next lines are read.

A 500 MB session is a million events; held whole, as Python dicts or even as one frame plus
its copies, it costs well over a GiB. Here only what needs the whole file stays for the whole
file, compactly: the thread bookkeeping of the format (uuid → parent), and, when the format
asks for the order check, the keys of the calls seen so far and the few results still waiting
for their call (:class:`.threads.CallOrder`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from toolcall_cli.model.events import EventChunk, assemble_chunks
from toolcall_cli.sources.messages.rows import Sink
from toolcall_cli.sources.transcripts.threads import CallOrder

SOURCE = "transcripts"
#: Rows collected before they are turned into a frame chunk (bounds memory on big sessions).
CHUNK_ROWS = 20_000


@dataclass
class ChunkSink:
    """A messages `Sink` whose rows become frame chunks every `CHUNK_ROWS` rows, so a 500 MB
    session never holds its rows as Python dicts, nor its whole table, at once. A format's
    `parse_chunks` yields `ready()` after each record and `finish()` at the end."""

    path: Path
    tz: str = "UTC"
    order: CallOrder | None = None  # check that results come after their calls
    sink: Sink = field(init=False)
    emitted: int = 0
    _ready: list[EventChunk] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sink = Sink(self.path, tz=self.tz)

    def flush_if_full(self) -> None:
        """Turn the collected rows into a chunk once `CHUNK_ROWS` of them have gathered."""
        if len(self.sink.rows) >= CHUNK_ROWS:
            self._flush()

    def ready(self) -> Iterator[EventChunk]:
        """The chunks that can be handed on now."""
        self.flush_if_full()
        yield from self._take()

    def finish(self) -> Iterator[EventChunk]:
        """Every chunk left, the held-back results last."""
        self._flush()
        if self.order is not None:
            self._ready.extend(self.order.rest())
        yield from self._take()

    def _take(self) -> list[EventChunk]:
        ready, self._ready = self._ready, []
        return ready

    def _flush(self) -> None:
        if not self.sink.rows:
            return
        chunk = self.sink.frame(source=SOURCE)
        chunk["seq"] = chunk["seq"] + self.emitted
        at, self.emitted = self.emitted, self.emitted + len(chunk)
        self.sink.rows.clear()
        if self.order is None:
            self._ready.append(EventChunk(chunk, at))
        else:
            self._ready.extend(self.order.check(chunk, at))

    def frame(self) -> pd.DataFrame:
        """Every row collected, as one event table (formats read whole, not streamed)."""
        return assemble_chunks(self.finish())
