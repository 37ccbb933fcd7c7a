"""Walking a JSON Schema: every subschema with its pointer, and the shape questions rules ask of
one (BFCL's type names: `tools.dialect`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolcall_cli.model.jsonio import canonical
from toolcall_cli.model.linemap import escape
from toolcall_cli.model.words import plural
from toolcall_cli.tools.dialect import json_type

_MAP_KEYS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_ONE_KEYS = (
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
)
_LIST_KEYS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")
MAX_DEPTH = 64
#: Schemas nested deeper than this (JSON levels) are reported by SC001 and not analysed further.
MAX_SCHEMA_DEPTH = 100
_KIND = {
    **{k: "map" for k in _MAP_KEYS},
    **{k: "one" for k in _ONE_KEYS},
    **{k: "list" for k in _LIST_KEYS},
    "items": "one+list",
}


@dataclass(frozen=True, slots=True)
class Node:
    """One subschema: where it is and how it hangs off its parent."""

    schema: dict[str, Any]
    pointer: str
    via: str  # the keyword that led here ("" for the root)
    name: str | None  # property name when via == "properties"
    required: bool  # listed in the parent's `required`
    depth: int  # object nesting level (root object = 1)


def types_of(schema: dict[str, Any]) -> tuple[str, ...]:
    """The `type` keyword as a tuple of strings (non-strings kept out)."""
    t = schema.get("type")
    if isinstance(t, str):
        return (t,)
    if isinstance(t, list):
        return tuple(x for x in t if isinstance(x, str))
    return ()


def json_types(schema: dict[str, Any]) -> set[str]:
    """The `type` keyword's names, dialect names (BFCL's `dict`, `float`...) mapped to JSON's."""
    return {json_type(t) or t for t in types_of(schema)}


def missing_required(schema: dict[str, Any]) -> list[str]:
    """Properties of an object schema that are not in its `required` (strict mode wants all)."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return []
    req = schema.get("required")
    listed = set(req) if isinstance(req, list) else set()
    return [p for p in props if p not in listed]


def is_object(schema: dict[str, Any]) -> bool:
    """An object schema: type object (or a dialect name for one), or untyped with `properties`."""
    ts = types_of(schema)
    if ts:
        return any(json_type(t) == "object" for t in ts)
    return isinstance(schema.get("properties"), dict)


def walk(schema: Any, pointer: str) -> Iterator[Node]:
    """Every subschema of *schema* (which sits at *pointer*), root first; `$ref`s not followed."""
    if isinstance(schema, dict):
        yield from _walk(schema, pointer, "", None, False, 1 if is_object(schema) else 0, 0)


def _walk(
    s: dict[str, Any], ptr: str, via: str, name: str | None, req: bool, depth: int, level: int
) -> Iterator[Node]:
    yield Node(s, ptr, via, name, req, depth)
    if level >= MAX_DEPTH:
        return
    for key, child in s.items():
        kind = _KIND.get(key)
        if kind is None:
            continue
        base = f"{ptr}/{key}"
        if isinstance(child, dict):
            if kind == "map":
                required = s.get("required") if key == "properties" else None
                req_set = required if isinstance(required, list) else ()
                for k, sub in child.items():
                    if isinstance(sub, dict):
                        d = depth + 1 if is_object(sub) else depth
                        yield from _walk(
                            sub,
                            f"{base}/{escape(k)}",
                            key,
                            k if key == "properties" else None,
                            k in req_set,
                            d,
                            level + 1,
                        )
            elif kind != "list":
                d = depth + 1 if is_object(child) else depth
                yield from _walk(child, base, key, None, False, d, level + 1)
        elif isinstance(child, list) and kind in ("list", "one+list"):
            nest = key in ("prefixItems", "items")
            for i, sub in enumerate(child):
                if isinstance(sub, dict):
                    d = depth + 1 if nest and is_object(sub) else depth
                    yield from _walk(sub, f"{base}/{i}", key, None, False, d, level + 1)


def json_depth(value: Any) -> int:
    """Nesting depth of a JSON value (iterative: safe on any input orjson accepted)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v)
    return deepest


def safe_canonical(value: Any) -> str:
    """Canonical JSON text, also for values nested deeper than orjson serialises (255 levels)."""
    try:
        return canonical(value)
    except TypeError:
        pass
    try:
        return json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
        )
    except (RecursionError, ValueError):
        return f"<nested too deeply: {plural(json_depth(value), 'level')}>"
