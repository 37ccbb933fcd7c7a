"""The tool registry replay validates against: tool name → JSON Schema of its arguments.

Built from `--tools` files (any format `lint` reads, via `tools.loaders.load_tools`), from the
config's `tools`, or from the tools a session declared (a `system` event with `attrs.tools`);
a provider built-in the session declared by type only (`{"type": "code_interpreter"}`) is
registered under the name its calls carry, without a schema (`tools.builtins`, as PR002 has it).
A name defined twice is a :class:`UsageError` naming both places — a middleware that let the
later definition win silently is exactly the kind of defect replay exists to expose.

BFCL function docs use a Python dialect of JSON Schema (`dict`, `float`, `tuple`, `any`, and
Java/JavaScript names in some files); each registered schema is mapped to JSON Schema with
`tools.dialect.normalise`, the same table lint checks against.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from toolcall_cli.errors import UsageError
from toolcall_cli.model.jsonio import canonical, try_loads
from toolcall_cli.tools.builtins import builtin_name
from toolcall_cli.tools.dialect import normalise
from toolcall_cli.tools.loaders import ToolDef, load_tools, tools_from_objects

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, slots=True)
class RegisteredTool:
    """One tool: its normalised argument schema and where it was defined."""

    name: str
    schema: dict[str, Any]
    location: str  # "file:line#pointer"


@dataclass(frozen=True, slots=True)
class ToolRegistry:
    """Tools by exact (case-sensitive) name."""

    tools: Mapping[str, RegisteredTool]
    source: str = "tools"  # where the registry came from, for reports
    notes: tuple[str, ...] = field(default=())
    #: For a session's registry: where its declarations were, in words (a source trait)
    declared_in: tuple[str, ...] = field(default=())

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    def get(self, name: str) -> RegisteredTool | None:
        """The tool called exactly *name*, or None."""
        return self.tools.get(name)

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self.tools)

    def case_match(self, name: str) -> str | None:
        """The registered name equal to *name* ignoring case (when *name* itself is absent)."""
        low = name.lower()
        return next((n for n in self.names() if n.lower() == low and n != name), None)

    def suggest(self, name: str, *, n: int = 3) -> list[str]:
        """Did-you-mean candidates: a case-only match first, then difflib's close names."""
        out = [c] if (c := self.case_match(name)) else []
        pool = {k.lower(): k for k in self.names()}
        for cand in difflib.get_close_matches(name.lower(), list(pool), n=n, cutoff=0.75):
            if pool[cand] not in out and pool[cand] != name:
                out.append(pool[cand])
        return out[:n]


def _location(d: ToolDef) -> str:
    loc = f"{d.file}:{d.line}" if d.line else d.file
    return f"{loc}#{d.pointer}" if d.pointer else loc


def registry_from_defs(defs: Iterable[ToolDef], *, source: str = "tools") -> ToolRegistry:
    """A registry of *defs*; a name defined twice is a UsageError naming both definitions."""
    tools: dict[str, RegisteredTool] = {}
    for d in defs:
        params = d.parameters if isinstance(d.parameters, dict) else {}
        tool = RegisteredTool(d.name, normalise(params), _location(d))
        if d.name in tools:
            raise UsageError(
                f"tool {d.name!r} is defined twice: {tools[d.name].location} and {tool.location}",
                hint="remove or rename one; replay never lets the later definition win silently",
            )
        tools[d.name] = tool
    return ToolRegistry(tools=tools, source=source)


def registry_from_paths(paths: Sequence[Path]) -> ToolRegistry:
    """A registry from tool-definition files (every format `toolcall lint` reads)."""
    return registry_from_defs(load_tools(list(paths)), source=", ".join(str(p) for p in paths))


class Declaration(NamedTuple):
    """One `system` event that declares tools: its origin, the raw definitions, and where the
    declaration was in words (its source's `declares_tools_in` trait)."""

    origin: str
    tools: list[Any]
    where: str


def declared_tools(events: pd.DataFrame) -> list[tuple[str, list[Any]]]:
    """(origin, raw tool definitions) of every `system` event in *events* that declares tools."""
    return [(d.origin, d.tools) for d in declarations_at(events).values()]


def declarations_at(events: pd.DataFrame) -> dict[int, Declaration]:
    """Every declaration by the position of its row in *events* (in frame order)."""
    import numpy as np

    from toolcall_cli.model.events import TRAITS

    declares = (events["kind"] == "system") & events["attrs"].fillna("").str.contains('"tools"')
    at = np.flatnonzero(declares.to_numpy(dtype=bool))
    out: dict[int, Declaration] = {}
    for pos, origin, source, text in zip(
        at.tolist(),
        events["origin"].iloc[at],
        events["source"].iloc[at],
        events["attrs"].iloc[at],
        strict=True,
    ):
        attrs = try_loads(text)
        tools = attrs.get("tools") if isinstance(attrs, dict) else None
        if isinstance(tools, list) and tools:
            out[pos] = Declaration(str(origin), tools, TRAITS[str(source)].declares_tools_in)
    return out


def registry_from_session(events: pd.DataFrame) -> ToolRegistry | None:
    """The registry the recorded session declared, or None when it declared no tools.

    Every round trip re-sends the tools, sometimes in another provider's shape: a tool declared
    again with the same (normalised) schema is the same tool. A later round trip that declares
    a tool with another schema (e.g. strict for one provider, loose for the next) does not
    replace it: the first declaration is used and the registry's notes say so. A name twice in
    one declaration is a UsageError naming both.
    """
    return registry_from_declarations(list(declarations_at(events).values()))


def registry_from_declarations(declared: Sequence[Declaration]) -> ToolRegistry | None:
    """`registry_from_session` of the declarations a session made."""
    if not declared:
        return None
    unique: dict[str, Any] = {}
    notes: list[str] = []
    builtins: dict[str, RegisteredTool] = {}  # declared by type only: a name, no schema
    for origin, objs, _ in declared:
        for name in filter(None, map(builtin_name, objs)):
            builtins.setdefault(name, RegisteredTool(name, {}, origin))
        defs = tools_from_objects(objs, file=origin)
        registry_from_defs(defs)  # a name twice in one declaration: UsageError
        for d in defs:
            key = canonical(normalise(d.parameters))
            prev = unique.setdefault(d.name, (key, d))
            if prev[0] != key:
                notes.append(
                    f"tool {d.name!r} is declared again with another schema at {_location(d)}; "
                    f"replay uses the first declaration ({_location(prev[1])})"
                )
    reg = registry_from_defs([d for _, d in unique.values()], source="session")
    return ToolRegistry(
        tools={**builtins, **reg.tools},
        source=reg.source,
        notes=tuple(dict.fromkeys(notes)),
        declared_in=tuple(dict.fromkeys(d.where for d in declared)),
    )
