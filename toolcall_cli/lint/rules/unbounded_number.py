"""\
What it does
    Reports a ``number``/``integer`` with neither a lower nor an upper bound (``minimum``,
    ``maximum`` or their exclusive forms) and no ``enum``/``const``. Skipped under profiles
    that reject ``minimum``/``maximum``.

Why it matters
    Counts, limits and amounts arrive negative or absurdly large; the tool has to defend itself
    against arguments the schema could have refused.

Example
    ``{"limit": {"type": "integer"}}``

Fix
    Add the real range, e.g. ``"minimum": 1, "maximum": 100``."""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.lint.base import LintContext, finding, tool_rule
from toolcall_cli.lint.labels import node_label
from toolcall_cli.lint.walk import json_types
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC006",
    "unbounded-number",
    Severity.info,
    "a number without minimum or maximum",
    doc=__doc__,
)
#: Any one of these bounds the number (an enum or const bounds it completely).
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum", "const")


@tool_rule(RULE)
def check(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Numbers with no bound at all."""
    prof = ctx.profile_for(tool)
    if prof.forbids("minimum") and prof.forbids("maximum"):
        return
    for node in ctx.nodes(tool):
        s = node.schema
        if not json_types(s) & {"number", "integer"} or any(k in s for k in _BOUNDS):
            continue
        yield finding(
            RULE,
            tool,
            node.pointer,
            f"number {node_label(tool, node)} has no minimum or maximum",
            fix='add the real range, e.g. "minimum": 0, "maximum": 1000',
        )
