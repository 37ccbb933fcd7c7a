"""\
What it does
    Checks that every ``default`` value, and every ``enum`` value, is valid against the schema
    it sits in (subschemas containing ``$ref`` are skipped).

Why it matters
    A model that copies the default, or picks an enum value, produces arguments your own
    validator rejects: a silent validation drop waiting to happen.

Example
    ``{"type": "integer", "minimum": 1, "default": 0}`` or ``{"type": "string", "enum": ["a", 1]}``

Fix
    Change the default/enum value, or widen the schema so it accepts it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import orjson

from toolcall_cli.lint.base import LintContext, finding, tool_rule
from toolcall_cli.lint.metaschema import schema_class
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.jsonio import canonical
from toolcall_cli.model.linemap import join
from toolcall_cli.tools.dialect import normalise
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC014",
    "invalid-default",
    Severity.error,
    "a default or enum value that fails its own schema",
    doc=__doc__,
)


@tool_rule(RULE)
def check(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
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
                    RULE,
                    tool,
                    join(node.pointer, "default"),
                    f"default {canonical(s['default'])[:80]} fails its schema: {err[0][1]}",
                    fix="change the default or widen the schema",
                )
        if isinstance(s.get("enum"), list):
            for i, msg in _errors(norm, s["enum"], drop=("default", "enum", "const")):
                yield finding(
                    RULE,
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
            return ()  # a regex RE2 cannot run is reported by SC001, never run
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
