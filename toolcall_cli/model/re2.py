"""Regexes from untrusted places, evaluated with RE2 (pyarrow's regex kernels): linear time.

Python's `re` backtracks: `^(a+)+$` against thirty `a`s and a `b` takes minutes. A pattern
written by someone else — in a tool schema inside the evidence, in a config file found in an
incident bundle — is therefore never run by `re`, only by RE2, which has no backtracking (and
so refuses look-around and back-references: such a pattern is reported, not run).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache


class PatternError(ValueError):
    """RE2 cannot run this pattern (look-around, back-references, bad syntax)."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"pattern {pattern!r} cannot be checked with RE2: {reason}")
        self.pattern = pattern
        self.reason = reason

    @property
    def invalid(self) -> bool:
        """True when the pattern is not a regex at all (Python's `re` refuses it too), as
        opposed to one only RE2 cannot run (look-around, back-references)."""
        try:
            re.compile(self.pattern)  # compiling never backtracks; only matching does
        except (re.error, OverflowError, RecursionError):
            return True
        return False


@lru_cache(maxsize=1024)
def re2_error(pattern: str) -> str | None:
    """Why RE2 refuses *pattern*, or None when it can run it."""
    import pyarrow as pa  # here, not at import: config loading must not cost pyarrow's start-up
    import pyarrow.compute as pc

    try:
        pc.match_substring_regex(pa.array([""], type=pa.large_string()), pattern=pattern)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        return str(e).splitlines()[0].removeprefix("Invalid regular expression: ")
    return None


def check(pattern: str) -> None:
    """Raise `PatternError` when RE2 cannot run *pattern*."""
    reason = re2_error(pattern)
    if reason is not None:
        raise PatternError(pattern, reason)


def search(pattern: str, text: str) -> bool:
    """True when *pattern* matches somewhere in *text* (`re.search` semantics), in RE2."""
    import pyarrow as pa
    import pyarrow.compute as pc

    check(pattern)
    arr = pa.array([text], type=pa.large_string())
    return bool(pc.match_substring_regex(arr, pattern=pattern)[0].as_py())


def search_many(pattern: str, texts: Sequence[str]) -> list[bool]:
    """`search` over many texts in one pass."""
    import pyarrow as pa
    import pyarrow.compute as pc

    check(pattern)
    arr = pa.array(list(texts), type=pa.large_string())
    return [bool(v) for v in pc.match_substring_regex(arr, pattern=pattern).to_pylist()]


def name_groups(pattern: str) -> str:
    """*pattern* with every unnamed capturing group named ``_gN`` (pyarrow's `extract_regex`
    refuses unnamed groups); escapes and character classes are left as they are."""
    out: list[str] = []
    n = 0
    i = 0
    in_class = False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":  # a leading "]" is a member, not the end
                out.append("[]")
                i += 2
                continue
        elif ch == "(" and pattern[i + 1 : i + 2] != "?":
            out.append(f"(?P<_g{n}>")
            n += 1
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)
