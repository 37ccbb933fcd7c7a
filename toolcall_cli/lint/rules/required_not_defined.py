"""\
What it does
    Reports a ``required`` entry that is not among the object's ``properties`` (nor those of its
    direct ``allOf``/``anyOf``/``oneOf`` branches).

Why it matters
    With ``additionalProperties: false`` no value can satisfy the schema; without it, the model
    is told to send a field it has no description or type for.

Example
    ``{"properties": {"city": {}}, "required": ["ctiy"]}``

Fix
    Fix the spelling, add the property, or remove it from ``required``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolcall_cli.lint.base import LintContext, finding, tool_rule
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.linemap import join
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC008",
    "required-not-defined",
    Severity.error,
    "a required entry missing from properties",
    doc=__doc__,
)
#: Subschemas reached through these may require their parent's properties.
_BRANCHES = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"})


def _declared(s: dict[str, Any]) -> set[str]:
    names = set(s["properties"]) if isinstance(s.get("properties"), dict) else set()
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in s.get(key) or ():
            if isinstance(branch, dict) and isinstance(branch.get("properties"), dict):
                names |= set(branch["properties"])
    return names


@tool_rule(RULE)
def check(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """required entries with no property."""
    for node in ctx.nodes(tool):
        req = node.schema.get("required")
        if not isinstance(req, list) or node.via in _BRANCHES:
            continue  # a combinator branch may require its parent's properties
        declared = _declared(node.schema)
        for i, name in enumerate(req):
            if isinstance(name, str) and name not in declared:
                yield finding(
                    RULE,
                    tool,
                    join(node.pointer, "required", i),
                    f'"{name}" is required but not defined in properties',
                    fix="fix the spelling, add the property, or drop it from required",
                )
