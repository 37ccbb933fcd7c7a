"""The lint rule protocol: per-tool and whole-registry checks, their registry and helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolcall_cli.lint.profiles import Profile
from toolcall_cli.lint.walk import MAX_SCHEMA_DEPTH, Node, json_depth, walk
from toolcall_cli.model.config_keys import DEFAULT_TOKEN_BUDGET
from toolcall_cli.model.findings import Finding, Location, Rule, Severity
from toolcall_cli.model.registry import Registry
from toolcall_cli.tools.loaders import ToolDef


@dataclass(frozen=True, slots=True)
class LintContext:
    """What every rule may consult: the profile, budgets and the lock file."""

    profile: Profile
    token_budget: int = DEFAULT_TOKEN_BUDGET
    lock: Path | None = None
    root: Path = field(default_factory=Path.cwd)
    _nodes: dict[int, tuple[ToolDef, list[Node]]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def too_deep(self, tool: ToolDef) -> int:
        """The schema's JSON depth when it exceeds MAX_SCHEMA_DEPTH, else 0."""
        depth = max(json_depth(tool.schema_raw), json_depth(tool.output_schema))
        return depth if depth > MAX_SCHEMA_DEPTH else 0

    def nodes(self, tool: ToolDef) -> list[Node]:
        """Every subschema of the tool's parameters, walked once per lint run."""
        hit = self._nodes.get(id(tool))
        if hit is None or hit[0] is not tool:
            hit = (tool, list(walk(tool.schema_raw, tool.schema_pointer)))
            self._nodes[id(tool)] = hit
        return hit[1]

    def profile_for(self, tool: ToolDef) -> Profile:
        """The profile, switched to strict when an OpenAI tool declares `"strict": true`."""
        if self.profile.provider == "openai" and is_strict_tool(tool):
            return self.profile.with_strict()
        return self.profile


ToolCheck = Callable[[ToolDef, LintContext], Iterator[Finding]]
RegistryCheck = Callable[[Sequence[ToolDef], LintContext], Iterator[Finding]]


@dataclass(frozen=True, slots=True)
class LintRule:
    """A lint rule: its catalogue entry and one check (per tool, or over the whole registry)."""

    rule: Rule
    per_tool: ToolCheck | None = None
    per_registry: RegistryCheck | None = None


#: SC codes → LintRule; filled by the rule modules `lint/rules/__init__.py` imports.
LINT_RULES: Registry[LintRule] = Registry("lint rule")


def tool_rule(r: Rule) -> Callable[[ToolCheck], ToolCheck]:
    """Register *fn* as the per-tool check of rule *r*."""

    def deco(fn: ToolCheck) -> ToolCheck:
        LINT_RULES.add(r.code, LintRule(r, per_tool=fn))
        return fn

    return deco


def registry_rule(r: Rule) -> Callable[[RegistryCheck], RegistryCheck]:
    """Register *fn* as the whole-registry check of rule *r*."""

    def deco(fn: RegistryCheck) -> RegistryCheck:
        LINT_RULES.add(r.code, LintRule(r, per_registry=fn))
        return fn

    return deco


def finding(
    r: Rule,
    tool: ToolDef,
    pointer: str,
    message: str,
    *,
    fix: str | None = None,
    severity: Severity | None = None,
    extra: dict[str, Any] | None = None,
) -> Finding:
    """A finding of rule *r* about *tool*, located at *pointer* in its file."""
    kw: dict[str, Any] = {}
    if severity is not None:
        kw["severity"] = severity
    if extra:
        kw["extra"] = extra
    return Finding.of(
        r,
        message,
        fix=fix,
        tool=tool.name,
        location=Location(
            path=tool.file,
            line=tool.line_of(pointer),
            pointer=pointer,
            column=tool.column_of(pointer),
        ),
        **kw,
    )


def is_strict_tool(tool: ToolDef) -> bool:
    """True when the tool itself opts into OpenAI strict mode."""
    fn = tool.raw.get("function")
    if isinstance(fn, dict) and fn.get("strict") is True:
        return True
    return tool.raw.get("strict") is True


def registry_groups(tools: Iterable[ToolDef]) -> dict[str, list[ToolDef]]:
    """Tools grouped by the registry they belong to.

    Everything given is one registry, except BFCL test entries (``{"id", "question",
    "function": [...]}`` lines): each entry is a separate request with its own tool list.
    """
    out: dict[str, list[ToolDef]] = {}
    for t in tools:
        if t.shape == "bfcl" and t.pointer.startswith("/function/"):
            key = f"{t.file}:{t.line}"
        else:
            key = ""
        out.setdefault(key, []).append(t)
    return out
