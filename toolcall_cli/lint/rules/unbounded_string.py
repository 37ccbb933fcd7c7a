"""\
What it does
    Reports a required string parameter with no ``minLength`` (and no ``enum``, ``const``,
    ``pattern`` or ``format`` to bound it). Skipped under profiles that reject ``minLength``
    (``openai-strict-finetuned``).

Why it matters
    ``""`` satisfies the schema, so a model that has nothing to say passes an empty string and
    the tool receives a call that validates but means nothing.

Example
    ``{"properties": {"query": {"type": "string"}}, "required": ["query"]}``

Fix
    Add ``"minLength": 1`` (and a ``maxLength`` that fits the tool)."""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.lint.base import LintContext, finding, tool_rule
from toolcall_cli.lint.walk import json_types
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC005",
    "unbounded-string",
    Severity.info,
    "a required string without minLength",
    doc=__doc__,
)
#: Keywords besides minLength that already keep "" out (or say what the string holds).
_BOUNDS = ("enum", "const", "pattern", "format")


@tool_rule(RULE)
def check(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Required strings that accept ""."""
    if ctx.profile_for(tool).forbids("minLength"):
        return
    for node in ctx.nodes(tool):
        s = node.schema
        if not node.required or "string" not in json_types(s):
            continue
        if "minLength" in s or any(k in s for k in _BOUNDS):
            continue
        yield finding(
            RULE,
            tool,
            node.pointer,
            f'required string "{node.name}" has no minLength ("" is valid)',
            fix='add "minLength": 1',
        )
