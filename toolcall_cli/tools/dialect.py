"""BFCL's dialect of JSON Schema mapped to JSON Schema: the one type table lint and replay share.

BFCL function docs (and tool files written in their image) say ``dict``, ``float``, ``tuple``
and ``any``, and the Java/JavaScript categories use language names (``String``, ``HashMap``,
``long``, ``ArrayList``, ``Boolean``, ``double``, ``char``, even ``""``). Lint reports each such
name (SC010) and then checks the *mapped* schema (SC001, SC005/SC006, SC014); replay validates
arguments against the mapped schema. Both map with :data:`DIALECT_TYPES` through
:func:`json_type`, so what lint calls "a string parameter" is what replay validates as one.

Why this table:

- It is BFCL's own conversion (``GORILLA_TO_OPENAPI`` in ``bfcl_eval/constants/
  type_mappings.py``, which BFCL applies before sending docs to a function-calling API), looked
  up case-insensitively so ``String``/``Boolean``/``Array`` are the JSON types they spell.
- One deliberate difference: ``any`` (and ``""``) mean *no type constraint*, not BFCL's
  ``"string"``. BFCL turns ``any`` into ``string`` because its Java/JavaScript categories pass
  every value as source text; a Python-category ``any`` parameter accepts a number or a list,
  and replay must not reject a valid call.
- A name neither JSON Schema nor the table knows also means "any type": guessing would make
  replay reject calls the real middleware (which ignores unknown types) accepted.
- In a list of types, one "any" member makes the whole list "any" (a union with everything is
  everything); duplicates after mapping are dropped (JSON Schema wants unique type names).
  Non-string members are kept so the metaschema check (SC001) still reports them, and a
  non-string, non-list ``type`` is kept as written for the same reason.
"""

from __future__ import annotations

from typing import Any, Final

#: JSON Schema's seven type names (case-sensitive, as the specification spells them).
JSON_TYPES: Final = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})

#: Dialect type name (lower-cased) → JSON Schema type; None = any type (no constraint).
DIALECT_TYPES: Final[dict[str, str | None]] = {
    "dict": "object", "hashmap": "object", "hashtable": "object", "map": "object",
    "tuple": "array", "list": "array", "arraylist": "array", "queue": "array", "stack": "array",
    "float": "number", "double": "number",
    "int": "integer", "long": "integer", "short": "integer", "byte": "integer",
    "bigint": "integer",
    "str": "string", "char": "string",
    "bool": "boolean",
    "any": None, "": None,
}  # fmt: skip

#: Keywords whose values are data, not schemas: never rewritten.
_VALUE_KEYS: Final = frozenset(
    {"enum", "const", "default", "examples", "required", "dependentRequired"}
)
#: Keywords holding a map of name → schema (the names are not keywords).
_MAP_KEYS: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)


def json_type(name: str) -> str | None:
    """The JSON Schema type *name* stands for; None when it constrains nothing (any/unknown)."""
    if name in JSON_TYPES:
        return name
    low = name.lower()
    return low if low in JSON_TYPES else DIALECT_TYPES.get(low)


def normalise_type(value: Any) -> Any:
    """The ``type`` keyword's value mapped to JSON Schema; None means drop the keyword."""
    if isinstance(value, str):
        return json_type(value)
    if not isinstance(value, list):
        return value  # not a type name at all: kept for the metaschema to report
    mapped: list[Any] = []
    for member in value:
        m = json_type(member) if isinstance(member, str) else member
        if m is None:
            return None
        if m not in mapped:
            mapped.append(m)
    return mapped


def normalise(schema: Any) -> Any:
    """A copy of *schema* with dialect type names mapped to JSON Schema, at every level.

    The input is not modified. Values of data keywords (``enum``, ``default``, ...) are copied
    as they are; a property called ``type`` is a name, not the keyword.
    """
    if isinstance(schema, list):
        return [normalise(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            mapped = normalise_type(value)
            if mapped is not None:
                out[key] = mapped
        elif key in _VALUE_KEYS:
            out[key] = value
        elif key in _MAP_KEYS and isinstance(value, dict):
            out[key] = {name: normalise(sub) for name, sub in value.items()}
        else:
            out[key] = normalise(value)
    return out
