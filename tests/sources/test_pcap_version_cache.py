"""tshark's version is asked once per binary and remembered on disk (start-up time)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolcall_cli.errors import MissingDependencyError
from toolcall_cli.sources.pcap import tshark as pcap_tshark
from toolcall_cli.sources.pcap import version_cache


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    pcap_tshark._probe.cache_clear()
    yield
    pcap_tshark._probe.cache_clear()


def _fake_tshark(path: Path, version: str) -> str:
    """A stand-in binary that answers `-v` like tshark (pyshark parses that line)."""
    path.write_text(f"#!/bin/sh\necho 'TShark (Wireshark) {version} (Git v{version})'\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.tshark
def test_second_probe_reads_the_cache_not_tshark(
    tshark: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = pcap_tshark._probe(tshark)
    assert version_cache.cache_file().is_file()
    pcap_tshark._probe.cache_clear()
    monkeypatch.setitem(sys.modules, "pyshark.tshark", None)  # asking tshark would now fail
    assert pcap_tshark._probe(tshark) == first


def test_a_changed_binary_is_asked_again(tmp_path: Path) -> None:
    binary = _fake_tshark(tmp_path / "tshark", "4.2.2")
    assert pcap_tshark._probe(binary).version == (4, 2, 2)
    pcap_tshark._probe.cache_clear()
    _fake_tshark(tmp_path / "tshark", "2.6.10")
    st = os.stat(binary)
    os.utime(binary, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    with pytest.raises(MissingDependencyError, match="too old"):
        pcap_tshark._probe(binary)


def test_a_too_old_cached_version_is_still_refused(tmp_path: Path) -> None:
    binary = _fake_tshark(tmp_path / "tshark", "2.6.10")
    key = version_cache.key_of(binary)
    assert key is not None
    version_cache.remember(key, (2, 6, 10))
    with pytest.raises(MissingDependencyError, match="too old"):
        pcap_tshark._probe(binary)


def test_a_damaged_or_unwritable_cache_is_no_cache(tmp_path: Path) -> None:
    binary = _fake_tshark(tmp_path / "tshark", "4.2.2")
    version_cache.cache_file().parent.mkdir(parents=True)
    version_cache.cache_file().write_bytes(b"\x00not json")
    assert pcap_tshark._probe(binary).version == (4, 2, 2)
    assert version_cache.recall(version_cache.key_of(binary) or "") == (4, 2, 2)
    pcap_tshark._probe.cache_clear()
    os.environ["XDG_CACHE_HOME"] = "/proc/no-such-dir"  # restored by monkeypatch
    assert pcap_tshark._probe(binary).version == (4, 2, 2)
