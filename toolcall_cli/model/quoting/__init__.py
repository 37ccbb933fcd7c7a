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

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from toolcall_cli.model.findings import Evidence, Finding, Location
from toolcall_cli.model.jsonio import dumps, try_loads
from toolcall_cli.model.quoting import input_files
from toolcall_cli.model.quoting.aim import locate, window
from toolcall_cli.model.redact import Redactor

#: Longest quote `Quoter.quote` keeps (characters); evidence is for proving, not for dumping
#: payloads. Evidence quotes are windows around their focus instead (`aim.window`).
QUOTE_LIMIT = 400
#: Longest text read for one evidence quote before its window is cut (a result's tail, where it
#: was cut, must be inside; a multi-megabyte line is not redacted whole for a 200-char window).
_READ_LIMIT = 1 << 16

_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")
_FRAME = re.compile(r"^(?P<path>.+)#frame=(?P<frame>\d+)$")


def _own_text(e: Evidence) -> str:
    return e.text


def _short(redactor: Redactor, text: str, limit: int = QUOTE_LIMIT) -> str:
    # Quotes are re-read from the raw input, so secrets are redacted here (before the cut,
    # which could otherwise leave a secret's head too short for a rule to recognise).
    text = redactor.text(text.rstrip("\r\n"))
    return text if len(text) <= limit else text[: limit - 1] + "…"


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

    def __init__(
        self,
        files: Iterable[str | Path],
        redactor: Redactor,
        stand_in: Callable[[Evidence], str] = _own_text,
    ) -> None:
        """*stand_in* gives an entry's event text when it is needed (default: ``e.text``)."""
        self._files = tuple(files)
        self._written = _as_written(self._files)
        self._redactor = redactor
        self._stand_in = stand_in
        self._allowed: dict[str, bool] = {}
        self._cwd = os.getcwd()  # what the origins are relative to, asked once per run

    def _is_input(self, path: str) -> bool:
        """True when *path* is one of the run's inputs (compared resolved, cached per path).

        An origin names its file as the input was written, so the string is tried first; the
        inputs are resolved only for a path that is not one of them as written (a store's
        diagnose quotes each bucket against every file of the store: resolving 10,000 paths
        per bucket was two thirds of a 10,000-file store's diagnose, and even spelling them
        per bucket a fifth, so both are made once per run)."""
        got = self._allowed.get(path)
        if got is None:
            got = str(Path(path)) in self._written
            got = got or _key(Path(path)) in _resolved(self._cwd, self._files)
            self._allowed[path] = got
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
        lines = (
            input_files.line_map(path, cwd=self._cwd) if pointer and self._is_input(path) else None
        )
        line = lines.line(pointer) if lines else None
        return Location(path=path, line=line, pointer=pointer or None)

    def quote(self, origin: str) -> str:
        """The text at *origin*: a raw line, compact JSON at a pointer, or a frame reference,
        redacted and cut to `QUOTE_LIMIT`.

        Returns "" when the origin cannot be read or is not an input of the run (the caller
        falls back to the event's text).
        """
        return _short(self._redactor, self._raw(origin))

    def _raw(self, origin: str) -> str:
        """The whole unredacted text at *origin* ("" when it cannot be quoted)."""
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
            raw = input_files.line(line_m["path"], int(line_m["line"]), cwd=self._cwd)
            return raw.rstrip("\r\n") if raw is not None else ""
        return ""

    def _pointer(self, path: str, line_m: re.Match[str] | None, pointer: str) -> str:
        if line_m:
            raw = input_files.line(line_m["path"], int(line_m["line"]), cwd=self._cwd)
            doc = try_loads(raw) if raw is not None else None
        else:
            doc = input_files.document(path, cwd=self._cwd)
        if doc is None:
            return ""
        found, value = resolve_pointer(doc, pointer)
        if not found:
            return ""
        return value if isinstance(value, str) else dumps(value)

    def evidence(self, e: Evidence) -> Evidence:
        """*e* quoted: a window of the input's text at its origin around what the rule aimed
        at (the event's own text, *stand_in*, where the origin cannot be quoted; both for a
        frame), with the focus span and the focus's line and column in the input."""
        tail = e.aim is not None and e.aim.tail
        raw = _bounded(self._raw(e.origin), tail=tail)
        frame = _FRAME.match(e.origin) is not None
        full = self._redactor.text(raw)
        if not full or frame:
            own = _bounded(self._stand_in(e), tail=tail).rstrip("\r\n")
            summary = self._redactor.text(own)
            full = f"{full}: {summary}" if full and summary else (full or summary)
        span = locate(full, e.aim)
        text, focus = window(full, span)
        line, column = self._place(e.origin, span if raw and not frame else None)
        return Evidence(origin=e.origin, text=text, focus=focus, line=line, column=column)

    def _place(self, origin: str, span: tuple[int, int] | None) -> tuple[int | None, int | None]:
        """The 1-based line and column of the focus in the input: a raw line's focus column
        (None when the quote is not the input's text), or, for a pointer, where the line of
        the pointed value starts."""
        loc = self.locate(origin)
        if loc.line is None or loc.path is None:
            return None, None
        if loc.pointer is None:
            return loc.line, (span[0] + 1 if span else None)
        if _LINE.match(origin.partition("#")[0]):  # a member of a JSONL line: quoted apart
            return loc.line, None
        raw = (
            input_files.line(loc.path, loc.line, cwd=self._cwd)
            if self._is_input(loc.path)
            else None
        )
        return loc.line, (len(raw) - len(raw.lstrip()) + 1 if raw else None)

    def finding(self, f: Finding) -> Finding:
        """*f* with its evidence quoted and, unless the rule set one, its location taken from
        its first evidence."""
        if not f.evidence:
            return f
        location = f.location if f.location != Location() else self.locate(f.evidence[0].origin)
        return replace(f, evidence=tuple(self.evidence(e) for e in f.evidence), location=location)


def quote_findings(
    findings: Iterable[Finding],
    *,
    files: Iterable[str | Path],
    redactor: Redactor,
    stand_in: Callable[[Evidence], str] = _own_text,
) -> tuple[Finding, ...]:
    """Every finding with its evidence quoted from *files* (the run's inputs) and redacted;
    *stand_in* gives an entry's event text where the quote needs it."""
    quoter = Quoter(files, redactor, stand_in)
    return tuple(quoter.finding(f) for f in findings)


def _bounded(text: str, *, tail: bool) -> str:
    """*text* within `_READ_LIMIT`: its end when the point is the tail, else its start."""
    if len(text) <= _READ_LIMIT:
        return text
    return text[-_READ_LIMIT:] if tail else text[:_READ_LIMIT]


# one run's inputs: every bucket of a store builds its quoter with the same ones
@lru_cache(maxsize=1)
def _as_written(files: tuple[str | Path, ...]) -> frozenset[str]:
    """*files* as origins name them (a `Path`'s own spelling)."""
    return frozenset(str(Path(f)) for f in files)


@lru_cache(maxsize=1)
def _resolved(cwd: str, files: tuple[str | Path, ...]) -> frozenset[str]:
    """*files* resolved (*cwd* is in the key: a relative input resolves against it)."""
    return frozenset(_key(Path(f)) for f in files)


def _key(p: Path) -> str:
    """A path as compared against the inputs: absolute, symlinks resolved."""
    try:
        return str(p.resolve())
    except (OSError, RuntimeError):  # a symlink loop: compare as written
        return str(p.absolute())
