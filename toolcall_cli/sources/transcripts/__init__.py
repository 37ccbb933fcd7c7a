"""transcripts adapter: conversations where agents and eval harnesses keep them (DESIGN §2).

Each format is one module with a `FORMAT` (:class:`.base.TranscriptFormat`), registered here
by name, once. The adapter's score for a file is the best format's score, and `parse` hands
the file to that format (`parse_chunks` streams the line-oriented ones: see :mod:`.chunks`).
Every format emits the messages kinds (`user`, `system`, `assistant_text`, `tool_call`,
`tool_result`) with the messages adapter's row builders, so align, diagnose and replay read
them unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from toolcall_cli.errors import InputError
from toolcall_cli.model.events import EventChunk
from toolcall_cli.model.registry import Registry
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.transcripts import (
    agent_trajectories,
    atif,
    bfcl,
    claude_code,
    codex,
    inspect_ai,
)
from toolcall_cli.sources.transcripts.base import Head, TranscriptFormat

FORMATS: Registry[TranscriptFormat] = Registry("transcript format")
FORMATS.add(claude_code.FORMAT.name, claude_code.FORMAT)
FORMATS.add(codex.FORMAT.name, codex.FORMAT)
FORMATS.add(atif.FORMAT.name, atif.FORMAT)
FORMATS.add(inspect_ai.FORMAT.name, inspect_ai.FORMAT)
FORMATS.add(agent_trajectories.OPENHANDS.name, agent_trajectories.OPENHANDS)
FORMATS.add(agent_trajectories.SWE_AGENT.name, agent_trajectories.SWE_AGENT)
FORMATS.add(bfcl.FORMAT.name, bfcl.FORMAT)


def best_format(head: bytes, path: Path) -> tuple[TranscriptFormat | None, int]:
    """The format that claims *head* with the highest score, and that score."""
    h = Head(head, path)
    best: tuple[TranscriptFormat | None, int] = (None, 0)
    for _, fmt in FORMATS.items():
        sc = fmt.sniff(h)
        if sc > best[1]:
            best = (fmt, sc)
    return best


class TranscriptsAdapter:
    """The `transcripts` source."""

    name = "transcripts"
    samples = tuple(s for _, f in FORMATS.items() for s in f.samples)

    def sniff(self, head: bytes, path: Path) -> int:
        """The best transcript format's score."""
        return best_format(head, path)[1]

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Parse *path* with the format that claims it."""
        return _format_of(path).parse(path, opts)

    def parse_chunks(self, path: Path, opts: ParseOptions) -> Iterator[EventChunk]:
        """Parse *path* in chunks (a line-oriented format streams; the others are one chunk)."""
        fmt = _format_of(path)
        if fmt.parse_chunks is None:
            return iter([EventChunk(fmt.parse(path, opts))])
        return fmt.parse_chunks(path, opts)


def _format_of(path: Path) -> TranscriptFormat:
    """The format that claims *path*; an input error when none does."""
    from toolcall_cli.sources._shared.files import read_head
    from toolcall_cli.sources.base import HEAD_BYTES

    fmt, _ = best_format(read_head(path, HEAD_BYTES), path)
    if fmt is None:
        names = ", ".join(f.label for _, f in FORMATS.items())
        raise InputError(f"'{path}' is none of the transcript formats ({names})")
    return fmt


ADAPTER = TranscriptsAdapter()


def unknown_json_hint(head: bytes, path: Path) -> str | None:
    """The exit-3 hint for a JSON file no adapter claims (see :mod:`.shapes`)."""
    from toolcall_cli.sources.transcripts.shapes import closest_shapes

    return closest_shapes(head, path, [f for _, f in FORMATS.items()])
