"""\
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
    Correct the keyword named in the message so the schema validates against its metaschema."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import orjson

from toolcall_cli.lint.base import LintContext, finding, tool_rule
from toolcall_cli.lint.metaschema import meta_validator, schema_class
from toolcall_cli.lint.walk import MAX_SCHEMA_DEPTH
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.jsonio import canonical
from toolcall_cli.model.linemap import join
from toolcall_cli.model.words import plural
from toolcall_cli.tools.dialect import normalise
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC001",
    "invalid-json-schema",
    Severity.error,
    "a tool schema fails the JSON Schema metaschema",
    doc=__doc__,
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


@tool_rule(RULE)
def check(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Metaschema errors of the parameters and output schema."""
    depth = ctx.too_deep(tool)
    if depth:
        yield finding(
            RULE,
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
                RULE,
                tool,
                ptr,
                f"schema must be a JSON object, got {type(value).__name__}",
                fix='give a JSON Schema object such as {"type": "object", "properties": {}}',
            )
            continue
        norm = normalise(value)
        for rel, msg in _schema_errors(norm, schema_class(norm)):
            yield finding(
                RULE,
                tool,
                ptr + rel,
                f"{msg} (at {ptr + rel or '/'})",
                fix="correct the keyword so the schema validates against its metaschema",
            )
