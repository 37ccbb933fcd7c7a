"""Evidence in the HTML report: pretty-printed, highlighted, the focus marked.

A quote that is a whole JSON document is shown indented, with JSON held in strings (a tool
message's ``content``, a function's ``arguments``) unpacked in place, so the page never shows
escaped JSON inside JSON; keys, strings, numbers and literals get classes the page colours.
The member the finding's focus names is marked. Any other quote (a window cut with ``…``, a
log line) is shown as written, the focus span marked. All text is escaped (`html_page.h`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolcall_cli.model.findings import Evidence
from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.render.html_page import h

#: Deepest nesting of JSON-in-strings unpacked (a string of JSON of JSON…).
_UNPACK_DEPTH = 3
_TOKEN = re.compile(
    r'(?P<key>"(?:[^"\\]|\\.)*")(?=\s*:)|(?P<str>"(?:[^"\\]|\\.)*")'
    r"|(?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?P<lit>\btrue\b|\bfalse\b|\bnull\b)"
)
_FOCUS_KEY = re.compile(r'^\s*"((?:[^"\\]|\\.)*)"\s*:')


def _unpack(value: Any, depth: int = 0) -> Any:
    """*value* with JSON documents held in strings parsed in place."""
    if depth > _UNPACK_DEPTH:
        return value
    if isinstance(value, dict):
        return {k: _unpack(v, depth) for k, v in value.items()}
    if isinstance(value, list):
        return [_unpack(v, depth) for v in value]
    if isinstance(value, str) and value[:1] in "{[":
        inner = try_loads(value)
        if isinstance(inner, dict | list):
            return _unpack(inner, depth + 1)
    return value


def _highlight(text: str) -> str:
    """Escaped *text* with JSON tokens wrapped in classed spans."""
    out: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        out.append(h(text[pos : m.start()]))
        kind = m.lastgroup or "str"
        out.append(f'<span class="j-{kind}">{h(m.group())}</span>')
        pos = m.end()
    out.append(h(text[pos:]))
    return "".join(out)


def _focus_key(e: Evidence) -> str | None:
    """The JSON key the focus starts with (`"size": 40` → size), if it names one."""
    if e.focus is None:
        return None
    m = _FOCUS_KEY.match(e.text[e.focus[0] : e.focus[1]])
    return m.group(1) if m else None


def _pretty(e: Evidence, doc: Any) -> str:
    # the document's own key order (a reader compares it with the file), indented
    lines = json.dumps(_unpack(doc), indent=2, ensure_ascii=False).split("\n")
    key = _focus_key(e)
    marked = f'"{key}":' if key else None
    out: list[str] = []
    until: int | None = None  # the indent that closes the marked member
    for line in lines:
        indent = len(line) - len(line.lstrip())
        body = _highlight(line[indent:])
        if marked and line.lstrip().startswith(marked):
            marked = None  # the first member of that name, with its whole value
            until = indent if line.rstrip().endswith(("{", "[")) else None
            body = f"<mark>{body}</mark>"
        elif until is not None:
            body = f"<mark>{body}</mark>"
            if indent == until:
                until = None
        out.append(" " * indent + body)
    return "\n".join(out)


def _marked(e: Evidence) -> str:
    text = e.text
    if e.focus is None or (e.focus[0] <= 0 and e.focus[1] >= len(text)):
        return h(text)
    s, t = e.focus
    return f"{h(text[:s])}<mark>{h(text[s:t])}</mark>{h(text[t:])}"


def evidence_item(e: Evidence, *, limit: int = 4000) -> str:
    """One evidence `<li>`: its origin (with line:col) and the quote, pretty where it is JSON."""
    place = e.origin if e.line is None else f"{e.origin} · line {e.line}:{e.column or 1}"
    doc = try_loads(e.text) if e.text[:1] in "{[" and len(e.text) <= limit else None
    if isinstance(doc, dict | list):
        body = f'<pre class="quote json">{_pretty(e, doc)}</pre>'
    else:
        body = f'<pre class="quote">{_marked(e)}</pre>'
    return f'<li><span class="origin mono">{h(place, limit=300)}</span>{body}</li>'
