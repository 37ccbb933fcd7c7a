"""OTLP value normalisation: AnyValue (every type), ids, times and enums, in each encoding.

OTLP/JSON writes ids as hex and enums as integers; the protobuf JSON mapping (Grafana/Tempo
downloads, `json_format` output) writes ids as base64 and enums as names; 64-bit integers are
strings in both. Everything here returns a plain Python value or :data:`BAD` / None, never raises.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Sequence
from typing import Any, Final

#: A value of the wrong shape (counted by the caller, never guessed).
BAD: Final = object()

#: Plausible span times: 2001-09-09 .. 2096-10-02 in ns (anything else is not a time).
MIN_NS: Final = 1_000_000_000_000_000_000
MAX_NS: Final = 4_000_000_000_000_000_000
_HEX = frozenset("0123456789abcdefABCDEF")

SPAN_KINDS: Final = ("unspecified", "internal", "server", "client", "producer", "consumer")
STATUS_CODES: Final = ("unset", "ok", "error")


#: The scalar fields of an AnyValue, in the order `any_value` tries them.
SCALAR_FIELDS: Final = ("stringValue", "intValue", "doubleValue", "boolValue", "bytesValue")


def scalar_value(name: str, v: Any) -> Any:
    """The value of AnyValue field *name* (one of SCALAR_FIELDS) written as *v*; BAD for a
    wrong shape. Bytes are kept as the base64 text they were written as."""
    if name == "stringValue" or name == "bytesValue":
        return v if isinstance(v, str) else BAD
    if name == "intValue":
        return _int(v)
    if name == "doubleValue":
        return _double(v)
    return v if isinstance(v, bool) else BAD


def any_value(v: Any, depth: int = 0) -> Any:
    """An OTLP/JSON `AnyValue` object as Python; BAD for a wrong shape, None for an empty value.

    Plain scalars (some exporters write `"value": "text"`) are taken as they are.
    """
    if depth > 32:
        return BAD
    if isinstance(v, str | bool | int | float) or v is None:
        return v
    if not isinstance(v, dict):
        return BAD
    if not v:
        return None
    for name in SCALAR_FIELDS:
        if name in v:
            return scalar_value(name, v[name])
    if "arrayValue" in v:
        arr = v["arrayValue"]
        items = arr.get("values", []) if isinstance(arr, dict) else BAD
        if not isinstance(items, list):
            return BAD
        out = [any_value(x, depth + 1) for x in items]
        return BAD if any(x is BAD for x in out) else out
    if "kvlistValue" in v:
        kv = v["kvlistValue"]
        items = kv.get("values", []) if isinstance(kv, dict) else BAD
        if not isinstance(items, list):
            return BAD
        res: dict[str, Any] = {}
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("key"), str):
                return BAD
            val = any_value(item.get("value"), depth + 1)
            if val is BAD:
                return BAD
            res[item["key"]] = val
        return res
    return BAD


def _int(x: Any) -> Any:
    if isinstance(x, bool):
        return BAD
    if isinstance(x, int):
        return x
    if isinstance(x, str):
        try:
            return int(x)
        except ValueError:
            return BAD
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return BAD


def _double(x: Any) -> Any:
    if isinstance(x, bool):
        return BAD
    if isinstance(x, int | float):
        return float(x)
    if isinstance(x, str):  # the proto JSON mapping writes "NaN", "Infinity", "-Infinity"
        try:
            f = float(x)
        except ValueError:
            return BAD
        return None if math.isnan(f) or math.isinf(f) else f
    return BAD


def hex_id(v: Any, nbytes: int) -> str | None:
    """A trace (16 bytes) or span (8 bytes) id as lowercase hex from hex, base64 or raw bytes.

    None for anything else, including the all-zero id (invalid per the spec).
    """
    if isinstance(v, bytes | bytearray):
        raw = bytes(v)
    elif isinstance(v, str):
        s = v.strip()
        if len(s) == 2 * nbytes and _HEX.issuperset(s):
            raw = bytes.fromhex(s)
        else:
            try:
                raw = base64.b64decode(s, validate=True)
            except (binascii.Error, ValueError):
                return None
    else:
        return None
    if len(raw) != nbytes or not any(raw):
        return None
    return raw.hex()


def nanos(v: Any) -> int | None:
    """A `*UnixNano` value (number or decimal string) when it is a plausible time, else None."""
    n = _int(v)
    if n is BAD or not isinstance(n, int) or not MIN_NS <= n <= MAX_NS:
        return None
    return n


def micros(v: Any) -> int | None:
    """A Jaeger µs time as ns (None when implausible)."""
    n = _int(v)
    return nanos(n * 1000) if isinstance(n, int) else None


def span_kind(v: Any) -> str:
    """`SPAN_KIND_CLIENT`, 3, "client" → "client" (unknown → "unspecified")."""
    return _enum(v, SPAN_KINDS, "span_kind_", "unspecified")


def status_code(v: Any) -> str:
    """`STATUS_CODE_ERROR`, 2, "ERROR" → "error" (unknown → "unset")."""
    return _enum(v, STATUS_CODES, "status_code_", "unset")


def _enum(v: Any, names: Sequence[str], prefix: str, unknown: str) -> str:
    """An OTLP enum given as its number, its proto name or its short name → the short name."""
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(names):
        return names[v]
    if isinstance(v, str):
        name = v.lower().removeprefix(prefix)
        if name in names:
            return name
    return unknown
