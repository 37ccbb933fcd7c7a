"""Tool names: the names a call may use, for PR002 (unknown) and PR003 (known only ignoring
case). The known names are the registry's (`--tools`, config `tools`) plus the tools each
conversation declared; without either, the rules stay silent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.frames import first_rows, with_attrs
from toolcall_cli.diagnose.rules.protocol.name_suggestion import suggest
from toolcall_cli.model.events import OBSERVED_CALL_KINDS
from toolcall_cli.tools.builtins import builtin_name

if TYPE_CHECKING:
    import pandas as pd


def _calls(ctx: DiagnoseContext) -> pd.DataFrame:
    ev = with_attrs(ctx)
    return ev[ev["kind"].isin(OBSERVED_CALL_KINDS)]


def tool_names(defs: Iterable[Any]) -> set[str]:
    """Names in raw tool definitions (OpenAI, legacy functions, Anthropic, MCP, Bedrock)."""
    out: set[str] = set()
    for d in defs:
        if not isinstance(d, dict):
            continue
        builtin = builtin_name(d)
        if builtin is not None:
            out.add(builtin)
            continue
        inner = d.get("function") if isinstance(d.get("function"), dict) else d.get("toolSpec", d)
        name = inner.get("name") if isinstance(inner, dict) else None
        if isinstance(name, str) and name:
            out.add(name)
    return out


def declared_tools(ev: pd.DataFrame) -> dict[str, set[str]]:
    """session_id → tool names the conversation declared (`system` events with attrs.tools)."""
    import pandas as pd

    out: dict[str, set[str]] = {}
    sys_rows = ev[ev["kind"] == "system"]
    for sid, a in zip(sys_rows["session_id"], sys_rows["_attrs"], strict=True):
        tools = a.get("tools")
        if isinstance(tools, list) and pd.notna(sid):
            out.setdefault(str(sid), set()).update(tool_names(tools))
    return out


def registry_names(registry: Any) -> set[str]:
    """Tool names of a pipeline ToolRegistry (duck-typed: `names()`, `tools`, or iteration)."""
    if registry is None:
        return set()
    names = getattr(registry, "names", None)
    got: Any = names() if callable(names) else names
    if got is None:
        got = getattr(registry, "tools", None)
    if isinstance(got, dict):
        return {str(k) for k in got}
    if got is None:
        return set()
    return {str(getattr(t, "name", t)) for t in got}


def name_checks(ctx: DiagnoseContext) -> list[tuple[str, str, str, str | None, pd.DataFrame]]:
    """(code, session, name, suggestion, rows) for unknown and case-mismatched names."""

    import pandas as pd

    def build() -> list[tuple[str, str, str, str | None, pd.DataFrame]]:
        ev = with_attrs(ctx)
        declared = declared_tools(ev)
        reg = registry_names(ctx.registry)
        calls = _calls(ctx)
        calls = calls[calls["tool"].notna() & (calls["tool"] != "")]
        if not reg and not declared:
            return []
        sids = calls["session_id"].fillna("").astype(str)
        # decide per distinct (session, name) pair, then slice rows only for the bad pairs
        named = pd.DataFrame({"sid": sids, "tool": calls["tool"].astype(str)})
        pairs = first_rows(named, ["sid", "tool"])
        bad = {
            (s, n)
            for s, n in zip(pairs["sid"], pairs["tool"], strict=True)
            if (reg or declared.get(s)) and n not in reg and n not in declared.get(s, set())
        }
        out: list[tuple[str, str, str, str | None, pd.DataFrame]] = []
        if not bad:
            return out
        hit = [(s, str(n)) in bad for s, n in zip(sids, calls["tool"], strict=True)]
        flagged = calls[pd.Series(hit, index=calls.index, dtype=bool)]
        for (sid, name), rows in flagged.groupby([sids[flagged.index], "tool"], sort=True):
            sid, name = str(sid), str(name)
            known = reg | declared.get(sid, set())
            lower = {k.lower(): k for k in sorted(known)}
            if str(name).lower() in lower:
                out.append(("PR003", str(sid), str(name), lower[str(name).lower()], rows))
                continue
            out.append(("PR002", str(sid), str(name), suggest(name, known), rows))
        return out

    return ctx.memo("protocol:name_checks", build)
