"""Tool lists over a session's time, for PR010: every declared list (whose view it is, when it
was declared), the change notifications, and a schema fingerprint per tool.

A list declared by a tool-server source (`TOOL_SERVER_SOURCES`: an MCP `tools/list` result, a
middleware's registry line) is what the server validates against; a list declared anywhere else
(a chat request's `tools`, a conversation's tool block) is what the model saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.frames import with_attrs
from toolcall_cli.model.events import CALL_KINDS, TOOL_LIST_CHANGE_KINDS, TOOL_SERVER_SOURCES
from toolcall_cli.model.jsonio import canonical_hash

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, slots=True)
class Declared:
    """One tool list as declared in a session: its row, order key, side and schemas by name."""

    label: int  # row label in the context's event table
    order: tuple[float, int]  # (epoch seconds or +inf when unclocked, seq)
    server: bool  # the tool server's own list (else: the model's view)
    schemas: dict[str, Any]  # tool name → its input schema (None when it declares none)


@dataclass(frozen=True, slots=True)
class SessionLists:
    """What PR010 reads of one session."""

    lists: tuple[Declared, ...]
    changes: tuple[tuple[int, tuple[float, int]], ...]  # (label, order) of change notices
    calls: tuple[tuple[int, tuple[float, int], str], ...]  # (label, order, tool)


def input_schema(tool: Any) -> tuple[str | None, Any]:
    """(name, input schema) of a raw tool definition (OpenAI, Anthropic, MCP, Bedrock)."""
    if not isinstance(tool, dict):
        return None, None
    inner = tool.get("function") if isinstance(tool.get("function"), dict) else tool
    inner = inner.get("toolSpec", inner) if isinstance(inner, dict) else {}
    name = inner.get("name")
    for key in ("inputSchema", "parameters", "input_schema"):
        if key in inner:
            schema = inner[key]
            if isinstance(schema, dict) and isinstance(schema.get("json"), dict):
                schema = schema["json"]  # Bedrock: {"json": {...}}
            return (name if isinstance(name, str) else None), schema
    return (name if isinstance(name, str) else None), None


def fingerprint(schema: Any) -> str:
    """A stable hash of a tool's input schema (key order and spacing do not count)."""
    return canonical_hash(schema)


def session_lists(ctx: DiagnoseContext) -> dict[str, SessionLists]:
    """session_id → its declared lists, change notices and calls (sessions that declared a
    tool list only), computed once per context."""

    def build() -> dict[str, SessionLists]:
        ev = with_attrs(ctx)
        declares = (ev["kind"] == "system") & ev["session_id"].notna()
        sub = ev[(declares | ev["kind"].isin(TOOL_LIST_CHANGE_KINDS | CALL_KINDS))]
        sub = sub[sub["session_id"].isin(ev.loc[declares, "session_id"].unique())]
        out: dict[str, SessionLists] = {}
        for sid, rows in sub.groupby("session_id", sort=True):
            got = _one(rows)
            if got.lists and got.calls:
                out[str(sid)] = got
        return out

    return ctx.memo("pr010_session_lists", build)


def _one(rows: pd.DataFrame) -> SessionLists:
    import pandas as pd

    lists: list[Declared] = []
    changes: list[tuple[int, tuple[float, int]]] = []
    calls: list[tuple[int, tuple[float, int], str]] = []
    for label, kind, source, ts, seq, tool, attrs in zip(
        rows.index.tolist(),
        rows["kind"].tolist(),
        rows["source"].tolist(),
        rows["ts"].tolist(),
        rows["seq"].tolist(),
        rows["tool"].tolist(),
        rows["_attrs"].tolist(),
        strict=True,
    ):
        order = (float("inf") if pd.isna(ts) else ts.timestamp(), int(seq))
        if kind == "system":
            tools = attrs.get("tools") if isinstance(attrs, dict) else None
            if isinstance(tools, list):
                schemas = {n: sch for n, sch in map(input_schema, tools) if n is not None}
                lists.append(Declared(int(label), order, source in TOOL_SERVER_SOURCES, schemas))
        elif kind in TOOL_LIST_CHANGE_KINDS:
            changes.append((int(label), order))
        elif isinstance(tool, str) and tool:
            calls.append((int(label), order, tool))
    return SessionLists(
        tuple(sorted(lists, key=lambda d: d.order)),
        tuple(sorted(changes, key=lambda c: c[1])),
        tuple(sorted(calls, key=lambda c: c[1])),
    )


def schema_change(before: Any, after: Any) -> str:
    """What differs between two input schemas, in a few words (properties and `required`)."""

    def parts(s: Any) -> tuple[set[str], set[str]]:
        props = s.get("properties") if isinstance(s, dict) else None
        req = s.get("required") if isinstance(s, dict) else None
        return (
            set(props) if isinstance(props, dict) else set(),
            {str(r) for r in req} if isinstance(req, list) else set(),
        )

    (p0, r0), (p1, r1) = parts(before), parts(after)
    said = []
    for label, old, new in (("parameters", p0, p1), ("required", r0, r1)):
        if new - old:
            said.append(f"{label} added: {', '.join(sorted(new - old))}")
        if old - new:
            said.append(f"{label} removed: {', '.join(sorted(old - new))}")
    return "; ".join(said) or "the schema changed"
