"""Helpers every classifier family shares: attrs access, event subsets, finding construction."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from toolcall_cli.core.findings import Finding, Rule
from toolcall_cli.core.jsonio import canonical, try_loads
from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.evidence import evidence, locate

#: How a flooding cancellation reads in any source (middleware text, a tool result, a proxy).
_FLOOD_PHRASE = r"tool[- ]call flooding|flooding (?:was )?detected|cancelled because .*flood"
_HEADING = re.compile(r"^(What it does|Why it matters|Example|Fix)\s*:?\s*$", re.M)


def attrs_of(value: Any) -> dict[str, Any]:
    """The `attrs` cell as a dict ({} for null/empty/invalid)."""
    if not isinstance(value, str) or not value:
        return {}
    got = try_loads(value)
    return got if isinstance(got, dict) else {}


def with_attrs(ctx: DiagnoseContext) -> pd.DataFrame:
    """The aligned events plus a parsed `_attrs` column of dicts (computed once per context)."""

    def build() -> pd.DataFrame:
        ev = ctx.events().copy()
        parsed = [attrs_of(a) for a in ev["attrs"].tolist()]
        ev["_attrs"] = pd.Series(parsed, index=ev.index, dtype=object)
        return ev

    return ctx.memo("events_with_attrs", build)


def of_kind(ctx: DiagnoseContext, *kinds: str) -> pd.DataFrame:
    """Events of the given kinds (with `_attrs`), in event-table order."""
    ev = with_attrs(ctx)
    return ev[ev["kind"].isin(kinds)]


def attr(rows: pd.DataFrame, key: str) -> pd.Series:
    """One attrs key as a Series aligned with *rows* (None where absent)."""
    return pd.Series([a.get(key) for a in rows["_attrs"]], index=rows.index, dtype=object)


def text(value: Any) -> str | None:
    """A cell as str, or None for null."""
    if value is None:
        return None
    if not isinstance(value, str) and pd.isna(value):
        return None
    return str(value)


def canonical_args(raw: Any) -> str | None:
    """Canonical text of arguments: canonical JSON when they parse, else the raw text.

    Returns None for calls without arguments ("" / "{}" / null), which loop detection skips.
    """
    s = text(raw)
    if s is None or not s.strip():
        return None
    parsed = try_loads(s)
    if parsed is None and s.strip() != "null":
        return "raw:" + s.strip()
    if parsed in (None, {}, [], ""):
        return None
    return "json:" + canonical(parsed)


def doc_section(rule: Rule, heading: str) -> str | None:
    """The text under *heading* in the rule's doc, as one paragraph."""
    parts = _HEADING.split(rule.doc)
    for i in range(1, len(parts) - 1, 2):
        if parts[i] == heading:
            body = " ".join(line.strip() for line in parts[i + 1].strip().splitlines())
            return body or None
    return None


def make(
    rule: Rule,
    ctx: DiagnoseContext,
    message: str,
    rows: pd.DataFrame,
    *,
    call_ids: Iterable[str | None] = (),
    session_id: str | None = None,
    trace_id: str | None = None,
    tool: str | None = None,
    extra: dict[str, Any] | None = None,
    explanation: str | None = None,
    fix: str | None = None,
    limit: int = 5,
    **kw: Any,
) -> Finding:
    """A finding of *rule* proven by *rows*: ids, trace and session filled from the rows."""
    ids = _unique(text(c) for c in call_ids)
    if session_id is None and len(rows):
        session_id = _first(rows["session_id"])
    if trace_id is None and len(rows) and "trace" in rows.columns:
        trace_id = _first(rows["trace"])
    if trace_id is None and ids:
        trace_id = ctx.trace_of(ids[0])
    if tool is None and len(rows):
        tool = _first(rows["tool"])
    proof = evidence(rows, limit=limit)
    if "location" not in kw and proof:
        kw["location"] = locate(proof[0].origin)
    return Finding.of(
        rule,
        message,
        trace_id=trace_id,
        session_id=session_id,
        tool_call_ids=ids,
        evidence=proof,
        explanation=explanation or doc_section(rule, "Why it matters"),
        fix=fix or doc_section(rule, "Fix"),
        tool=tool,
        extra=extra or {},
        **kw,
    )


def _first(col: pd.Series) -> str | None:
    vals = col.dropna()
    return str(vals.iloc[0]) if len(vals) else None


def _unique(items: Iterable[str | None]) -> list[str]:
    out: list[str] = []
    for x in items:
        if x is not None and x not in out:
            out.append(x)
    return out


def flood_rows(ctx: DiagnoseContext) -> pd.DataFrame:
    """Flooding cancellations: mw_flooded events, or events whose text names tool-call flooding."""

    def build() -> pd.DataFrame:
        ev = with_attrs(ctx)
        detail = ev["detail"].fillna("").str.lower()
        phrase = detail.str.contains(_FLOOD_PHRASE, regex=True) & ev["kind"].isin(
            ["mw_other", "mw_rejected", "mw_dropped", "system", "unparsed", "tool_result"]
        )
        return ev[(ev["kind"] == "mw_flooded") | phrase]

    return ctx.memo("flood_rows", build)


def cite_floods(
    ctx: DiagnoseContext, rows: pd.DataFrame, *, session_ids: Sequence[str | None] = ()
) -> pd.DataFrame:
    """*rows* plus the flooding cancellations of the same sessions or calls (evidence to cite)."""
    fl = flood_rows(ctx)
    if not len(fl):
        return rows
    sids = {s for s in session_ids if s} | {str(s) for s in rows["session_id"].dropna()}
    ids = {str(c) for c in rows["tool_call_id"].dropna() if c}
    hit = fl[fl["session_id"].isin(list(sids)) | fl["tool_call_id"].isin(list(ids))]
    if not len(hit):
        return rows
    return pd.concat([hit.head(1), rows])
