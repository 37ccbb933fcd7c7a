"""The one JSON bracket scanner: what a JSON-like text leaves open, and where a value ends.

Arguments, tool results and transcript bodies travel as text that may be cut off or malformed.
`scan` walks the text once outside strings (escapes respected) and reports the brackets still
open, whether it ends inside a string, and a closer without its opener. `value_end` finds the
end of the JSON value that starts at an index (tolerant: the end of text when it never closes).
`cut_json` tells a cut-off document from other malformed JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolcall_cli.core.jsonio import try_loads

_PAIRS = {"}": "{", "]": "["}


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
    the array or object that starts at *start*).
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
    """End index of the array or object starting at *start* (the end of text if it never
    closes)."""
    return scan(text, start, one_value=True).end


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
