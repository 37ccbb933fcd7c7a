"""\
What it does
    Checks the tool name against the profile's pattern: ``^[a-zA-Z0-9_-]{1,64}$`` for OpenAI
    and Anthropic, ``^[A-Za-z0-9_.-]{1,128}$`` for MCP.

Why it matters
    The provider rejects the whole request. Dotted names (``math.add``) are the classic case:
    BFCL rewrites them to ``_`` before calling OpenAI.

Example
    ``{"name": "weather.get_forecast", ...}`` under ``--profile openai``.

Fix
    Use letters, digits, ``_`` and ``-`` only, at most 64 characters
    (e.g. ``weather_get_forecast``)."""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.lint.base import LintContext, finding, tool_rule
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC003",
    "invalid-tool-name",
    Severity.error,
    "a tool name the provider rejects",
    doc=__doc__,
)


@tool_rule(RULE)
def check(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """The name against the profile's pattern."""
    p = ctx.profile
    if not p.name_pattern.match(tool.name):
        fixed = (
            "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in tool.name)[
                :64
            ]
            or "tool"
        )
        yield finding(
            RULE,
            tool,
            tool.pointer,
            f'tool name "{tool.name}" does not match {p.name_rule} ({p.name})',
            fix=f'rename it, e.g. "{fixed}"',
        )
