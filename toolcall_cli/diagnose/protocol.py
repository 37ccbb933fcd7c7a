"""Protocol defects in tool calls and results (PR001–PR007).

PR002/PR003 live in `unknown_tools.py`, PR004/PR005 in `response_contract.py`; this module
imports both so the whole family registers with it.

These rules read the calls and results as the model produced and received them: arguments
that are not a JSON object, names outside the registry, raw payloads stuffed into the
context. PR008 (provider error messages) is in `provider_errors.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd

from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.core.jsonio import try_loads
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose import response_contract as _response_contract  # noqa: F401  (PR004, PR005)
from toolcall_cli.diagnose._byid import objects
from toolcall_cli.diagnose._common import make, text, with_attrs
from toolcall_cli.diagnose._jsontext import damage, depth, looks_json
from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.truncation import tools_by_call
from toolcall_cli.diagnose.unknown_tools import BUILTIN_TOOLS, PR002, PR003  # registers PR002/3

__all__ = ["PR001", "PR002", "PR003", "PR006", "PR007"]

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
    for label, raw in zip(rows.index.tolist(), objects(rows, "tool_call_id"), strict=True):
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
        and a.get("input_format") != "freeform"  # custom tools take free text by design
        and not (a.get("protocol") == "react" and not looks_json(args))
        and not (tool in code_tools and not looks_json(args))  # raw code, by design
        for a, args, tool in zip(
            calls["_attrs"].tolist(),
            calls["args"].astype(str).tolist(),
            objects(calls, "tool"),
            strict=True,
        )
    ]
    kept = calls[_mask(calls, keep)]
    args_of = dict(zip(kept.index.tolist(), objects(kept, "args"), strict=True))
    tool_of = dict(zip(kept.index.tolist(), objects(kept, "tool"), strict=True))
    for cid, labels in _dedupe(kept):
        hurt = damage(str(args_of[labels[0]]))
        if hurt is None:
            continue
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
        tool = text(tool_of[labels[0]])
        yield make(
            PR001,
            ctx,
            f"the arguments of {_call(cid, tool)} are not a JSON object: {hurt.kind}; {repair}",
            labels,
            call_ids=[cid or None],
            extra={"damage": hurt.kind, "repairable": hurt.repairable},
        )


@CLASSIFIERS.register(PR006.code)
def check_raw_json_result(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR006: large or deep raw JSON results, one finding per (session, tool)."""
    ev = with_attrs(ctx)
    res = ev[(ev["kind"] == "tool_result") & ev["detail"].notna()]
    hits: dict[tuple[str, str], list[tuple[Any, int, int]]] = {}
    names = tools_by_call(ev)
    ids = objects(res, "tool_call_id")
    id_of = dict(zip(res.index.tolist(), ids, strict=True))
    for idx, detail, sid, tool, cid in zip(
        res.index.tolist(),
        res["detail"].tolist(),
        objects(res, "session_id"),
        objects(res, "tool"),
        ids,
        strict=True,
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
        rows = [largest[0], *[i for i, _, _ in items if i != largest[0]][:2]]
        yield make(
            PR006,
            ctx,
            f"{len(items)} result(s){f' of {tool}' if tool else ''} are raw JSON "
            f"(largest {largest[1]} characters, {largest[2]} levels deep) instead of a summary",
            rows,
            call_ids=[text(id_of[i]) or None for i in rows],
            session_id=sid or None,
            tool=tool or None,
            extra={"results": len(items), "largest_chars": largest[1]},
        )


@CLASSIFIERS.register(PR007.code)
def check_arguments_not_string(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR007: calls whose arguments were sent as an object (attrs.args_type != "string")."""
    calls = _calls(ctx)
    kinds = [a.get("args_type") for a in calls["_attrs"].tolist()]
    flagged = calls[_mask(calls, [k is not None and k != "string" for k in kinds])]
    tool_of = dict(zip(flagged.index.tolist(), objects(flagged, "tool"), strict=True))
    attrs_of = dict(zip(flagged.index.tolist(), flagged["_attrs"].tolist(), strict=True))
    for cid, labels in _dedupe(flagged):
        tool = text(tool_of[labels[0]])
        yield make(
            PR007,
            ctx,
            f"the arguments of {_call(cid, tool)} were sent as a JSON "
            f"{attrs_of[labels[0]].get('args_type')}, not as a string",
            labels,
            call_ids=[cid or None],
        )
