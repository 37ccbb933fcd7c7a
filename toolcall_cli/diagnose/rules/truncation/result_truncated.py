"""\
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
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from toolcall_cli.diagnose.kit.call_label import call_label, tools_by_call
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import attr, objects, rows_by_call, with_attrs
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import RESPONSE_KINDS, RESULT_KINDS
from toolcall_cli.model.findings import Explains, Finding, Severity, rule
from toolcall_cli.model.jsonscan import cut_json, parses
from toolcall_cli.model.quoting.aim import TAIL, Aim
from toolcall_cli.model.words import plural

if TYPE_CHECKING:
    import pandas as pd

RULE = rule(
    "TR002",
    "result-truncated",
    Severity.warning,
    "a tool result cut short (marker, cut JSON, length at a budget, smaller than on the wire)",
    doc=__doc__,
    explains=(Explains("FL001"),),
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
        out.append(f"{plural(nbytes, 'byte')} in the message but {wire_size} on the wire")
    return out


def _wire_sizes(ev: pd.DataFrame) -> dict[str, int]:
    """tool_call_id → the largest tool-service response body seen on the wire or logged."""
    import pandas as pd

    wire = ev[ev["kind"].isin(RESPONSE_KINDS) & ev["tool_call_id"].notna() & ev["tool"].notna()]
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


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TR002: one finding per tool result (per call id) that looks cut short."""
    ev = with_attrs(ctx)
    results = ev[ev["kind"].isin(RESULT_KINDS) & ev["detail"].notna()]
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
            rows += [i for i in rows_by_call(ctx).labels(cid) if kinds[i] in RESPONSE_KINDS][:2]
        wire_size = wire.get(cid or "")
        who = (
            f"the result of {call_label(cid, tool)}"
            if cid
            else f"a result{f' of {tool}' if tool else ''}"
        )
        yield make(
            RULE,
            ctx,
            f"{who} looks cut short: {'; '.join(signals)}",
            rows,
            call_ids=[cid or None],
            extra={
                "signals": signals,
                "chars": len(detail),
                "budget": budget,
                "wire_size": wire_size,
            },
            aims=_aims(rows, detail, wire_size),
        )


def _tail(detail: str) -> str:
    """The last `TAIL` characters of *detail*, starting at a token when one starts nearby."""
    tail = detail.rstrip()[-TAIL:]
    space = tail.find(" ", 0, TAIL // 3)
    return tail[space + 1 :] if space >= 0 else tail


def _aims(rows: list[int], detail: str, wire_size: int | None) -> dict[int, Aim]:
    """The point of each row: the result's marker or cut tail, the size the wire reports."""
    marker = _MARKER.search(detail)
    cut = marker.group(0).strip() if marker else _tail(detail)
    aims = {rows[0]: Aim(needle=cut, tail=True)}
    if wire_size is not None:
        aims.update({i: Aim(key="size", needle=str(wire_size)) for i in rows[1:]})
    return aims
