"""tshark started on the named captures before the heavy imports, so the two overlap.

tshark takes a while to load its dissectors before it reads a packet, a good part of what
importing pandas and pyarrow takes; one after the other, a small diagnose would pay both. As soon
as a command knows its PATHs, :func:`start` walks them as the ingest walk will and, for the
first few plain (not gzip) captures, starts the exact command :func:`.tshark.command` builds,
its output into a temporary file (so it runs to the end while Python is still importing,
whatever the size of its output). :func:`take` hands the running process to
:func:`.tshark.read_fields` when it asks for that command on the same, unchanged file; a
process nobody takes — the file was read with another ``--source``, the run stopped early —
is killed at exit or by the next :func:`start`. Nothing here raises: a capture that cannot be
started early is simply read the usual way, which reports whatever is wrong with it.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from toolcall_cli.errors import MissingDependencyError
from toolcall_cli.sources._shared.walk import escapes_tree, walk_tree
from toolcall_cli.sources.pcap import tshark as tsh
from toolcall_cli.sources.pcap.capture_file import SOURCE, is_capture

#: Captures started early, at most (each tshark holds its dissectors in memory).
MAX_EARLY: Final = 2
#: Files looked at, at most: a big directory is not read twice just to find its captures.
MAX_LOOKED_AT: Final = 64


@dataclass(slots=True)
class Started:
    """A tshark fields pass started before anyone asked for it."""

    proc: subprocess.Popen[bytes]
    stdout: IO[bytes]
    stderr: IO[bytes]
    stamp: tuple[int, int, int, int] | None  # the capture's identity when it started


_STARTED: dict[tuple[str, ...], Started] = {}
#: The process that started them: a forked worker inherits the table but must not stop them.
_OWNER: Final = os.getpid()


def start(paths: Sequence[Path], *, source: str | None, follow_symlinks: bool = False) -> int:
    """Start the fields pass of the first captures among *paths* (the files named and the
    files under the directories named, in walk order); how many were started."""
    discard()
    if source not in (None, SOURCE):
        return 0
    try:
        captures = _captures(paths, follow_symlinks=follow_symlinks)
        if not captures:
            return 0
        binary = tsh.locate()
    except Exception:  # the usual read reports it (missing tshark, unreadable file, ...)
        return 0
    for capture in captures:
        cmd = tsh.command(binary, capture)
        try:
            _STARTED[tuple(cmd)] = _spawn(cmd, capture)
        except (OSError, MissingDependencyError):
            break
    return len(_STARTED)


def take(cmd: Sequence[str], capture: Path) -> Started | None:
    """The process started early for *cmd*, if there is one and *capture* is unchanged."""
    if os.getpid() != _OWNER:  # a forked worker: the output is its parent's to read
        return None
    started = _STARTED.pop(tuple(cmd), None)
    if started is not None and started.stamp != _stamp(capture):
        _stop(started)
        return None
    return started


def discard() -> None:
    """Stop every process started early that nobody took."""
    if os.getpid() != _OWNER:
        _STARTED.clear()
        return
    while _STARTED:
        _stop(_STARTED.popitem()[1])


def _captures(paths: Sequence[Path], *, follow_symlinks: bool) -> list[Path]:
    """The first plain captures the ingest walk will read, in its order."""
    from toolcall_cli.sources._shared.files import regular_file_problem

    found: list[Path] = []
    for looked, (path, top) in enumerate(walk_tree(paths, follow_symlinks=follow_symlinks)):
        if looked >= MAX_LOOKED_AT or len(found) >= MAX_EARLY:
            break
        if regular_file_problem(path):  # a FIFO named on the command line must not block here
            continue
        if top is not None and not follow_symlinks and escapes_tree(path, top):
            continue
        try:
            with path.open("rb") as f:
                head = f.read(12)
        except OSError:
            continue
        if is_capture(head):
            found.append(path)
    return found


def _spawn(cmd: list[str], capture: Path) -> Started:
    stdout = tempfile.TemporaryFile()  # noqa: SIM115 (kept open until the process is taken)
    stderr = tempfile.TemporaryFile()  # noqa: SIM115
    try:
        proc = tsh.spawn(cmd, stdout, stderr)
    except Exception:
        stdout.close()
        stderr.close()
        raise
    return Started(proc, stdout, stderr, _stamp(capture))


def _stamp(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _stop(started: Started) -> None:
    started.proc.kill()
    started.proc.wait()
    started.stdout.close()
    started.stderr.close()


atexit.register(discard)
