"""Each recording parsed once per test session, with real tshark, keeping the message tables
the pcap event builder was given: the corpus tests and the event-table goldens
(test_pcap_goldens) read the same parse. (Each capture costs a tshark start; two test files
reading the same 33 corpus captures paid it twice.)"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from toolcall_cli.sources import parse_file
from toolcall_cli.sources.pcap import events as pcap_events


@dataclass(frozen=True)
class Parsed:
    """A recording's event table and the message tables its events were built from."""

    frame: pd.DataFrame
    tables: tuple[tuple[pd.DataFrame, str, int], ...]  # (messages, origin path, body cap)


@functools.cache
def parsed(path: Path) -> Parsed:
    """*path* read as `toolcall ingest` reads it (once per session: treat it as read-only)."""
    tables: list[tuple[pd.DataFrame, str, int]] = []
    build = pcap_events.events

    def kept(msgs: pd.DataFrame, origin: str, *, cap: int) -> pd.DataFrame:
        tables.append((msgs.copy(), origin, cap))
        return build(msgs, origin, cap=cap)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pcap_events, "events", kept)
        frame = parse_file(path)
    return Parsed(frame, tuple(tables))
