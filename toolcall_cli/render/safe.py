"""Neutralising untrusted text before it reaches a terminal or a document.

Input-derived text may contain ANSI/OSC escapes, BEL, other control characters or rich markup.
`clean()` makes every control character visible (``\\x1b`` → ``\\x1b`` literally); renderers that
use rich pass the result as `rich.text.Text`, which never interprets markup.
"""

from __future__ import annotations

import re

# C0 controls except TAB/LF, DEL, C1 controls, Unicode bidi marks, embeddings, overrides and
# isolates, line/paragraph separators, zero-width and invisible characters (ZWSP, ZWNJ, ZWJ,
# word joiner, invisible operators, BOM, soft hyphen, Mongolian vowel separator, Hangul
# fillers, interlinear annotation, tag characters), which can reorder, hide or fake text.
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u115f\u1160\u180e\u200b-\u200f"
    "\u2028-\u202e\u2060-\u206f\u3164\ufeff\ufff9-\ufffb\uffa0\U000e0000-\U000e007f]"
)


def _escape(m: re.Match[str]) -> str:
    cp = ord(m.group())
    if cp < 0x100:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def clean(text: object, *, keep_newlines: bool = True, limit: int | None = None) -> str:
    """Printable form of *text*: controls escaped, optionally one line and shortened."""
    s = "" if text is None else str(text)
    if limit is not None and len(s) > limit:
        s = s[: max(0, limit - 1)] + "…"
    s = _CONTROL.sub(_escape, s)
    if not keep_newlines:
        s = s.replace("\r", "\\r").replace("\n", "\\n").replace("\t", " ")
    return s


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def md(text: object, *, limit: int | None = None) -> str:
    """Escape for a Markdown table cell: controls escaped, markdown/HTML specials backslashed."""
    s = clean(text, keep_newlines=False, limit=limit)
    return _MD_SPECIAL.sub(r"\\\1", s)
