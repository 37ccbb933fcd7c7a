"""The first step of every command that reads PATHs: start what can run beside the imports.

`diagnose`, `timeline` and `replay` call :func:`start_reading` before they import the core
(pandas and pyarrow, slow to import), so tshark loads its dissectors meanwhile
(sources/pcap/early.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from pathlib import Path


def start_reading(
    paths: Sequence[Path] | None, *, source: Enum | None, follow_symlinks: bool
) -> None:
    """Let the adapters begin on *paths* (as forced by *source*, the --source choice); a run
    without PATHs reads the store, which parses nothing, so the adapters never load."""
    if not paths:
        return
    from toolcall_cli.sources import start_early  # no pandas: see tests/test_startup_imports.py

    start_early(paths, source=source.value if source else None, follow_symlinks=follow_symlinks)
