"""The run's input files, re-read for quoting: whole text, one line, a JSON/YAML document and
its pointer → line map, each cached for the few files findings cite.

Files up to `_WHOLE_FILE` are read whole (gunzipped when needed, a BOM dropped, invalid UTF-8
replaced, as ingestion read them); a larger plain file is seeked to the cited line through an
index of line starts built once. Only `model.quoting.Quoter` calls these, and only for paths it
checked are inputs of the run.
"""

from __future__ import annotations

import gzip
import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from toolcall_cli.model.jsonio import try_loads

if TYPE_CHECKING:  # the lint package (and jsonschema with it) loads only when a quote needs it
    import numpy as np

    from toolcall_cli.model.linemap import LineMap

#: Files up to this size are cached whole; larger ones are streamed to the cited line.
_WHOLE_FILE = 32 << 20
_LIMIT_DECOMPRESSED = 1 << 30

_GZIP_MAGIC = b"\x1f\x8b"


def _read_text(p: Path) -> str:
    """The file's text as ingestion read it: gunzipped when needed, a BOM dropped, invalid
    UTF-8 replaced. Only regular files (a FIFO or a device would block or never end)."""
    if not stat.S_ISREG(p.stat().st_mode):
        raise OSError(f"{p} is not a regular file")
    with p.open("rb") as f:
        gz = f.read(2) == _GZIP_MAGIC
    if gz:
        with gzip.open(p, "rb") as g:
            data = g.read(_LIMIT_DECOMPRESSED + 1)
        if len(data) > _LIMIT_DECOMPRESSED:
            raise OSError(f"{p}: decompressed size exceeds {_LIMIT_DECOMPRESSED} bytes")
    else:
        data = p.read_bytes()
    return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")


@lru_cache(maxsize=8)
def _file_text(path: str) -> str | None:
    p = Path(path)
    try:
        with p.open("rb") as f:
            gz = f.read(2) == _GZIP_MAGIC
        if p.stat().st_size > _WHOLE_FILE and not gz:
            return None
        return _read_text(p)
    except (OSError, EOFError, ValueError):  # gone, unreadable or a corrupt gzip stream
        return None


@lru_cache(maxsize=8)
def _file_lines(path: str) -> tuple[str, ...] | None:
    text = _file_text(path)
    return None if text is None else tuple(text.splitlines())


def line(path: str, n: int, *, cwd: str | None = None) -> str | None:
    """Line *n* (1-based) of *path*, or None (*cwd*: see :func:`_absolute`)."""
    if n < 1:
        return None
    path = _absolute(path, cwd)
    lines = _file_lines(path)
    if lines is not None:
        return lines[n - 1] if n <= len(lines) else None
    # a large plain file: seek to the line through an index of line starts built once per file
    # (streaming from the top for every quoted line is quadratic over a big log)
    index = _line_starts(path)
    if index is None:
        return None
    starts, size = index
    if n > len(starts) or starts[n - 1] >= size:
        return None
    try:
        f = _handle(path)
        f.seek(int(starts[n - 1]))
        got = f.readline()
    except (OSError, ValueError):
        return None
    return got.decode("utf-8", errors="replace").rstrip("\r\n")


_HANDLES: dict[str, BinaryIO] = {}


def _handle(path: str) -> BinaryIO:
    """An open handle on *path*, reused across quotes (a few files, closed by `clear_cache`)."""
    f = _HANDLES.get(path)
    if f is None or f.closed:
        if len(_HANDLES) >= 4:
            _close_handles()
        f = _HANDLES[path] = open(path, "rb")  # noqa: SIM115 - kept open on purpose
    return f


def _close_handles() -> None:
    for f in _HANDLES.values():
        f.close()
    _HANDLES.clear()


#: Bytes scanned at a time for line starts: a whole-file `data == 10` of a 250 MB log is a
#: 250 MB mask on top of the mapped file, the peak of a store's diagnose.
_SCAN = 8 << 20


@lru_cache(maxsize=4)
def _line_starts(path: str) -> tuple[np.ndarray, int] | None:
    """Byte offsets where each line of *path* starts, and the file size (None: unreadable)."""
    import numpy as np

    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            ends = [np.zeros(0, dtype=np.int64)]
            buf = bytearray(_SCAN)
            at = 0
            while (got := f.readinto(buf)) > 0:
                block = np.frombuffer(buf, dtype=np.uint8, count=got)
                ends.append(np.flatnonzero(block == 10).astype(np.int64) + at)
                del block  # the buffer is refilled next: no view of it may live on
                at += got
    except (OSError, ValueError):
        return None
    return np.concatenate([np.zeros(1, dtype=np.int64), *(e + 1 for e in ends)]), size


def _absolute(path: str, cwd: str | None) -> str:
    """*path* as the caches key it: origins are relative to the working directory, and two
    runs in one process (from two directories) must not share `bundle/x.log`'s text. *cwd*:
    that directory as the caller's run read it once (None: ask the system now)."""
    return _absolute_in(os.getcwd() if cwd is None else cwd, path)


# spelled once per run and path: quoting asks for each evidence's file two or three times,
# and `abspath` (its `getcwd` and `normpath`) adds up over a log of many traces
@lru_cache(maxsize=1 << 12)
def _absolute_in(cwd: str, path: str) -> str:
    return os.path.abspath(os.path.join(cwd, path))


def document(path: str, *, cwd: str | None = None) -> Any:
    """The JSON (or YAML) document *path* holds, or None when it holds none or is unreadable."""
    return _document(_absolute(path, cwd))


def line_map(path: str, *, cwd: str | None = None) -> LineMap | None:
    """JSON pointer → 1-based line of the document *path* holds (None when it cannot be mapped)."""
    return _line_map(_absolute(path, cwd))


@lru_cache(maxsize=8)
def _document(path: str) -> Any:
    text = _file_text(path)
    if text is None:
        return None
    doc = try_loads(text)
    if doc is None and path.endswith((".yaml", ".yml")):
        try:
            from toolcall_cli.model.yaml_safe import safe_load

            doc = safe_load(text)
        except Exception:  # any YAML problem just means "cannot quote"
            return None
    return doc


@lru_cache(maxsize=8)
def _line_map(path: str) -> LineMap | None:
    from toolcall_cli.model.linemap import LineMap, json_lines, yaml_load

    text = _file_text(path)
    if text is None:
        return None
    try:
        if path.endswith((".yaml", ".yml")):
            return LineMap(yaml_load(text)[1])
        if try_loads(text) is None:
            return None
        return LineMap(json_lines(text))
    except Exception:  # a document we cannot map just has no line
        return None


def clear_cache() -> None:
    """Forget cached file contents (tests that rewrite files between runs)."""
    _file_text.cache_clear()
    _file_lines.cache_clear()
    _document.cache_clear()
    _line_map.cache_clear()
    _line_starts.cache_clear()
    _close_handles()
