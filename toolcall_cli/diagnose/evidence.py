"""Evidence: quote the exact input a finding cites, from its `origin`.

Origins (DESIGN §3):

* ``path:line`` — the raw line, re-read from the file;
* ``path#/json/pointer`` — compact one-line JSON of the object at the pointer;
* ``path:line#/pointer`` — the same inside one JSONL line;
* ``path#frame=N`` — a pcap frame, summarised from the event row.

Files are re-read lazily and only for the few lines findings cite, with a small cache. When an
origin cannot be quoted (file gone, pointer stale) the event's own text stands in, so a finding
never loses its evidence. Quoted text goes through the active redactor
(`core.redact.active_redactor`, set by `diagnose.run.diagnose`).
"""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np
import pandas as pd

from toolcall_cli.core.findings import Evidence, Location
from toolcall_cli.core.jsonio import dumps, try_loads
from toolcall_cli.core.redact import active_redactor
from toolcall_cli.errors import InputError
from toolcall_cli.sources._io import decode_text, is_gzip, read_bytes

if TYPE_CHECKING:  # the lint package (and jsonschema with it) loads only when a quote needs it
    from toolcall_cli.lint.linemap import LineMap

#: Longest quote kept (characters); evidence is for proving, not for dumping payloads.
QUOTE_LIMIT = 400
#: Files up to this size are cached whole; larger ones are streamed to the cited line.
_WHOLE_FILE = 32 << 20
_LIMIT_DECOMPRESSED = 1 << 30

_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")
_FRAME = re.compile(r"^(?P<path>.+)#frame=(?P<frame>\d+)$")


def _short(text: str, limit: int = QUOTE_LIMIT) -> str:
    # Quotes are re-read from the raw input, so secrets are redacted here (before the cut,
    # which could otherwise leave a secret's head too short for a rule to recognise).
    text = active_redactor().text(text.rstrip("\r\n"))
    return text if len(text) <= limit else text[: limit - 1] + "…"


@lru_cache(maxsize=8)
def _file_text(path: str) -> str | None:
    p = Path(path)
    try:
        if p.stat().st_size > _WHOLE_FILE and not is_gzip(p):
            return None
        return decode_text(read_bytes(p, limit=_LIMIT_DECOMPRESSED))
    except (OSError, InputError):
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
            from toolcall_cli.core.yaml_safe import safe_load

            doc = safe_load(text)
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


def locate(origin: str) -> Location:
    """The file, 1-based line and JSON pointer an origin points at (line from the document)."""
    if not origin:
        return Location()
    m = _FRAME.match(origin)
    if m:
        return Location(path=m["path"], line=None, pointer=None)
    path, _, pointer = origin.partition("#")
    line_m = _LINE.match(path)
    if line_m:
        return Location(path=line_m["path"], line=int(line_m["line"]), pointer=pointer or None)
    lines = _line_map(path) if pointer else None
    return Location(path=path, line=lines.line(pointer) if lines else None, pointer=pointer or None)


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


def quote(origin: str) -> str:
    """The text at *origin*: a raw line, compact JSON at a pointer, or a frame reference.

    Returns "" when the origin cannot be read (the caller falls back to the event's text).
    """
    if not origin:
        return ""
    m = _FRAME.match(origin)
    if m:
        return f"frame {m['frame']} of {Path(m['path']).name}"
    path, _, pointer = origin.partition("#")
    line_m = _LINE.match(path)
    if pointer:
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
        return _short(value if isinstance(value, str) else dumps(value))
    if line_m:
        raw = _line(line_m["path"], int(line_m["line"]))
        return _short(raw) if raw is not None else ""
    return ""


def row_text(row: Any) -> str:
    """A one-line stand-in for an event when its origin cannot be quoted."""
    parts: list[str] = []
    for col in ("kind", "tool", "tool_call_id", "http_status", "detail", "args"):
        val = row.get(col) if hasattr(row, "get") else None
        if missing(val) or val == "":
            continue
        parts.append(f"{col}={val}" if col in ("tool_call_id", "http_status") else str(val))
    return _short(" ".join(parts).replace("\n", " "))


def evidence_of(row: Any) -> Evidence:
    """Evidence for one event row (origin + quoted text)."""
    return evidence_at(str(row["origin"]), lambda: row)


def evidence_at(origin: str, row: Callable[[], Any]) -> Evidence:
    """Evidence for *origin*; *row* gives the event's cells when its text must stand in (a
    frame, or an origin that cannot be quoted) — only then are they read."""
    text = quote(origin)
    if not text or (origin and _FRAME.match(origin)):
        summary = row_text(row())
        text = f"{text}: {summary}" if text and summary else (text or summary)
    return Evidence(origin=origin, text=text)


#: The event columns evidence reads (`row_text` and the origin).
ROW_COLUMNS = ("origin", "kind", "tool", "tool_call_id", "http_status", "detail", "args")


def evidence(rows: pd.DataFrame, limit: int = 5) -> tuple[Evidence, ...]:
    """Evidence for the first *limit* rows (in their order), one entry per distinct origin."""
    if rows is None or not len(rows):
        return ()
    return evidence_from(*frame_cells(rows, limit), limit)


def frame_cells(
    rows: pd.DataFrame, limit: int
) -> tuple[list[Any], Callable[[int], dict[str, Any]]]:
    """The origins of the first rows of *rows* that can give *limit* distinct quotes, and the
    `ROW_COLUMNS` cells of the k-th of them (the two arguments of `evidence_from`)."""
    head = rows.head(limit * 10)  # enough to find *limit* distinct origins in practice
    values = {c: head[c].tolist() for c in ROW_COLUMNS if c in head.columns}
    return values.get("origin", []), lambda k: {c: v[k] for c, v in values.items()}


def evidence_from(
    origins: Sequence[Any], row: Callable[[int], dict[str, Any]], limit: int = 5
) -> tuple[Evidence, ...]:
    """`evidence` over the origins of the cited rows, in order; ``row(k)`` gives the cells of
    the k-th (`ROW_COLUMNS`), read only for rows whose text stands in for a quote.

    Findings are many on a large store: no DataFrame slice per finding, no cell read in vain.
    """
    out: list[Evidence] = []
    seen: set[str] = set()
    for k, cell in enumerate(origins):
        origin = str(None if missing(cell) else cell)
        if origin in seen:
            continue
        seen.add(origin)
        out.append(evidence_at(origin, _cells_of(row, k)))
        if len(out) >= limit:
            break
    return tuple(out)


def _cells_of(row: Callable[[int], dict[str, Any]], k: int) -> Callable[[], dict[str, Any]]:
    def cells() -> dict[str, Any]:
        return {c: (None if missing(v) else v) for c, v in row(k).items()}

    return cells


def missing(v: Any) -> bool:
    """A null cell: None, pandas NA/NaT or a float NaN (cheap; called per cited value)."""
    return v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v)


def clear_cache() -> None:
    """Forget cached file contents (tests that rewrite files between runs)."""
    _file_text.cache_clear()
    _file_lines.cache_clear()
    _document.cache_clear()
    _line_map.cache_clear()
    _line_starts.cache_clear()
    _close_handles()
