"""How findings name a call: `call ID (tool)`, the tool looked up by id when a row lacks it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcall_cli.model.events import CALL_KINDS
from toolcall_cli.model.words import NO_ID

if TYPE_CHECKING:
    import pandas as pd


def call_label(cid: str | None, tool: str | None) -> str:
    """`call ID (tool)` for messages."""
    return f"call {cid or NO_ID}" + (f" ({tool})" if tool else "")


def tool_to_call(tool: object, cid: str | None) -> str:
    """`TOOL to call ID` for messages about a response (the tool alone without an id)."""
    return f"{tool} to call {cid}" if cid else str(tool)


def tools_by_call(ev: pd.DataFrame) -> dict[str, str]:
    """tool_call_id → tool name from the calls (tool results often carry only the id).

    An empty id ("", as Gemini's OpenAI-compatible endpoint sends) names no call: keyed, it
    would name every result without an id, in any file, after that call's tool."""
    mask = ev["kind"].isin(CALL_KINDS) & ev["tool_call_id"].notna() & ev["tool"].notna()
    calls = ev[["tool_call_id", "tool"]][mask]  # the two columns read, not a copy of every row
    ids, tools = calls["tool_call_id"].astype(str).tolist(), calls["tool"].astype(str).tolist()
    return {i: t for i, t in zip(ids, tools, strict=True) if i}
