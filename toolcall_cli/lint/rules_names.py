"""Naming rules: SC002 duplicate-tool-name, SC003 invalid-tool-name, SC004 similar-tool-names,
SC009 missing-description.

SC002 and SC004 look at the whole registry: every file given, together (BFCL test entries are
each their own registry, since each is a separate request).

SC002 duplicate-tool-name
-------------------------
What it does
    Reports a tool name defined again, with a different definition, anywhere in the registry
    (across all files given). Identical re-declarations are not reported.

Why it matters
    Registries are maps by name: the later definition silently overrides the earlier one, so
    the model sees one schema and the service validates against the other.

Example
    ``tools/a.json`` and ``tools/b.json`` both define ``search`` with different parameters.

Fix
    Rename one of the tools, or delete the stale definition.

SC003 invalid-tool-name
-----------------------
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
    (e.g. ``weather_get_forecast``).

SC004 similar-tool-names
------------------------
What it does
    Reports pairs of tool names in one registry that are equal ignoring case, or one edit
    (insertion, deletion or substitution) apart.

Why it matters
    Models confuse near names; the call goes to the wrong tool or to a name that does not exist
    (PR002/PR003 at run time).

Example
    ``get_user`` and ``get_users``; ``SendEmail`` and ``sendEmail``.

Fix
    Merge the tools, or rename one so the difference is obvious (``get_user_by_id``).

SC009 missing-description
-------------------------
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
    parameter giving its meaning and format.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from toolcall_cli.lint.base import (
    LintContext,
    finding,
    registry_groups,
    registry_rule,
    section,
    tool_rule,
)
from toolcall_cli.lint.walk import safe_canonical
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.linemap import join
from toolcall_cli.tools.loaders import ToolDef

SC002 = rule(
    "SC002",
    "duplicate-tool-name",
    Severity.error,
    "a tool name defined twice; the later definition silently overrides",
    doc=section(__doc__, "SC002"),
)
SC003 = rule(
    "SC003",
    "invalid-tool-name",
    Severity.error,
    "a tool name the provider rejects",
    doc=section(__doc__, "SC003"),
)
SC004 = rule(
    "SC004",
    "similar-tool-names",
    Severity.warning,
    "tool names equal ignoring case or one edit apart",
    doc=section(__doc__, "SC004"),
)
SC009 = rule(
    "SC009",
    "missing-description",
    Severity.warning,
    "a tool or parameter without a description",
    doc=section(__doc__, "SC009"),
)


def _where(t: ToolDef) -> str:
    return f"{t.file}:{t.line}"


@registry_rule(SC002)
def check_duplicates(tools: Sequence[ToolDef], ctx: LintContext) -> Iterator[Finding]:
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
                    SC002,
                    t,
                    t.pointer,
                    f'tool "{t.name}" is already defined at {_where(orig)}; '
                    "this definition overrides it",
                    fix="rename one of the tools or delete the stale definition",
                )


@tool_rule(SC003)
def check_name(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
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
            SC003,
            tool,
            tool.pointer,
            f'tool name "{tool.name}" does not match {p.name_rule} ({p.name})',
            fix=f'rename it, e.g. "{fixed}"',
        )


def _one_edit(a: str, b: str) -> bool:
    """True when *a* and *b* differ by exactly one insertion, deletion or substitution."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :]


def _near_pairs(names: list[str]) -> set[tuple[str, str]]:
    """Pairs (earlier, later) of distinct names equal ignoring case or one edit apart.

    Candidates come from shared single-deletion variants (symmetric delete), so this is
    linear in the registry size rather than quadratic; `_one_edit` confirms each candidate.
    """
    order = {n: i for i, n in enumerate(names)}
    buckets: dict[str, list[str]] = {}
    for n in names:
        keys = {n, n.casefold()} | {n[:i] + n[i + 1 :] for i in range(len(n))}
        for k in keys:
            buckets.setdefault(k, []).append(n)
    pairs: set[tuple[str, str]] = set()
    for members in buckets.values():
        if len(members) < 2 or len(members) > 200:
            continue
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if a != b and (a.casefold() == b.casefold() or _one_edit(a, b)):
                    pairs.add((a, b) if order[a] < order[b] else (b, a))
    return pairs


@registry_rule(SC004)
def check_similar(tools: Sequence[ToolDef], ctx: LintContext) -> Iterator[Finding]:
    """Near names within each registry."""
    for group in registry_groups(tools).values():
        by_name: dict[str, ToolDef] = {}
        for t in group:
            by_name.setdefault(t.name, t)
        for a, b in sorted(
            _near_pairs(list(by_name)), key=lambda p: (by_name[p[1]].file, by_name[p[1]].line, p)
        ):
            how = "equal ignoring case" if a.casefold() == b.casefold() else "one edit apart"
            later = by_name[b]
            yield finding(
                SC004,
                later,
                later.pointer,
                f'tool "{b}" and "{a}" ({_where(by_name[a])}) are {how}',
                fix="merge the tools or rename one so the difference is obvious",
            )


@tool_rule(SC009)
def check_descriptions(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Tool description, and each top-level property's."""
    if not (tool.description or "").strip():
        ptr = (
            join(tool.pointer, "function")
            if tool.shape == "openai" and "function" in tool.raw
            else tool.pointer
        )
        yield finding(
            SC009,
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
                SC009,
                tool,
                join(tool.schema_pointer, "properties", pname),
                f'parameter "{pname}" of "{tool.name}" has no description',
                fix="add a description giving the parameter's meaning and format",
            )
