"""The source-adapter protocol (lnav style): sniff a file's head, parse it into the event table."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from toolcall_cli.model.config import MAX_DECOMPRESSED, LogFormat
from toolcall_cli.model.events import EventChunk
from toolcall_cli.model.redact import DEFAULT_REDACTOR, Redactor

if TYPE_CHECKING:  # adapters import pandas; the protocol does not need it (start-up)
    import pandas as pd

#: Bytes given to `sniff`.
HEAD_BYTES = 64 * 1024

ProgressFn = Callable[[int, int], None]  # (done, total) in bytes


@dataclass(frozen=True, slots=True)
class ParseOptions:
    """Knobs an adapter may need; all have safe defaults."""

    tz: str = "UTC"  # zone for naive timestamps
    nginx_format: str | None = None  # an nginx `log_format` string
    formats: tuple[LogFormat, ...] = ()  # user middleware formats from config
    progress: ProgressFn | None = field(default=None, compare=False)
    max_decompressed: int = MAX_DECOMPRESSED  # cap for gzip inputs and bodies (decompression bombs)
    redactor: Redactor = field(default=DEFAULT_REDACTOR, compare=False)  # applied after parsing
    follow_symlinks: bool = False  # read symlinks inside a walked directory that lead out of it
    #: Tool-definition files named with --tools: formats that join them by id read them (BFCL).
    tools: tuple[Path, ...] = ()


class Adapter(Protocol):
    """One input format."""

    name: str
    samples: tuple[str, ...]  # fixture paths (repo-relative) the adapter must claim

    def sniff(self, head: bytes, path: Path) -> int:
        """Score 0–100 for how sure the adapter is that *head* (≤64 KiB) is its format."""
        ...

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Parse the whole file into a validated event table; bad records become `unparsed` rows."""
        ...


class StreamingAdapter(Adapter, Protocol):
    """An adapter that can hand a big file over in chunks (`toolcall ingest` writes each to the
    store before the next is parsed); `parse` is the chunks assembled."""

    def parse_chunks(self, path: Path, opts: ParseOptions) -> Iterator[EventChunk]:
        """The file's event table as validated chunks, in bounded memory."""
        ...
