"""tshark started early (sources/pcap/early.py): the read takes the running process and gets
exactly what a fresh pass gives; a process nobody takes is stopped; nothing raises."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import FIXTURES
from toolcall_cli.sources import SOURCES, ingest_paths, parse_file, start_early
from toolcall_cli.sources.pcap import early
from toolcall_cli.sources.pcap import tshark as pcap_tshark

BUNDLE = FIXTURES / "incidents" / "flooding-model-loop"
CAPTURE = FIXTURES / "pcap" / "tool_calls.pcap"


@pytest.fixture(autouse=True)
def _nothing_left_running() -> Iterator[None]:
    early.discard()
    yield
    early.discard()


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each `take` the read made: True when it got a process started early."""
    seen: list[bool] = []
    real = early.take

    def spy(cmd: list[str], capture: Path) -> early.Started | None:
        started = real(cmd, capture)
        seen.append(started is not None)
        return started

    monkeypatch.setattr(early, "take", spy)
    return seen


def _running() -> list[early.Started]:
    return list(early._STARTED.values())


@pytest.mark.tshark
def test_the_read_takes_the_early_process_and_gets_the_same_events(
    tshark: str, taken: list[bool]
) -> None:
    fresh = ingest_paths([BUNDLE]).events
    assert taken == [False]
    start_early([BUNDLE], source=None)
    assert len(_running()) == 1  # the bundle's one capture
    again = ingest_paths([BUNDLE]).events
    assert taken == [False, True]
    assert _running() == []
    pd.testing.assert_frame_equal(again, fresh)


@pytest.mark.tshark
def test_a_capture_named_directly_is_started_too(tshark: str, taken: list[bool]) -> None:
    fresh = parse_file(CAPTURE)
    start_early([CAPTURE], source="pcap")
    pd.testing.assert_frame_equal(parse_file(CAPTURE), fresh)
    assert taken == [False, True]


@pytest.mark.tshark
def test_another_source_starts_nothing(tshark: str) -> None:
    other = next(n for n in SOURCES.names() if n != early.SOURCE)
    start_early([BUNDLE], source=other)
    assert _running() == []


@pytest.mark.tshark
def test_a_gzip_capture_is_left_to_the_usual_read(tshark: str) -> None:
    start_early([FIXTURES / "pcap" / "tool_calls.pcap.gz"], source=None)
    assert _running() == []


@pytest.mark.tshark
def test_a_capture_changed_after_the_start_is_read_afresh(
    tshark: str, tmp_path: Path, taken: list[bool]
) -> None:
    copy = tmp_path / "c.pcap"
    shutil.copyfile(CAPTURE, copy)
    start_early([copy], source=None)
    (started,) = _running()
    shutil.copyfile(FIXTURES / "pcap" / "pipelined.pcap", copy)  # another file, same name
    assert len(parse_file(copy)) == len(parse_file(FIXTURES / "pcap" / "pipelined.pcap"))
    assert taken[0] is False
    assert started.proc.poll() is not None  # the stale process was stopped


@pytest.mark.tshark
def test_an_untaken_process_is_stopped(tshark: str) -> None:
    start_early([CAPTURE], source=None)
    (started,) = _running()
    early.discard()
    assert started.proc.poll() is not None and started.stderr.closed
    start_early([CAPTURE], source=None)
    (second,) = _running()
    start_early([], source=None)  # a new start stops what the last one left
    assert second.proc.poll() is not None and _running() == []


def test_nothing_raises_without_tshark(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pcap_tshark.ENV_VAR, "/nonexistent/tshark")
    start_early([BUNDLE], source=None)
    assert _running() == []
    start_early([BUNDLE / "no-such-file"], source=None)  # the read reports it, not the start
    assert _running() == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "capture.pcap"
    os.mkfifo(fifo)  # opening it for reading would block until a writer came
    start_early([fifo], source=None)
    start_early([tmp_path], source=None)
    assert _running() == []


@pytest.mark.tshark
def test_the_early_process_runs_to_the_end_with_nobody_reading(tshark: str) -> None:
    fresh = parse_file(CAPTURE)
    start_early([CAPTURE], source=None)
    (started,) = _running()
    assert started.proc.wait(timeout=60) == 0  # its output went to a file: nothing blocked it
    assert started.stdout.seek(0, os.SEEK_END) > 0
    pd.testing.assert_frame_equal(parse_file(CAPTURE), fresh)
    assert started.stdout.closed and _running() == []
