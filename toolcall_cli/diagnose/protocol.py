"""Protocol defects in tool calls and results (PR001–PR007; PR004/PR005 live in response_contract).

These rules read the calls and results as the model produced and received them: arguments
that are not a JSON object, names outside the registry, raw payloads stuffed into the
context. PR008 (provider error messages) is in `provider_errors.py`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from typing import Any

import pandas as pd

from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.core.jsonio import try_loads
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose import response_contract as _response_contract  # noqa: F401  (PR004, PR005)
from toolcall_cli.diagnose._common import make, text, with_attrs
from toolcall_cli.diagnose._jsontext import damage, depth, looks_json
from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.truncation import tools_by_call

__all__ = ["PR001", "PR002", "PR003", "PR006", "PR007", "declared_tools", "registry_names"]

PR001 = rule(
    "PR001",
    "arguments-not-json",
    Severity.error,
    "arguments that do not parse (says whether a repair exists)",
    doc="""\
What it does
  Flags tool-call arguments that are not a JSON object and names the damage: cut off,
  comments, Python literals (`'single quotes'`, `True`, `None`), trailing commas, unquoted
  keys, double encoding (a JSON string holding JSON), or a non-object value. It says whether
  a repair (json_repair) recovers an object. Empty arguments are accepted as `{}`.

Why it matters
  The middleware's prescreen rejects the call, or a lenient SDK passes a half-parsed object
  to the tool; replaying the history to some providers fails outright.

Example
  `{'city': 'Paris', 'units': None}` from a model imitating Python.

Fix
  Use strict/structured outputs for tool calls, repair arguments at the edge and log the
  repair, and return a tool error that quotes the parse error so the model can retry.
""",
)

PR002 = rule(
    "PR002",
    "unknown-tool",
    Severity.error,
    "a name not in the registry (with did-you-mean)",
    doc="""\
What it does
  Compares each called tool name with the registry (`--tools`, the config's `tools`) or, when
  none is given, with the tools the conversation declared. Names found nowhere are reported
  once per session with a did-you-mean. Skipped when no tool list is known.

Why it matters
  The model invented or misremembered a tool; the middleware rejects the call or, worse, a
  lenient router sends it to whatever matches.

Example
  The model calls `get_wether`; the registry has `get_weather`.

Fix
  Check the tool list sent to the model (a tool missing from this request's `tools`?), keep
  names distinct, and answer unknown names with a tool error that lists the real ones.
""",
)

PR003 = rule(
    "PR003",
    "tool-name-case-mismatch",
    Severity.error,
    "a name that matches a tool only ignoring case",
    doc="""\
What it does
  Reports called names that equal a registered tool only when case is ignored
  (`Get_Weather` for `get_weather`).

Why it matters
  Tool lookup is case-sensitive in most middlewares and providers; the call is rejected
  although the model meant the right tool.

Example
  `SearchFlights` called; the registry has `searchFlights`.

Fix
  Normalise names in one place (or reject similar names at registration: `toolcall lint`
  SC004) and keep one casing convention.
""",
)

PR006 = rule(
    "PR006",
    "raw-json-result",
    Severity.info,
    "raw JSON injected as tool content instead of a summary",
    doc="""\
What it does
  Notes tool results that are a raw JSON object or array larger than 2 KB or nested five or
  more levels deep, once per session and tool, with the largest size.

Why it matters
  Raw payloads spend the context window on structure and push other facts out of it; large
  ones end up truncated (TR002) or rolled out (TR004).

Example
  A 14 KB `search_flights` result with every fare class of every flight.

Fix
  Return a summary plus a handle: the count, the fields the model needs, and a cursor or id
  to fetch the rest with another tool.
""",
)

PR007 = rule(
    "PR007",
    "arguments-not-string",
    Severity.warning,
    "`function.arguments` given as an object",
    doc="""\
What it does
  Flags tool calls whose `function.arguments` was sent as a JSON object (or number, array)
  instead of a JSON-encoded string.

Why it matters
  OpenAI-compatible APIs require a string; replaying such a history is rejected by strict
  providers ("function.arguments must be in JSON format") while lenient ones accept it, so it
  breaks when traffic moves.

Example
  `"function": {"name": "search", "arguments": {"q": "paris"}}`.

Fix
  Serialise arguments with `json.dumps` before adding the assistant message to the history.
""",
)

#: Raw JSON results above this size (characters) or nesting are worth a summary.
RAW_JSON_CHARS = 2048
RAW_JSON_DEPTH = 5

_CALL_KINDS = ("tool_call", "mw_received")


def _call(cid: str | None, tool: str | None) -> str:
    """`call ID (tool)` for messages."""
    return f"call {cid or '(no id)'}" + (f" ({tool})" if tool else "")


def _calls(ctx: DiagnoseContext) -> pd.DataFrame:
    ev = with_attrs(ctx)
    return ev[ev["kind"].isin(_CALL_KINDS)]


def _mask(rows: pd.DataFrame, flags: list[bool]) -> pd.Series:
    """A boolean row mask (a bare empty list would select columns, not rows)."""
    return pd.Series(flags, index=rows.index, dtype=bool)


def _dedupe(rows: pd.DataFrame) -> Iterator[tuple[str | None, list[Any]]]:
    """(tool_call_id, row labels) per call, first row first: rows sharing a non-empty id are
    one call (the conversation and a capture of the same completion)."""
    by_id: dict[str, list[Any]] = {}
    order: list[tuple[str | None, list[Any]]] = []
    for label, raw in zip(rows.index, rows["tool_call_id"], strict=True):
        cid = text(raw)
        if not cid:
            order.append((cid, [label]))
        elif cid in by_id:
            by_id[cid].append(label)
        else:
            by_id[cid] = [label]
            order.append((cid, by_id[cid]))
    yield from order


@CLASSIFIERS.register(PR001.code)
def check_arguments_not_json(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR001: one finding per call whose string arguments are not a JSON object."""
    calls = _calls(ctx)
    calls = calls[calls["args"].notna()]
    code_tools = set(BUILTIN_TOOLS.values())
    keep = [
        a.get("args_type", "string") == "string"
        and not (a.get("protocol") == "react" and not looks_json(args))
        and not (tool in code_tools and not looks_json(args))  # raw code, by design
        for a, args, tool in zip(
            calls["_attrs"], calls["args"].astype(str), calls["tool"], strict=True
        )
    ]
    kept = calls[_mask(calls, keep)]
    for cid, labels in _dedupe(kept):
        hurt = damage(str(kept.at[labels[0], "args"]))
        if hurt is None:
            continue
        rows = kept.loc[labels]
        row = rows.iloc[0]
        if hurt.kind == "cut off":
            repair = "a repair closes it but the cut-off values are lost (see TR003)"
        elif hurt.repairable:
            keys = (
                ", ".join(map(str, list(hurt.repaired)[:5]))
                if isinstance(hurt.repaired, dict)
                else "an array"
            )
            repair = f"a repair recovers it ({keys})"
        else:
            repair = "no repair recovers an object"
        tool = text(row["tool"])
        yield make(
            PR001,
            ctx,
            f"the arguments of {_call(cid, tool)} are not a JSON object: {hurt.kind}; {repair}",
            rows,
            call_ids=[cid or None],
            extra={"damage": hurt.kind, "repairable": hurt.repairable},
        )


#: Built-in tools declared by type only, and the name calls to them carry (functionary and
#: the Assistants API call the code interpreter `python`, with raw code as arguments).
BUILTIN_TOOLS = {"code_interpreter": "python"}


def tool_names(defs: Iterable[Any]) -> set[str]:
    """Names in raw tool definitions (OpenAI, legacy functions, Anthropic, MCP, Bedrock)."""
    out: set[str] = set()
    for d in defs:
        if not isinstance(d, dict):
            continue
        if d.get("type") in BUILTIN_TOOLS and "name" not in d:
            out.add(BUILTIN_TOOLS[str(d["type"])])
            continue
        inner = d.get("function") if isinstance(d.get("function"), dict) else d.get("toolSpec", d)
        name = inner.get("name") if isinstance(inner, dict) else None
        if isinstance(name, str) and name:
            out.add(name)
    return out


def declared_tools(ev: pd.DataFrame) -> dict[str, set[str]]:
    """session_id → tool names the conversation declared (`system` events with attrs.tools)."""
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


def _name_checks(ctx: DiagnoseContext) -> list[tuple[str, str, str, str | None, pd.DataFrame]]:
    """(code, session, name, suggestion, rows) for unknown and case-mismatched names."""

    def build() -> list[tuple[str, str, str, str | None, pd.DataFrame]]:
        ev = with_attrs(ctx)
        declared = declared_tools(ev)
        reg = registry_names(ctx.registry)
        calls = _calls(ctx)
        calls = calls[calls["tool"].notna() & (calls["tool"] != "")]
        out: list[tuple[str, str, str, str | None, pd.DataFrame]] = []
        for (sid, name), rows in calls.groupby([calls["session_id"].fillna(""), "tool"], sort=True):
            known = reg | declared.get(str(sid), set())
            if not known or name in known:
                continue
            lower = {k.lower(): k for k in sorted(known)}
            if str(name).lower() in lower:
                out.append(("PR003", str(sid), str(name), lower[str(name).lower()], rows))
                continue
            close = difflib.get_close_matches(str(name), sorted(known), n=1, cutoff=0.6)
            out.append(("PR002", str(sid), str(name), close[0] if close else None, rows))
        return out

    return ctx.memo("protocol:name_checks", build)


@CLASSIFIERS.register(PR002.code)
def check_unknown_tool(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR002: one finding per (session, unknown name), with a did-you-mean."""
    for code, sid, name, hint, rows in _name_checks(ctx):
        if code != "PR002":
            continue
        ids = [t for c in rows["tool_call_id"] if (t := text(c))]
        mean = f"; did you mean {hint!r}?" if hint else ""
        yield make(
            PR002,
            ctx,
            f"{len(rows)} call(s) to {name!r}, which is not a known tool{mean}",
            rows,
            call_ids=ids,
            session_id=sid or None,
            tool=name,
            extra={"did_you_mean": hint},
        )


@CLASSIFIERS.register(PR003.code)
def check_name_case(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR003: one finding per (session, name) that matches a tool only ignoring case."""
    for code, sid, name, hint, rows in _name_checks(ctx):
        if code != "PR003":
            continue
        ids = [t for c in rows["tool_call_id"] if (t := text(c))]
        yield make(
            PR003,
            ctx,
            f"{len(rows)} call(s) to {name!r}; the tool is named {hint!r} (case-sensitive)",
            rows,
            call_ids=ids,
            session_id=sid or None,
            tool=name,
            extra={"tool_name": hint},
        )


@CLASSIFIERS.register(PR006.code)
def check_raw_json_result(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR006: large or deep raw JSON results, one finding per (session, tool)."""
    ev = with_attrs(ctx)
    res = ev[(ev["kind"] == "tool_result") & ev["detail"].notna()]
    hits: dict[tuple[str, str], list[tuple[Any, int, int]]] = {}
    names = tools_by_call(ev)
    for idx, detail, sid, tool, cid in zip(
        res.index, res["detail"], res["session_id"], res["tool"], res["tool_call_id"], strict=True
    ):
        if not looks_json(detail):
            continue
        if len(detail) <= RAW_JSON_CHARS and detail.count("{") + detail.count("[") < RAW_JSON_DEPTH:
            continue  # too small and too flat to matter: skip the parse
        parsed = try_loads(detail)
        if not isinstance(parsed, dict | list):
            continue
        d = depth(parsed)
        if len(detail) <= RAW_JSON_CHARS and d < RAW_JSON_DEPTH:
            continue
        name = text(tool) or names.get(text(cid) or "", "")
        key = (text(sid) or "", name)
        hits.setdefault(key, []).append((idx, len(detail), d))
    for (sid, tool), items in sorted(hits.items()):
        largest = max(items, key=lambda t: t[1])
        rows = res.loc[[largest[0], *[i for i, _, _ in items if i != largest[0]][:2]]]
        yield make(
            PR006,
            ctx,
            f"{len(items)} result(s){f' of {tool}' if tool else ''} are raw JSON "
            f"(largest {largest[1]} characters, {largest[2]} levels deep) instead of a summary",
            rows,
            call_ids=[text(c) or None for c in rows["tool_call_id"]],
            session_id=sid or None,
            tool=tool or None,
            extra={"results": len(items), "largest_chars": largest[1]},
        )


@CLASSIFIERS.register(PR007.code)
def check_arguments_not_string(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR007: calls whose arguments were sent as an object (attrs.args_type != "string")."""
    calls = _calls(ctx)
    kinds = [a.get("args_type") for a in calls["_attrs"]]
    flagged = calls[_mask(calls, [k is not None and k != "string" for k in kinds])]
    for cid, labels in _dedupe(flagged):
        rows = flagged.loc[labels]
        row = rows.iloc[0]
        tool = text(row["tool"])
        yield make(
            PR007,
            ctx,
            f"the arguments of {_call(cid, tool)} were sent as a JSON "
            f"{row['_attrs'].get('args_type')}, not as a string",
            rows,
            call_ids=[cid or None],
        )
