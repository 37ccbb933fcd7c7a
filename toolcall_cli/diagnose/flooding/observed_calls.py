"""The calls flooding rules compare: every observed call with its scope, identity and
canonical arguments."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolcall_cli.core.cells import text
from toolcall_cli.core.events import OBSERVED_CALL_KINDS
from toolcall_cli.core.jsonio import canonical, try_loads
from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.frames import of_kind

if TYPE_CHECKING:
    import pandas as pd


def observed_calls(ctx: DiagnoseContext) -> pd.DataFrame:
    """Every observed tool call (conversation, capture, middleware) with scope and identity."""

    def build() -> pd.DataFrame:
        calls = of_kind(ctx, *OBSERVED_CALL_KINDS).copy()
        calls = calls[calls["tool"].notna()]
        calls["_scope"] = calls["session_id"].fillna(calls.get("trace", calls["trace_id"]))
        ids = calls["tool_call_id"].astype(object)
        calls["_ident"] = ids.where(ids.notna() & (ids != ""), "@" + calls["origin"].astype(str))
        calls["_canon"] = [canonical_args(a) for a in calls["args"].tolist()]
        return calls[calls["_scope"].notna()]

    return ctx.memo("flooding_calls", build)


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
