"""\
What it does
    Reports a tool name defined again, with a different definition, anywhere in the registry
    (across all files given). Identical re-declarations are not reported.

Why it matters
    Registries are maps by name: the later definition silently overrides the earlier one, so
    the model sees one schema and the service validates against the other.

Example
    ``tools/a.json`` and ``tools/b.json`` both define ``search`` with different parameters.

Fix
    Rename one of the tools, or delete the stale definition."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from toolcall_cli.lint.base import LintContext, finding, registry_groups, registry_rule
from toolcall_cli.lint.labels import tool_place
from toolcall_cli.lint.walk import safe_canonical
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC002",
    "duplicate-tool-name",
    Severity.error,
    "a tool name defined twice; the later definition silently overrides",
    doc=__doc__,
)


@registry_rule(RULE)
def check(tools: Sequence[ToolDef], ctx: LintContext) -> Iterator[Finding]:
    """Later definitions of a name that differ from the first one."""
    for group in registry_groups(tools).values():
        first: dict[str, tuple[ToolDef, str]] = {}
        for t in group:
            h = safe_canonical([t.description, t.schema_raw])
            if t.name not in first:
                first[t.name] = (t, h)
                continue
            orig, orig_h = first[t.name]
            if h != orig_h:
                yield finding(
                    RULE,
                    t,
                    t.pointer,
                    f'tool "{t.name}" is already defined at {tool_place(orig)}; '
                    "this definition overrides it",
                    fix="rename one of the tools or delete the stale definition",
                )
