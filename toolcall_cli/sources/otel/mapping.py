"""A :class:`Batch` → the event table: each span goes to the first mapper that claims it.

Order: MCP `tools/call`, GenAI `execute_tool`, Langfuse `tool` and `generation`, OpenInference
TOOL (tool executions); then
OpenInference LLM, legacy GenAI, current GenAI (model calls); then HTTP client/server spans.
Log records carrying the deprecated per-message events are model calls too. A failed span no
mapper claims still says why it failed (a `system` error row). The session of a span is its
own `gen_ai.conversation.id` / `session.id` / `mcp.session.id`, else the one its trace carries
(the agent span usually holds it, the chat spans do not).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from toolcall_cli.sources.otel import (
    conversation,
    map_genai,
    map_genai_legacy,
    map_http,
    map_langfuse,
    map_mcp,
    map_openinference,
    rows,
)
from toolcall_cli.sources.otel.arrow_pool import system_pool
from toolcall_cli.sources.otel.assemble import sorted_union
from toolcall_cli.sources.otel.exchange import Exchange, ToolRun
from toolcall_cli.sources.otel.model import Batch, Span

_SESSION_KEYS = ("gen_ai.conversation.id", "session.id", "mcp.session.id")


def own_session(span: Span) -> str | None:
    """The conversation id the span itself carries."""
    for key in _SESSION_KEYS:
        v = span.attrs.get(key)
        if isinstance(v, str) and v:
            return v
    return None


def trace_sessions(spans: list[Span]) -> dict[str, str]:
    """trace id → the first conversation id any of its spans carries."""
    out: dict[str, str] = {}
    for s in spans:
        sid = own_session(s)
        if sid and s.trace_id and s.trace_id not in out:
            out[s.trace_id] = sid
    return out


def _claim(span: Span, session: str | None) -> Exchange | ToolRun | None:
    if map_mcp.is_mcp(span):
        return map_mcp.tool_run(span, session)
    if span.attrs.get("gen_ai.operation.name") == "execute_tool":
        return map_genai.tool_run(span, session)
    observed = map_langfuse.observation_type(span)
    if observed == "tool":
        return map_langfuse.tool_run(span, session)
    if observed == "generation":
        return map_langfuse.exchange(span, session)
    kind = map_openinference.span_kind(span)
    if kind == "TOOL":
        return map_openinference.tool_run(span, session)
    if map_openinference.is_llm(span):
        return map_openinference.exchange(span, session)
    if map_genai_legacy.is_legacy(span):
        return map_genai_legacy.exchange(span, session)
    if map_genai.is_chat(span):
        return map_genai.exchange(span, session)
    if map_http.method(span) and span.kind in ("client", "server"):
        return map_http.tool_run(span, session)
    return None


@system_pool()  # see arrow_pool: the peak of a large file
def to_frame(
    batch: Batch,
    path: Path,
    *,
    rows_done: list[pd.DataFrame] | None = None,
    sessions: dict[str, str] | None = None,
) -> pd.DataFrame:
    """The event table of one file's spans and logs (ordered by time, `seq` = that order).

    *rows_done* are rows the column-wise path already made from other spans of the file, and
    *sessions* the trace sessions it found over all of them."""
    sessions = sessions if sessions is not None else trace_sessions(batch.spans)
    exchanges: list[Exchange] = []
    runs: list[ToolRun] = []
    out = rows.Rows()
    for span in batch.spans:
        session = own_session(span) or sessions.get(span.trace_id or "")
        got = _claim(span, session)
        if isinstance(got, Exchange):
            exchanges.append(got)
        elif isinstance(got, ToolRun):
            runs.append(got)
        elif got is None and not map_mcp.is_mcp(span):
            message, etype = map_genai.span_error(span)
            if message or etype:
                rows.error_row(span, session, message, etype, out)
    exchanges += map_genai_legacy.log_exchanges(batch.logs, sessions)
    rows.tool_rows(runs, out)
    rows.unreadable(batch, out)
    done = rows_done if rows_done is not None else []
    # the column-wise tables carry their own row order in `seq` (request, response, …)
    orders = [None, None, *(f["seq"].to_numpy() for f in done)]
    parts = [conversation.emit(exchanges, path), out.frame(), *done]
    done.clear()  # the tables are released as their columns are copied
    return sorted_union(parts, orders)
