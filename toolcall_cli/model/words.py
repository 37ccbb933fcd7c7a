"""Counted nouns in messages: `1 call`, `2 calls`, `0 entries` — never `1 calls`.

Every user-facing message that puts a number before a noun goes through :func:`plural`
(`tests/test_grammar.py` scans the source for f-strings that do not, and checks every noun the
messages count with 0, 1 and 2).
"""

from __future__ import annotations

from typing import Final

#: How a call without an id (absent or empty) is named, in findings and every view.
NO_ID: Final = "(no id)"

#: Nouns whose plural is not "+s" (or "y" → "ies").
IRREGULAR: Final = {"info": "info", "child": "children", "index": "indexes", "match": "matches",
                    "bus": "buses", "status": "statuses", "process": "processes"}  # fmt: skip


def plural_of(noun: str) -> str:
    """The plural form of *noun* (English rules enough for the nouns toolcall counts)."""
    if noun in IRREGULAR:
        return IRREGULAR[noun]
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def plural(n: int | float, noun: str, many: str | None = None, *, spec: str = "") -> str:
    """`1 call`, `0 calls`, `2 calls`; *many* overrides the plural form, *spec* formats the
    number (`","` → `1,024 bytes`)."""
    shown = format(n, spec or ("g" if isinstance(n, float) else ""))
    return f"{shown} {noun if n == 1 else (many or plural_of(noun))}"


def verb(n: int | float, singular: str, plural_form: str) -> str:
    """The verb form agreeing with a count: `verb(1, "disagrees", "disagree")`."""
    return singular if n == 1 else plural_form
