"""Schema-validity rules: SC001 invalid-json-schema, SC010 nonstandard-type, SC014 invalid-default.

SC001 invalid-json-schema
-------------------------
What it does
    Validates each tool's parameters (and an MCP tool's ``outputSchema``) against the JSON
    Schema metaschema of its ``$schema`` draft (default 2020-12). Non-standard type names
    (BFCL's ``dict``/``float``/``tuple``/``any``, Java/JS types) are mapped or dropped first:
    SC010 reports those, SC001 reports everything else.

Why it matters
    Providers validate tool schemas on every request; an invalid one is a 400 for the whole
    request, not just for the broken tool.

Example
    ``{"type": "object", "properties": {"n": {"type": "integer", "minimum": "1"}}}``
    (``minimum`` must be a number).

Fix
    Correct the keyword named in the message so the schema validates against its metaschema.

SC010 nonstandard-type
----------------------
What it does
    Flags ``type`` values that are not JSON Schema types (``string``, ``number``, ``integer``,
    ``boolean``, ``object``, ``array``, ``null``), such as BFCL's ``dict``, ``float``,
    ``tuple``, ``any`` or language types like ``String`` and ``HashMap``.

Why it matters
    OpenAI and Anthropic reject the schema; validators that ignore unknown types accept any
    value, so the model's arguments are never checked.

Example
    ``{"type": "dict", "properties": {"x": {"type": "float"}}}``

Fix
    Use ``object`` for ``dict``, ``number`` for ``float``, ``array`` for ``tuple``/``list``,
    and drop ``type`` (or list the allowed types) for ``any``.

SC014 invalid-default
---------------------
What it does
    Checks that every ``default`` value, and every ``enum`` value, is valid against the schema
    it sits in (subschemas containing ``$ref`` are skipped).

Why it matters
    A model that copies the default, or picks an enum value, produces arguments your own
    validator rejects: a silent validation drop waiting to happen.

Example
    ``{"type": "integer", "minimum": 1, "default": 0}`` or ``{"type": "string", "enum": ["a", 1]}``

Fix
    Change the default/enum value, or widen the schema so it accepts it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import orjson

from toolcall_cli.lint.base import LintContext, finding, section, tool_rule
from toolcall_cli.lint.metaschema import meta_validator, schema_class
from toolcall_cli.lint.walk import MAX_SCHEMA_DEPTH, types_of
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.jsonio import canonical
from toolcall_cli.model.linemap import join
from toolcall_cli.model.words import plural
from toolcall_cli.tools.dialect import JSON_TYPES, json_type, normalise
from toolcall_cli.tools.loaders import ToolDef

SC001 = rule(
    "SC001",
    "invalid-json-schema",
    Severity.error,
    "a tool schema fails the JSON Schema metaschema",
    doc=section(__doc__, "SC001"),
)
SC010 = rule(
    "SC010",
    "nonstandard-type",
    Severity.error,
    "a type that is not a JSON Schema type (dict, float, any, ...)",
    doc=section(__doc__, "SC010"),
)
SC014 = rule(
    "SC014",
    "invalid-default",
    Severity.error,
    "a default or enum value that fails its own schema",
    doc=section(__doc__, "SC014"),
)
MAX_ERRORS = 5


@lru_cache(maxsize=16384)
def _meta_errors(text: str, cls: Any) -> tuple[tuple[str, str], ...]:
    """(relative pointer, message) errors of one canonical schema text (cached)."""
    from toolcall_cli.model.schema_re2 import unsafe_pattern  # jsonschema loads when used

    schema = orjson.loads(text)
    errors = sorted(
        meta_validator(cls).iter_errors(schema), key=lambda e: [str(p) for p in e.absolute_path]
    )
    out = [(join("", *e.absolute_path), e.message[:300]) for e in errors[:MAX_ERRORS]]
    unsafe = unsafe_pattern(schema)  # toolcall never runs such a regex; say so
    if unsafe is not None and not unsafe.invalid:  # an invalid regex: the metaschema said so
        out.append(("", str(unsafe)[:300]))
    return tuple(out)


def _schema_errors(schema: dict[str, Any], cls: Any) -> list[tuple[str, str]]:
    """Metaschema errors of *schema*, validating each property subschema on its own.

    A property's subschema is checked against the same metaschema as the root, so splitting
    at ``properties`` gives the same verdicts while letting the cache hit on the property
    schemas that a registry repeats across tools.
    """
    props = schema.get("properties")
    if not isinstance(props, dict) or not all(isinstance(v, dict) for v in props.values()):
        return list(_meta_errors(canonical(schema), cls))
    top = {**schema, "properties": {key: {} for key in props}}
    out = list(_meta_errors(canonical(top), cls))
    for name, sub in props.items():
        out.extend((join("/properties", name) + p, m) for p, m in _schema_errors(sub, cls))
    return out[:MAX_ERRORS]


@tool_rule(SC001)
def check_metaschema(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Metaschema errors of the parameters and output schema."""
    depth = ctx.too_deep(tool)
    if depth:
        yield finding(
            SC001,
            tool,
            tool.schema_pointer,
            f"schema nested {plural(depth, 'level')} deep (over {MAX_SCHEMA_DEPTH}); not "
            "analysed further",
            fix="flatten the schema; providers limit nesting (OpenAI strict mode: 10 levels)",
        )
        return
    for value, ptr in (
        (tool.schema_raw, tool.schema_pointer),
        (tool.output_schema, tool.output_pointer),
    ):
        if value is None or ptr is None:
            continue
        if not isinstance(value, dict):
            yield finding(
                SC001,
                tool,
                ptr,
                f"schema must be a JSON object, got {type(value).__name__}",
                fix='give a JSON Schema object such as {"type": "object", "properties": {}}',
            )
            continue
        norm = normalise(value)
        for rel, msg in _schema_errors(norm, schema_class(norm)):
            yield finding(
                SC001,
                tool,
                ptr + rel,
                f"{msg} (at {ptr + rel or '/'})",
                fix="correct the keyword so the schema validates against its metaschema",
            )


@tool_rule(SC010)
def check_types(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Type names outside JSON Schema's seven."""
    for node in ctx.nodes(tool):
        bad = [t for t in types_of(node.schema) if t not in JSON_TYPES]
        for t in bad:
            want = json_type(t)
            hint = f'use "{want}"' if want else 'drop "type" or list the accepted JSON Schema types'
            yield finding(
                SC010,
                tool,
                join(node.pointer, "type"),
                f'type "{t}" is not a JSON Schema type',
                fix=hint,
            )


@tool_rule(SC014)
def check_values(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """default/enum values checked against their own subschema."""
    for node in ctx.nodes(tool):
        s = node.schema
        if "default" not in s and not isinstance(s.get("enum"), list):
            continue
        norm = normalise(s)
        if "$ref" in canonical(norm):
            continue
        if "default" in s:
            err = _errors(norm, [s["default"]], drop=("default",))
            if err:
                yield finding(
                    SC014,
                    tool,
                    join(node.pointer, "default"),
                    f"default {canonical(s['default'])[:80]} fails its schema: {err[0][1]}",
                    fix="change the default or widen the schema",
                )
        if isinstance(s.get("enum"), list):
            for i, msg in _errors(norm, s["enum"], drop=("default", "enum", "const")):
                yield finding(
                    SC014,
                    tool,
                    join(node.pointer, "enum", i),
                    f"enum value {canonical(s['enum'][i])[:80]} fails its schema: {msg}",
                    fix="remove the value or widen the schema",
                )


def _errors(
    schema: dict[str, Any], values: list[Any], *, drop: tuple[str, ...]
) -> tuple[tuple[int, str], ...]:
    """(index, message) of the *values* that *schema* (minus *drop* keywords) rejects."""
    sub = {k: v for k, v in schema.items() if k not in drop}
    return _value_errors(canonical(sub), canonical(values))


@lru_cache(maxsize=16384)
def _value_errors(schema_text: str, values_text: str) -> tuple[tuple[int, str], ...]:
    import jsonschema  # here, not at import: `toolcall rules` lists SC014 without it
    from jsonschema.exceptions import SchemaError
    from referencing.exceptions import Unresolvable

    from toolcall_cli.model.schema_re2 import re2_class, unsafe_pattern

    sub = orjson.loads(schema_text)
    out = []
    try:
        if unsafe_pattern(sub) is not None:
            return ()  # a regex RE2 cannot run is reported by SC001 (_meta_errors), never run
        validator = re2_class(schema_class(sub))(sub)
        for i, v in enumerate(orjson.loads(values_text)):
            if not validator.is_valid(v):
                err = jsonschema.exceptions.best_match(validator.iter_errors(v))
                out.append((i, err.message[:200] if err is not None else "invalid"))
    except (
        re.error,
        SchemaError,
        TypeError,
        ValueError,
        LookupError,
        Unresolvable,
    ):
        return ()  # an invalid schema is SC001's business
    return tuple(out)
