"""\
What it does
    Reports an object schema whose ``additionalProperties`` is absent or ``true``. (A schema
    value is an intentional map; strict profiles report that under SC011.) An error under
    strict profiles, which require ``false`` on every object.

Why it matters
    Misspelled or invented arguments pass validation and are silently ignored by the tool, so
    the call "works" with the wrong behaviour.

Example
    ``{"type": "object", "properties": {"city": {"type": "string"}}}``

Fix
    Add ``"additionalProperties": false`` (``toolcall lint --fix`` does it for JSON files)."""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.lint.base import LintContext, finding, tool_rule
from toolcall_cli.lint.labels import node_label
from toolcall_cli.lint.walk import Node, is_object
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC007",
    "open-object",
    Severity.warning,
    "an object whose additionalProperties is not false",
    doc=__doc__,
)


def open_objects(tool: ToolDef, ctx: LintContext) -> Iterator[Node]:
    """Object subschemas with `additionalProperties` absent or true."""
    for node in ctx.nodes(tool):
        s = node.schema
        if not is_object(s) or "$ref" in s or s.get("unevaluatedProperties") is False:
            continue
        if s.get("additionalProperties", True) is True:
            yield node


@tool_rule(RULE)
def check(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Objects that accept unknown keys."""
    strict = ctx.profile_for(tool).strict
    for node in open_objects(tool, ctx):
        state = "true" if "additionalProperties" in node.schema else "absent"
        yield finding(
            RULE,
            tool,
            node.pointer,
            f"object {node_label(tool, node)} accepts unknown properties "
            f"(additionalProperties {state})" + (" — strict mode requires false" if strict else ""),
            fix='add "additionalProperties": false',
            severity=Severity.error if strict else None,
        )
