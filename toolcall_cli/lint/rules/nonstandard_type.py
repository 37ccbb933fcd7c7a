"""\
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
    and drop ``type`` (or list the allowed types) for ``any``."""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.lint.base import LintContext, finding, tool_rule
from toolcall_cli.lint.walk import types_of
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.linemap import join
from toolcall_cli.tools.dialect import JSON_TYPES, json_type
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC010",
    "nonstandard-type",
    Severity.error,
    "a type that is not a JSON Schema type (dict, float, any, ...)",
    doc=__doc__,
)


@tool_rule(RULE)
def check(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Type names outside JSON Schema's seven."""
    for node in ctx.nodes(tool):
        bad = [t for t in types_of(node.schema) if t not in JSON_TYPES]
        for t in bad:
            want = json_type(t)
            hint = f'use "{want}"' if want else 'drop "type" or list the accepted JSON Schema types'
            yield finding(
                RULE,
                tool,
                join(node.pointer, "type"),
                f'type "{t}" is not a JSON Schema type',
                fix=hint,
            )
