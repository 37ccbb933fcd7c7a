"""Quoting: the evidence of every finding, quoted from the input and redacted, once.

Rules cite origins (DESIGN §3); this stage, run after classification and ranking, quotes them.
One resolver per origin scheme:

* ``path:line`` — the raw line, re-read from the file;
* ``path#/json/pointer`` — compact one-line JSON of the object at the pointer;
* ``path:line#/pointer`` — the same inside one JSONL line;
* ``path#frame=N`` — a pcap frame, named and summarised from the event's own text.

Only the files that are inputs of the run (the paths ingested, or the files the store's manifest
records) are ever opened: an origin that points anywhere else is quoted as unavailable, so a
rewritten origin column cannot make diagnose print a local file. Files are re-read lazily and
only for the few lines findings cite, with a small cache. When an origin cannot be quoted (not an
input, file gone, pointer stale) the event's own text stands in, so a finding never loses its
evidence. Every quote goes through the run's redactor, before it is cut to length.
"""

from __future__ import annotations

import gzip
import mmap
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from toolcall_cli.core.findings import Evidence, Finding, Location
from toolcall_cli.core.jsonio import dumps, try_loads
from toolcall_cli.core.redact import Redactor

if TYPE_CHECKING:  # the lint package (and jsonschema with it) loads only when a quote needs it
    from toolcall_cli.lint.linemap import LineMap

#: Longest quote kept (characters); evidence is for proving, not for dumping payloads.
QUOTE_LIMIT = 400
#: Files up to this size are cached whole; larger ones are streamed to the cited line.
_WHOLE_FILE = 32 << 20
_LIMIT_DECOMPRESSED = 1 << 30

_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")
_FRAME = re.compile(r"^(?P<path>.+)#frame=(?P<frame>\d+)$")


def _short(redactor: Redactor, text: str, limit: int = QUOTE_LIMIT) -> str:
    # Quotes are re-read from the raw input, so secrets are redacted here (before the cut,
    # which could otherwise leave a secret's head too short for a rule to recognise).
    text = redactor.text(text.rstrip("\r\n"))
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


def _line(path: str, n: int) -> str | None:
    """Line *n* (1-based) of *path*, or None."""
    if n < 1:
        return None
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


@lru_cache(maxsize=4)
def _line_starts(path: str) -> tuple[np.ndarray, int] | None:
    """Byte offsets where each line of *path* starts, and the file size (None: unreadable)."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                return np.zeros(1, dtype=np.int64), 0
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                data = np.frombuffer(m, dtype=np.uint8)
                ends = np.flatnonzero(data == 10)
                del data  # the mmap cannot close while a view of it lives
    except (OSError, ValueError):
        return None
    return np.concatenate(([0], ends + 1)).astype(np.int64), size


@lru_cache(maxsize=8)
def _document(path: str) -> Any:
    text = _file_text(path)
    if text is None:
        return None
    doc = try_loads(text)
    if doc is None and path.endswith((".yaml", ".yml")):
        try:
            import yaml

            doc = yaml.safe_load(text)
        except Exception:  # any YAML problem just means "cannot quote"
            return None
    return doc


@lru_cache(maxsize=8)
def _line_map(path: str) -> LineMap | None:
    from toolcall_cli.lint.linemap import LineMap, json_lines, yaml_load

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


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def resolve_pointer(doc: Any, pointer: str) -> tuple[bool, Any]:
    """(found, value) for an RFC 6901 pointer; descends into JSON held in strings too."""
    if pointer in ("", "/"):
        return True, doc
    cur = doc
    for raw in pointer.lstrip("/").split("/"):
        tok = _unescape(raw)
        if isinstance(cur, str):  # bodies recorded as JSON text (cassettes, SSE)
            parsed = try_loads(cur)
            if parsed is None:
                return False, None
            cur = parsed
        if isinstance(cur, dict):
            if tok not in cur:
                return False, None
            cur = cur[tok]
        elif isinstance(cur, list):
            if not tok.isdigit() or int(tok) >= len(cur):
                return False, None
            cur = cur[int(tok)]
        else:
            return False, None
    return True, cur


class Quoter:
    """Quotes origins from the inputs of one run, redacted by the run's redactor."""

    def __init__(self, files: Iterable[str | Path], redactor: Redactor) -> None:
        self._inputs = frozenset(_key(Path(f)) for f in files)
        self._redactor = redactor
        self._allowed: dict[str, bool] = {}

    def _is_input(self, path: str) -> bool:
        """True when *path* is one of the run's inputs (compared resolved, cached per path)."""
        got = self._allowed.get(path)
        if got is None:
            got = self._allowed[path] = _key(Path(path)) in self._inputs
        return got

    def locate(self, origin: str) -> Location:
        """The file, 1-based line and JSON pointer an origin points at (line from the document,
        read only when the document is an input)."""
        if not origin:
            return Location()
        m = _FRAME.match(origin)
        if m:
            return Location(path=m["path"], line=None, pointer=None)
        path, _, pointer = origin.partition("#")
        line_m = _LINE.match(path)
        if line_m:
            return Location(path=line_m["path"], line=int(line_m["line"]), pointer=pointer or None)
        lines = _line_map(path) if pointer and self._is_input(path) else None
        line = lines.line(pointer) if lines else None
        return Location(path=path, line=line, pointer=pointer or None)

    def quote(self, origin: str) -> str:
        """The text at *origin*: a raw line, compact JSON at a pointer, or a frame reference.

        Returns "" when the origin cannot be read or is not an input of the run (the caller
        falls back to the event's text).
        """
        if not origin:
            return ""
        m = _FRAME.match(origin)
        if m:
            return f"frame {m['frame']} of {Path(m['path']).name}"
        path, _, pointer = origin.partition("#")
        line_m = _LINE.match(path)
        if not self._is_input(line_m["path"] if line_m else path):
            return ""
        if pointer:
            return self._pointer(path, line_m, pointer)
        if line_m:
            raw = _line(line_m["path"], int(line_m["line"]))
            return _short(self._redactor, raw) if raw is not None else ""
        return ""

    def _pointer(self, path: str, line_m: re.Match[str] | None, pointer: str) -> str:
        if line_m:
            raw = _line(line_m["path"], int(line_m["line"]))
            doc = try_loads(raw) if raw is not None else None
        else:
            doc = _document(path)
        if doc is None:
            return ""
        found, value = resolve_pointer(doc, pointer)
        if not found:
            return ""
        return _short(self._redactor, value if isinstance(value, str) else dumps(value))

    def evidence(self, e: Evidence) -> Evidence:
        """*e* quoted: the input's text at its origin, the event's own text (``e.text``) where
        the origin cannot be quoted, both for a frame."""
        text = self.quote(e.origin)
        if not text or _FRAME.match(e.origin):
            summary = _short(self._redactor, e.text)
            text = f"{text}: {summary}" if text and summary else (text or summary)
        return Evidence(origin=e.origin, text=text)

    def finding(self, f: Finding) -> Finding:
        """*f* with its evidence quoted and, unless the rule set one, its location taken from
        its first evidence."""
        if not f.evidence:
            return f
        location = f.location if f.location != Location() else self.locate(f.evidence[0].origin)
        return replace(f, evidence=tuple(self.evidence(e) for e in f.evidence), location=location)


def quote_findings(
    findings: Iterable[Finding], *, files: Iterable[str | Path], redactor: Redactor
) -> tuple[Finding, ...]:
    """Every finding with its evidence quoted from *files* (the run's inputs) and redacted."""
    quoter = Quoter(files, redactor)
    return tuple(quoter.finding(f) for f in findings)


def _key(p: Path) -> str:
    """A path as compared against the inputs: absolute, symlinks resolved."""
    try:
        return str(p.resolve())
    except (OSError, RuntimeError):  # a symlink loop: compare as written
        return str(p.absolute())


def clear_cache() -> None:
    """Forget cached file contents (tests that rewrite files between runs)."""
    _file_text.cache_clear()
    _file_lines.cache_clear()
    _document.cache_clear()
    _line_map.cache_clear()
    _line_starts.cache_clear()
    _close_handles()
