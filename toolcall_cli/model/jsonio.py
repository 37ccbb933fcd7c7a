"""JSON helpers built on orjson: safe loading, canonical dumps, attrs encoding."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

#: Nesting deeper than this is refused before parsing (orjson's own limit is 1024, but a
#: pathological input should fail fast and clearly).
MAX_DEPTH = 512


class JSONError(ValueError):
    """Text that is not JSON (or nested too deep)."""


def loads(text: str | bytes) -> Any:
    """Parse JSON text; raise :class:`JSONError` on anything orjson refuses."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as e:
        raise JSONError(str(e)) from None
    except RecursionError:
        raise JSONError("JSON nested too deeply") from None


def try_loads(text: str | bytes | None) -> Any | None:
    """Parse JSON or return None."""
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except (orjson.JSONDecodeError, RecursionError):
        return None


def dumps(obj: Any) -> str:
    """Compact JSON text (non-str keys allowed)."""
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS, default=str).decode()


def canonical(obj: Any) -> str:
    """Canonical JSON text (sorted keys, compact): equal data gives equal text."""
    return orjson.dumps(
        obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=str
    ).decode()


def canonical_hash(obj: Any) -> str:
    """sha256 of the canonical JSON text."""
    return hashlib.sha256(canonical(obj).encode()).hexdigest()


def attrs(**fields: Any) -> str | None:
    """Encode the `attrs` column: a JSON object of the non-null fields, or None when empty."""
    clean = {k: v for k, v in fields.items() if v is not None}
    return dumps(clean) if clean else None


def pretty(obj: Any) -> str:
    """Indented, key-sorted JSON for machine-readable output."""
    return orjson.dumps(
        obj,
        option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
        default=str,
    ).decode()
