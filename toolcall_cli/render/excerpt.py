"""The table's evidence excerpt: a ruff-like ``path:line:col CODE message`` header and, per
evidence item, a short frame of the quote with the focus marked by carets.

```
  --> fixtures/replay/booking/middleware.log:15:291
   |
15 | …from send_email", "trace_id": "trace-book", "session_id": "sess-book",
   | "tool_call_id": "call_5", "status": "success", "size": 40}
   |                                                ^^^^^^^^^^
```

The frame is laid out for a given width and never breaks a token to fit it: lines wrap after
a space, a comma or a semicolon (compact JSON wraps between members), a wrapped line keeps the
indentation of its source line, and only a token longer than the whole width is cut. Text is
untrusted: controls are escaped (`safe.clean`) piece by piece, so the focus span still points
at the same characters afterwards.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from toolcall_cli.model.findings import Evidence, Finding
from toolcall_cli.model.quoting.aim import window
from toolcall_cli.render.safe import clean

#: The narrowest quote column laid out (a narrower cell still gets this and folds).
MIN_WIDTH = 24
#: Cells the diagnose table spends beside the finding column (borders, padding, severity and
#: code columns): a frame laid out in the rest is never re-wrapped by the table.
TABLE_OVERHEAD = 23
#: About how many lines of quote a frame shows (the quote is re-windowed around its focus).
MAX_LINES = 3
_BREAK_AFTER = frozenset(" ,;")
_CARET_STYLE = "bold red"
_FOCUS_STYLE = "bold"


def place(e: Evidence) -> str:
    """``path:line:col`` of an evidence item (as much of it as is known; the origin for a
    frame or an origin without a file)."""
    path = e.origin.partition("#")[0]
    if e.line is None:
        return clean(e.origin, keep_newlines=False)
    if path.endswith(f":{e.line}"):
        path = path[: -len(f":{e.line}")]
    return clean(f"{path}:{e.line}:{e.column or 1}", keep_newlines=False)


def header(f: Finding) -> Text:
    """``path:line:col CODE message`` — where the first evidence's focus is, what was found."""
    where = place(f.evidence[0]) if f.evidence else (f.location.path or "")
    out = Text()
    if where:
        out.append(where, style="bold")
        out.append(" ")
    out.append(f.code, style="bold")
    out.append(" ")
    out.append(clean(f"{f.name}: {f.message}", keep_newlines=False, limit=400))
    return out


def frame(e: Evidence, width: int) -> Text:
    """The excerpt frame of *e* in at most *width* cells per line (see the module doc)."""
    gutter = len(str(e.line)) if e.line is not None else 1
    room = max(MIN_WIDTH, width - gutter - 3)
    whole = e.focus is None or (e.focus[0] <= 0 and e.focus[1] >= len(e.text))
    text, (start, end) = _cleaned(e, room * MAX_LINES)
    pad = " " * gutter
    # a quoted value (an origin with a JSON pointer) is decoded text: its newlines are `\n`
    # escapes inside one line of the file, so only its first line carries the file's number
    file_lines = "#" not in e.origin
    out = Text()
    out.append(_arrow(e, pad, width), style="dim")
    out.append(f"\n{pad} |", style="dim")
    offset = 0
    for n, source_line in enumerate(text.split("\n")):
        lo = offset
        offset += len(source_line) + 1
        for k, (s, t, indent) in enumerate(wrap(source_line, room)):
            first = k == 0 and (file_lines or n == 0)
            number = str(e.line + n) if e.line is not None and first else ""
            out.append(f"\n{number:>{gutter}} | ", style="dim")
            out.append(" " * indent)
            _piece(out, source_line[s:t], s + lo, start, end)
            fs, ft = max(start, s + lo), min(end, t + lo)
            if fs < ft and not whole:  # a whole-line focus needs no carets
                shown = source_line[s:t].rstrip()
                carets = cell_len(source_line[fs - lo : min(ft - lo, s + len(shown))])
                if carets:
                    col = indent + cell_len(source_line[s : fs - lo])
                    out.append(f"\n{pad} | ", style="dim")
                    out.append(" " * col + "^" * carets, style=_CARET_STYLE)
    return out


def _arrow(e: Evidence, pad: str, width: int) -> str:
    """``--> path:line:col #/pointer`` in *width* cells: the pointer goes first, then the
    path's head (``…`` marks it), so the line is never wrapped inside the path."""
    where = place(e)
    pointer = e.origin.partition("#")[2]
    lead = f"{pad}--> "
    if e.line is not None and pointer:  # where in the document, beside where in the file
        full = f"{lead}{where}" + clean(f" #{pointer}", keep_newlines=False)
        if cell_len(full) <= width:
            return full
    room = max(MIN_WIDTH, width) - cell_len(lead)
    if cell_len(where) > room:
        where = "…" + where[-(room - 1) :]
    return lead + where


def _piece(out: Text, piece: str, at: int, start: int, end: int) -> None:
    """Append *piece* (text[at:at+len]) with the focus part in bold, trailing spaces dropped."""
    piece = piece.rstrip()
    a, b = max(start - at, 0), max(min(end - at, len(piece)), 0)
    if a >= b:
        out.append(piece)
        return
    out.append(piece[:a])
    out.append(piece[a:b], style=_FOCUS_STYLE)
    out.append(piece[b:])


def wrap(line: str, width: int) -> list[tuple[int, int, int]]:
    """*line* cut into pieces of at most *width* cells: ``(start, end, indent)`` each, where
    a continuation piece is shown after *indent* spaces (the source line's indentation).

    A piece ends after a space, comma or semicolon; only a token wider than the whole width
    is cut inside.
    """
    indent = len(line) - len(line.lstrip(" "))
    if indent >= width // 2:  # deep nesting: keep a usable width
        indent = 0
    pieces: list[tuple[int, int, int]] = []
    pos, lead = 0, 0
    while True:
        room = width - lead
        if cell_len(line[pos:]) <= room:
            pieces.append((pos, len(line), lead))
            return pieces
        cut, used = pos, 0
        best = -1
        for i in range(pos, len(line)):
            used += cell_len(line[i])
            if used > room:
                break
            cut = i + 1
            if line[i] in _BREAK_AFTER:
                best = i + 1
        cut = best if best > pos else max(cut, pos + 1)
        pieces.append((pos, cut, lead))
        pos, lead = cut, indent
        while pos < len(line) and line[pos] == " ":  # a continuation starts at a token
            pos += 1
        if pos >= len(line):
            return pieces


def _cleaned(e: Evidence, chars: int) -> tuple[str, tuple[int, int]]:
    """*e*'s text cut to about *chars* around its focus, controls escaped and tabs as spaces,
    and its focus in that text."""
    text, (start, end) = window(e.text, e.focus, width=chars)
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))

    def c(s: str) -> str:
        return clean(s, keep_newlines=True).replace("\t", " ")

    pre, mid, post = c(text[:start]), c(text[start:end]), c(text[end:])
    return pre + mid + post, (len(pre), len(pre) + len(mid))
