"""What a quote centres on (`Aim`), where that is in the quoted text (`locate`), and the window
of the text around it (`window`), elided with ``…`` where the text was cut.

A rule knows what proves its finding (the `"size": 40` the wire reports, the tail where a result
was cut) but never the quoted text, which the quoting stage reads later from the input. So the
rule names the point (a JSON member, a literal value, the tail) and this module finds it in
whatever form the input holds it: a raw log line, compact JSON at a pointer (where the value
may sit JSON-escaped inside a string), a ``key=value`` access-log field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Characters of quote kept around the focus (the JSON ``text``; the table wraps it).
WINDOW = 200
#: How far a cut may move to land on a token boundary instead of inside a token.
_SNAP = 24
#: Characters of a value's tail (or of the text's tail) that make the focus of a ``tail`` aim.
TAIL = 32
ELLIPSIS = "…"

_VALUE = r'(?:"(?:[^"\\]|\\.){0,120}"?|-?\d[\d.eE+-]*|true|false|null|[\[{])'
_BOUNDARY = re.compile(r"[\s,;]")


@dataclass(frozen=True, slots=True)
class Aim:
    """The point of an evidence line, as a rule names it (tried in this order).

    * *key*: the member ``"key": value`` (or ``key=value``) — with *tail*, the end of its value;
    * *pattern*: a regular expression (its first match: an access log's ``[time] "POST path"``);
    * *needle*: a literal (the last occurrence when *tail*; JSON-escaped forms are found too);
    * *tail* alone: the end of the text (where a result was cut).
    """

    key: str | None = None
    needle: str | None = None
    tail: bool = False
    pattern: str | None = None


def locate(text: str, aim: Aim | None) -> tuple[int, int] | None:
    """The ``(start, end)`` span of *aim* in *text*, or None when it is not there."""
    if aim is None or not text:
        return None
    if aim.key:
        span = _member(text, aim.key, tail=aim.tail)
        if span:
            return span
    if aim.pattern:
        m = re.search(aim.pattern, text)
        if m and m.end() > m.start():
            return m.start(), m.end()
    if aim.needle:
        span = _needle(text, aim.needle, last=aim.tail)
        if span:
            return span
    if aim.tail and not aim.key and not aim.needle and not aim.pattern:
        end = len(text.rstrip())
        return max(0, end - TAIL), end
    return None


def _member(text: str, key: str, *, tail: bool) -> tuple[int, int] | None:
    k = re.escape(key)
    m = re.search(rf'"{k}"\s*:\s*({_VALUE})', text) or re.search(rf"\b{k}=(\S+)", text)
    if m is None:
        return None
    if not tail:
        return m.start(), m.end()
    # the end of the value: its last TAIL characters, before a closing quote
    end = m.end(1)
    if text[m.start(1)] == '"':
        end = _string_end(text, m.start(1))
    return max(m.start(1), end - TAIL), end


def _string_end(text: str, start: int) -> int:
    """The index of the closing quote of the JSON string opening at *start* (or the text end)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return len(text)


def _needle(text: str, needle: str, *, last: bool) -> tuple[int, int] | None:
    from toolcall_cli.model.jsonio import dumps

    forms = [needle, dumps(needle)[1:-1]]  # as written, or escaped inside a JSON string
    for form in dict.fromkeys(f for f in forms if f):
        at = text.rfind(form) if last else _word(text, form)
        if at >= 0:
            return at, at + len(form)
    return None


def _word(text: str, form: str) -> int:
    """The first occurrence of *form* not inside a longer number or word (`40` is not `1400`)."""
    # a literal, so str.find (a regex per needle would be compiled per call id: one per finding)
    at = text.find(form)
    while at >= 0:
        end = at + len(form)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() and form[0].isalnum()) and not (
            after.isalnum() and form[-1].isalnum()
        ):
            return at
        at = text.find(form, end)  # the next match that does not overlap this one
    return -1


def window(
    text: str, focus: tuple[int, int] | None, width: int = WINDOW
) -> tuple[str, tuple[int, int]]:
    """*text* cut to about *width* characters around *focus*, ``…`` where it was cut, and the
    focus span in the cut text. Cuts land on token boundaries when one is near; the focus is
    kept whole when it fits (a longer one keeps its end, where a cut result proves itself).
    Without a focus (or with one that is the whole text) the head is kept, and the focus is the
    whole cut text."""
    if focus is None or (focus[0] <= 0 and focus[1] >= len(text)):  # the whole text: its head
        if len(text) <= width:
            return text, (0, len(text))
        cut = text[: _snap_right(text, width - 1, width // 2)] + ELLIPSIS
        return cut, (0, len(cut))
    start, end = max(0, focus[0]), min(len(text), focus[1])
    if len(text) <= width:
        return text, (start, end)
    if end - start > width:
        start = end - width
    room = width - (end - start)
    lo = max(0, start - room // 2)
    hi = min(len(text), lo + width)
    if hi - lo < width:  # the window hit the text's end: give the room to the left
        lo = max(0, hi - width)
    lo, hi = _snap_left(text, lo, start), _snap_right(text, hi, end)
    head = ELLIPSIS if lo > 0 else ""
    tail = ELLIPSIS if hi < len(text) else ""
    cut = head + text[lo:hi] + tail
    return cut, (start - lo + len(head), end - lo + len(head))


def _snap_left(text: str, lo: int, limit: int) -> int:
    """Move a left cut forward to just after a token boundary (never past *limit*)."""
    if lo == 0:
        return 0
    for i in range(lo, min(limit, lo + _SNAP)):
        if _BOUNDARY.match(text[i - 1]) and not text[i].isspace():
            return i
    return lo


def _snap_right(text: str, hi: int, limit: int) -> int:
    """Move a right cut back to a token boundary (never before *limit*)."""
    if hi >= len(text):
        return len(text)
    for i in range(hi, max(limit, hi - _SNAP), -1):
        if _BOUNDARY.match(text[i]):
            return i
    return hi
