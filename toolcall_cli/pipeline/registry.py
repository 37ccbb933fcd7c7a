"""The tool registry replay validates against: tool name → JSON Schema of its arguments.

Built from `--tools` files (any format `lint` reads, via `lint.loaders.load_tools`), from the
config's `tools`, or from the tools a session declared (a `system` event with `attrs.tools`).
A name defined twice is a :class:`UsageError` naming both places — a middleware that let the
later definition win silently is exactly the kind of defect replay exists to expose.

BFCL function docs use a Python dialect of JSON Schema (`dict`, `float`, `tuple`, `any`, and
Java/JavaScript names in some files); :func:`normalise_schema` maps them to JSON Schema
before validation, and drops any other type name jsonschema would not know.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

import pandas as pd

from toolcall_cli.core.jsonio import canonical, try_loads
from toolcall_cli.errors import UsageError

JSON_TYPES: Final = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})

#: Non-standard type names → JSON Schema type (None = any type).
DIALECT_TYPES: Final[dict[str, str | None]] = {
    "dict": "object", "hashmap": "object", "map": "object", "tuple": "array", "list": "array",
    "arraylist": "array", "float": "number", "double": "number", "int": "integer",
    "long": "integer", "short": "integer", "byte": "integer", "str": "string", "char": "string",
    "bool": "boolean", "any": None, "": None,
}  # fmt: skip

_SCHEMA_MAPS: Final = (
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
)
_SCHEMA_LISTS: Final = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE: Final = ("items", "additionalProperties", "not", "if", "then", "else", "contains")


class ToolDefLike(Protocol):
    """The fields of `lint.loaders.ToolDef` the registry uses."""

    @property
    def name(self) -> str: ...
    @property
    def parameters(self) -> dict[str, Any]: ...
    @property
    def file(self) -> str: ...
    @property
    def pointer(self) -> str: ...
    @property
    def line(self) -> int: ...


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


def normalise_schema(schema: Any) -> Any:
    """A copy of *schema* with BFCL/dialect type names mapped to JSON Schema (recursively)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if "type" in out:
        out["type"] = _norm_type(out["type"])
        if out["type"] is None:
            del out["type"]
    for key in _SCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {k: normalise_schema(v) for k, v in out[key].items()}
    for key in _SCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [normalise_schema(v) for v in out[key]]
    for key in _SCHEMA_ONE:
        if key in out:
            val = out[key]
            out[key] = (
                [normalise_schema(v) for v in val]
                if isinstance(val, list)
                else normalise_schema(val)
            )
    return out


def _norm_type(t: Any) -> Any:
    if isinstance(t, list):
        mapped = [_norm_type(x) for x in t]
        return None if any(m is None for m in mapped) else list(dict.fromkeys(mapped))
    if not isinstance(t, str):
        return None
    low = t.lower()
    return low if low in JSON_TYPES else DIALECT_TYPES.get(low)  # unknown names → any type


def _location(d: ToolDefLike) -> str:
    loc = f"{d.file}:{d.line}" if d.line else d.file
    return f"{loc}#{d.pointer}" if d.pointer else loc


def registry_from_defs(defs: Iterable[ToolDefLike], *, source: str = "tools") -> ToolRegistry:
    """A registry of *defs*; a name defined twice is a UsageError naming both definitions."""
    tools: dict[str, RegisteredTool] = {}
    for d in defs:
        params = d.parameters if isinstance(d.parameters, dict) else {}
        tool = RegisteredTool(d.name, normalise_schema(params), _location(d))
        if d.name in tools:
            raise UsageError(
                f"tool {d.name!r} is defined twice: {tools[d.name].location} and {tool.location}",
                hint="remove or rename one; replay never lets the later definition win silently",
            )
        tools[d.name] = tool
    return ToolRegistry(tools=tools, source=source)


def registry_from_paths(paths: Sequence[Path]) -> ToolRegistry:
    """A registry from tool-definition files (every format `toolcall lint` reads)."""
    from toolcall_cli.lint.loaders import load_tools

    return registry_from_defs(load_tools(list(paths)), source=", ".join(str(p) for p in paths))


def declared_tools(events: pd.DataFrame) -> list[tuple[str, list[Any]]]:
    """(origin, raw tool definitions) of every `system` event in *events* that declares tools."""
    rows = events[(events["kind"] == "system") & events["attrs"].fillna("").str.contains('"tools"')]
    out: list[tuple[str, list[Any]]] = []
    for origin, text in zip(rows["origin"], rows["attrs"], strict=True):
        attrs = try_loads(text)
        tools = attrs.get("tools") if isinstance(attrs, dict) else None
        if isinstance(tools, list) and tools:
            out.append((str(origin), tools))
    return out


def registry_from_session(events: pd.DataFrame) -> ToolRegistry | None:
    """The registry the recorded session declared, or None when it declared no tools.

    Every round trip re-sends the tools, sometimes in another provider's shape: a tool declared
    again with the same (normalised) schema is the same tool. A later round trip that declares
    a tool with another schema (e.g. strict for one provider, loose for the next) does not
    replace it: the first declaration is used and the registry's notes say so. A name twice in
    one declaration is a UsageError naming both.
    """
    declared = declared_tools(events)
    if not declared:
        return None
    from toolcall_cli.lint.loaders import tools_from_objects

    unique: dict[str, Any] = {}
    notes: list[str] = []
    for origin, objs in declared:
        defs = tools_from_objects(objs, file=origin)
        registry_from_defs(defs)  # a name twice in one declaration: UsageError
        for d in defs:
            key = canonical(normalise_schema(d.parameters))
            prev = unique.setdefault(d.name, (key, d))
            if prev[0] != key:
                notes.append(
                    f"tool {d.name!r} is declared again with another schema at {_location(d)}; "
                    f"replay uses the first declaration ({_location(prev[1])})"
                )
    reg = registry_from_defs([d for _, d in unique.values()], source="session")
    return ToolRegistry(tools=reg.tools, source=reg.source, notes=tuple(dict.fromkeys(notes)))
