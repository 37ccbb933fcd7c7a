"""Silent truncation: dropped calls, cut results, cut arguments, rolled-out history (TR001–TR004).

Each of these breaks the tool contract without an error anywhere: the model reasons on
incomplete facts. The rules read every source: the conversation, middleware logs, the access
log and the capture (wire sizes).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pandas as pd

from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose._byid import objects, rows_by_call
from toolcall_cli.diagnose._common import attr, make, text, with_attrs
from toolcall_cli.diagnose._jsontext import cut_json, parses
from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.context_window import TR004, rolled_history
from toolcall_cli.diagnose.silent_drop import TR001  # registers TR001

__all__ = ["TR001", "TR002", "TR003", "TR004", "tools_by_call", "truncation_signals"]

TR002 = rule(
    "TR002",
    "result-truncated",
    Severity.warning,
    "a tool result cut short (marker, cut JSON, length at a budget, smaller than on the wire)",
    doc="""\
What it does
  Flags tool results cut short: a truncation marker (`...[truncated]`, `<truncated>`,
  `... (1234 more characters)`), a JSON object or array that does not close, a length exactly
  at the tool's budget (`[budgets]`, default 1,000 characters; common limits such as 4,096 or
  8,192 when the text stops mid-token), or a message smaller than the response on the wire
  when it also stops mid-token.

Why it matters
  The model receives an incomplete fact and treats it as complete; cut JSON invites it to
  guess the rest.

Example
  `search` returned 5,234 bytes on the wire; the tool message holds 1,000 characters ending in
  `{"id": 17, "na`.

Fix
  Return a summary plus a handle (count, key fields, a cursor or resource id the model can
  fetch with another tool) instead of cutting the raw payload; paginate large results.
""",
)

TR003 = rule(
    "TR003",
    "arguments-truncated",
    Severity.error,
    "arguments JSON cut off (unbalanced), often with finish_reason: length",
    doc="""\
What it does
  Flags tool-call arguments whose JSON stops before it closes (a brace, bracket or string
  left open), or that are empty while the completion stopped with `finish_reason: "length"`.
  It fires even when a router rewrote `finish_reason` to `tool_calls` or `stop`.

Why it matters
  The completion ran out of output tokens mid-call; whatever runs the call gets partial
  arguments or a parse error, and the model never learns why.

Example
  `{"query": "flights from SFO to` with `finish_reason: "length"`.

Fix
  Raise `max_tokens` (or `max_completion_tokens`) for tool-calling turns, keep tool
  arguments small, and treat `finish_reason: "length"` as a failed call, not as a call.
""",
)

#: Truncation markers that tools, frameworks and middlewares append.
_MARKER = re.compile(
    r"\[\s*(?:output |content |result |response |text )?truncated[^\]\n]{0,60}\]"
    r"|(?:\.\.\.|…)\s*\(\s*(?:output\s+)?truncated[^)\n]{0,40}\)"
    r"|<truncated\s*/?>"
    r"|(?:\.\.\.|…)\s*\(?\s*\d[\d,]*\s+more\s+(?:characters|chars|bytes|tokens|lines|items|rows)\s*\)?"
    r"|\[\s*(?:\.\.\.|…)?\s*\d[\d,]*\s+(?:characters|chars|bytes|tokens|lines)\s+(?:truncated|omitted)[^\]\n]{0,30}\]",
    re.IGNORECASE,
)

#: Limits frameworks commonly cut at; only trusted when the text also stops mid-token.
COMMON_BUDGETS = frozenset({1000, 1024, 2000, 2048, 4000, 4096, 8000, 8192, 16000, 16384, 32768})

_RESULT_KINDS = ("tool_result",)
_WIRE_KINDS = ("http_response", "mw_response", "http_access")


def _mid_token(value: str) -> bool:
    """The text ends inside a word, number or string (not at a sentence or bracket end)."""
    s = value.rstrip("\r\n")
    return bool(s) and (s[-1].isalnum() or s[-1] in "\"',:-_")


def truncation_signals(detail: str, *, budget: int, wire_size: int | None = None) -> list[str]:
    """Why *detail* (a tool result) looks cut short; an empty list when it looks whole."""
    out: list[str] = []
    m = _MARKER.search(detail)
    if m:
        out.append(f"marker {m.group(0).strip()!r}")
    sh = cut_json(detail)
    if sh is not None:
        opened = "".join(sh.open) + ('"' if sh.in_string else "")
        out.append(f"JSON cut off with {opened!r} still open")
    whole = parses(detail)
    n = len(detail)
    if n == budget and not whole:
        out.append(f"length {n} is exactly the tool's budget")
    elif n in COMMON_BUDGETS and not whole and _mid_token(detail):
        out.append(f"length {n} is a common budget and the text stops mid-token")
    nbytes = len(detail.encode("utf-8", errors="replace"))
    if wire_size is not None and wire_size > nbytes and not whole and (_mid_token(detail) or out):
        out.append(f"{nbytes} bytes in the message but {wire_size} on the wire")
    return out


def tools_by_call(ev: pd.DataFrame) -> dict[str, str]:
    """tool_call_id → tool name from the calls (tool results often carry only the id)."""
    calls = ev[(ev["kind"] == "tool_call") & ev["tool_call_id"].notna() & ev["tool"].notna()]
    ids, tools = calls["tool_call_id"].astype(str).tolist(), calls["tool"].astype(str).tolist()
    return dict(zip(ids, tools, strict=True))


def _wire_sizes(ev: pd.DataFrame) -> dict[str, int]:
    """tool_call_id → the largest tool-service response body seen on the wire or logged."""
    wire = ev[ev["kind"].isin(_WIRE_KINDS) & ev["tool_call_id"].notna() & ev["tool"].notna()]
    if not len(wire):
        return {}
    sizes = (
        wire["size"].astype("Float64").fillna(pd.to_numeric(attr(wire, "size"), errors="coerce"))
    )
    out: dict[str, int] = {}
    for cid, size in zip(wire["tool_call_id"].astype(str).tolist(), sizes.tolist(), strict=True):
        if pd.notna(size) and int(size) > out.get(cid, -1):
            out[cid] = int(size)
    return out


def _call(cid: str | None, tool: str | None) -> str:
    """`call ID (tool)` for messages."""
    return f"call {cid or '(no id)'}" + (f" ({tool})" if tool else "")


@CLASSIFIERS.register(TR002.code)
def check_result_truncated(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TR002: one finding per tool result (per call id) that looks cut short."""
    ev = with_attrs(ctx)
    results = ev[ev["kind"].isin(_RESULT_KINDS) & ev["detail"].notna()]
    if not len(results):
        return
    wire = _wire_sizes(ev)
    names = tools_by_call(ev)
    kinds = ev["kind"].to_numpy(dtype=object)
    seen: set[str] = set()
    for idx, raw, raw_id, raw_tool in zip(
        results.index.tolist(),
        results["detail"].tolist(),
        objects(results, "tool_call_id"),
        objects(results, "tool"),
        strict=True,
    ):
        detail = str(raw)
        cid = text(raw_id)
        key = cid or f"#{idx}"
        if key in seen:
            continue
        tool = text(raw_tool) or (names.get(cid) if cid else None)
        budget = ctx.cfg.budgets.for_tool(tool)
        signals = truncation_signals(detail, budget=budget, wire_size=wire.get(cid or ""))
        if not signals:
            continue
        seen.add(key)
        rows = [idx]
        if cid:
            rows += [i for i in rows_by_call(ctx).labels(cid) if kinds[i] in _WIRE_KINDS][:2]
        who = (
            f"the result of {_call(cid, tool)}"
            if cid
            else f"a result{f' of {tool}' if tool else ''}"
        )
        yield make(
            TR002,
            ctx,
            f"{who} looks cut short: {'; '.join(signals)}",
            rows,
            call_ids=[cid or None],
            extra={
                "signals": signals,
                "chars": len(detail),
                "budget": budget,
                "wire_size": wire.get(cid or ""),
            },
        )


def _finish_reason(a: dict[str, Any]) -> str | None:
    fr = a.get("finish_reason")
    return str(fr) if fr is not None else None


@CLASSIFIERS.register(TR003.code)
def check_arguments_truncated(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TR003: one finding per call whose arguments stop before the JSON closes."""
    ev = with_attrs(ctx)
    calls = ev[ev["kind"].isin(["tool_call", "mw_received"]) & ev["args"].notna()]
    seen: set[str] = set()
    for idx, raw, a, raw_id, raw_tool in zip(
        calls.index,
        calls["args"],
        calls["_attrs"],
        calls["tool_call_id"],
        calls["tool"],
        strict=True,
    ):
        if a.get("args_type", "string") != "string":
            continue
        args = str(raw)
        reason = _finish_reason(a)
        sh = cut_json(args)
        if sh is None and not (reason == "length" and not args.strip()):
            continue
        cid = text(raw_id)
        key = cid or f"#{idx}"
        if key in seen:
            continue
        seen.add(key)
        tool = text(raw_tool)
        what = (
            "are empty"
            if sh is None
            else f"stop with {''.join(sh.open) + chr(34) * sh.in_string!r} still open"
        )
        if a.get("stop_word"):  # a text-protocol block cut by the request's stop sequence
            why = f"the completion stopped at the stop sequence {a['stop_word']!r} mid-block"
        elif reason == "length":
            why = 'the completion ended with finish_reason "length" (output token limit)'
        elif reason in ("tool_calls", "stop", "function_call"):
            why = f'finish_reason says "{reason}", so a router or SDK probably rewrote "length"'
        else:
            why = "the completion was probably cut by its output token limit"
        yield make(
            TR003,
            ctx,
            f"the arguments of {_call(cid, tool)} {what}: {why}",
            [idx],
            call_ids=[cid or None],
            extra={"finish_reason": reason, "chars": len(args)},
        )


@CLASSIFIERS.register(TR004.code)
def check_context_rolled(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TR004: sessions longer than the message window whose tool results were rolled out."""
    for hit in rolled_history(with_attrs(ctx), window=ctx.cfg.message_window):
        yield make(
            TR004,
            ctx,
            hit.message,
            hit.rows,
            call_ids=hit.call_ids,
            session_id=hit.session_id,
            extra=hit.extra,
            severity=hit.severity,
        )
