"""\
What it does
    Reports a tool without a description, and top-level parameters without one.

Why it matters
    The description is the only documentation the model reads; without it, the model guesses
    when and how to call the tool.

Example
    ``{"name": "lookup", "parameters": {"type": "object",
    "properties": {"q": {"type": "string"}}}}``

Fix
    Add a one-sentence ``description`` saying what the tool does and when to use it, and one per
    parameter giving its meaning and format."""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.lint.base import LintContext, finding, tool_rule
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.linemap import join
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC009",
    "missing-description",
    Severity.warning,
    "a tool or parameter without a description",
    doc=__doc__,
)


@tool_rule(RULE)
def check(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Tool description, and each top-level property's."""
    if not (tool.description or "").strip():
        ptr = (
            join(tool.pointer, "function")
            if tool.shape == "openai" and "function" in tool.raw
            else tool.pointer
        )
        yield finding(
            RULE,
            tool,
            ptr,
            f'tool "{tool.name}" has no description',
            fix="add a description saying what the tool does and when to use it",
        )
    props = tool.parameters.get("properties")
    if not isinstance(props, dict):
        return
    for pname, ps in props.items():
        if (
            isinstance(ps, dict)
            and "$ref" not in ps
            and not str(ps.get("description") or "").strip()
        ):
            yield finding(
                RULE,
                tool,
                join(tool.schema_pointer, "properties", pname),
                f'parameter "{pname}" of "{tool.name}" has no description',
                fix="add a description giving the parameter's meaning and format",
            )
