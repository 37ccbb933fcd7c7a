"""The one JSON bracket scanner: what a JSON-like text leaves open, and where a value ends.

Arguments, tool results and transcript bodies travel as text that may be cut off or malformed.
`scan` walks the text once outside strings (escapes respected) and reports the brackets still
open, whether it ends inside a string, and a closer without its opener. `value_end` finds the
end of the JSON value that starts at an index (tolerant: the end of text when it never closes).
`cut_json` tells a cut-off document from other malformed JSON.

Two readers of JSON text do other work and keep their own loops: `tools.linemap` maps each
value of a document orjson accepted to its line and column, and `sources.har.stream` decodes a
HAR's entries one at a time from a file too large to hold as objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolcall_cli.model.jsonio import try_loads

_PAIRS = {"}": "{", "]": "["}
#: A number or literal runs to the next separator, closer or space.
_SCALAR = re.compile(r"[^,}\]\s]*")


@dataclass(frozen=True, slots=True)
class Brackets:
    """Bracket balance of a JSON-like text: what is still open where the scan stopped."""

    open: tuple[str, ...]  # unclosed "{" / "[" (outermost first; a closer pops only its own)
    in_string: bool  # the text ends inside a double-quoted string
    overclosed: bool  # a closer without its opener (malformed, not cut)
    depth: int  # openers minus closers, whatever their pairing
    end: int  # index just after the last character scanned

    @property
    def unbalanced(self) -> bool:
        """Something is left open at the end (the signature of a cut)."""
        return bool(self.open) or self.in_string


def scan(text: str, start: int = 0, *, one_value: bool = False) -> Brackets:
    """Scan *text* from *start* for open brackets and strings.

    With *one_value*, stop just after the closer that brings the depth back to zero (the end of
    the array or object that starts at *start*), or after the quote that ends a string begun at
    depth zero.
    """
    stack: list[str] = []
    in_str = esc = over = False
    depth = 0
    n = len(text)
    j = start
    while j < n:
        ch = text[j]
        j += 1
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
                if one_value and depth == 0:
                    break
            continue
        if ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append(ch)
            depth += 1
        elif ch in "}]":
            depth -= 1
            if stack and stack[-1] == _PAIRS[ch]:
                stack.pop()
            else:
                over = True
            if one_value and depth == 0:
                break
    return Brackets(open=tuple(stack), in_string=in_str, overclosed=over, depth=depth, end=j)


def value_end(text: str, start: int) -> int:
    """End index of the JSON value starting at *start*: an array, object or string ends after
    its closer (or at the end of text if it never closes), a number or literal at the next
    separator, closer or space."""
    if start >= len(text):
        return start
    if text[start] in '{["':
        return scan(text, start, one_value=True).end
    m = _SCALAR.match(text, start)
    return m.end() if m else start


def looks_json(text: str | None) -> bool:
    """The text starts like a JSON object or array."""
    return bool(text) and text.lstrip()[:1] in ("{", "[")  # type: ignore[union-attr]


def parses(text: str | None) -> bool:
    """The whole text is one JSON document."""
    if text is None:
        return False
    return try_loads(text) is not None or text.strip() == "null"


def cut_json(text: str | None) -> Brackets | None:
    """The brackets of *text* when it is a JSON object/array cut off before its end, else None."""
    if not looks_json(text) or parses(text):
        return None
    sh = scan(text.strip())  # type: ignore[union-attr]
    return sh if sh.unbalanced and not sh.overclosed else None


#: What a cut can stop just before, tried in turn after closing an open string: nothing, a
#: value after `:`/`,`/`[`, the rest of a key, the rest of a literal or number.
_VALUE_TAILS = ("", "null", ":null", '"_":null', "0", "e", "ue", "rue", "lse", "se", "ll", "l")
_STRING_TAILS = ('"', '":null', 'n"', 'n":null', '0000"', '000"', '00"', '0"')


def cut_prefix(text: str | None) -> Brackets | None:
    """The brackets of *text* when it is a JSON object/array **cut off at its end**: a prefix of
    some valid document (closing its open string and brackets, and at most finishing the
    value, key or literal it stopped in, makes it parse). Else None.

    This tells a cut from a malformed text whose brackets merely look open: a stray `"` in
    complete arguments (`{"a": "b"", "c": 1}`) leaves a string "open" to the scanner, but no
    ending completes it, because the damage is before the end.
    """
    sh = cut_json(text)
    if sh is None:
        return None
    s = text.strip()  # type: ignore[union-attr]
    closers = "".join("}" if c == "{" else "]" for c in reversed(sh.open))
    tails = _STRING_TAILS if sh.in_string else _VALUE_TAILS
    if any(parses(s + tail + closers) for tail in tails):
        return sh
    return None


def first_error(text: str) -> tuple[int, str] | None:
    """Where a JSON text first stops being JSON: (index, the character there, or "" at the end).

    None when the text parses. The index is the decoder's: the first character no JSON
    document could have there.
    """
    import json

    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        pos = e.pos
        if e.msg.startswith("Unterminated string"):
            return len(text), ""
        return pos, text[pos] if pos < len(text) else ""
    except (ValueError, RecursionError):
        return None
    return None
