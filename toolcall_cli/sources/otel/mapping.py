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

import numpy as np
import pandas as pd

from toolcall_cli.model.events import concat_frames
from toolcall_cli.sources.otel import (
    conversation,
    fast_rows,
    map_genai,
    map_genai_legacy,
    map_http,
    map_langfuse,
    map_mcp,
    map_openinference,
    rows,
    tool_spans,
)
from toolcall_cli.sources.otel.arrow_pool import system_pool
from toolcall_cli.sources.otel.assemble import sorted_union
from toolcall_cli.sources.otel.exchange import Exchange, ToolRun, as_text
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


def _claim(span: Span, session: str | None) -> Exchange | ToolRun | Span | None:
    """What *span* is: a model call, a Langfuse tool run, a span of a tool execution (itself,
    for `fast_rows`), or None."""
    if map_mcp.is_mcp(span):
        return span if map_mcp.is_tool_call(span) else None
    if span.attrs.get("gen_ai.operation.name") == "execute_tool":
        return span
    observed = map_langfuse.observation_type(span)
    if observed == "tool":
        return map_langfuse.tool_run(span, session)
    if observed == "generation":
        return map_langfuse.exchange(span, session)
    kind = map_openinference.span_kind(span)
    if kind == "TOOL":
        return span
    if map_openinference.is_llm(span):
        return map_openinference.exchange(span, session)
    if map_genai_legacy.is_legacy(span):
        return map_genai_legacy.exchange(span, session)
    if map_genai.is_chat(span):
        return map_genai.exchange(span, session)
    if map_http.method(span) and span.kind in ("client", "server"):
        return span
    return None


def _tool_part(
    runs: list[ToolRun], tools: list[Span], sessions: list[str | None], at: list[int]
) -> tuple[pd.DataFrame, np.ndarray | None]:
    """The rows of the Langfuse tool runs and of the tool spans, in the spans' order."""
    if not tools:
        made = rows.Rows()
        rows.tool_rows(runs, made)
        return made.frame(), None
    frame, span_no = fast_rows.tool_rows(tool_spans.SpanRecords(tools, sessions))
    if not runs:
        return frame, frame["seq"].to_numpy()
    made = rows.Rows()
    rows.tool_rows(runs, made)
    # each row's key: its span's place among runs and tool spans, twice (request, response)
    place = np.array(at)
    tool_place, run_place = np.flatnonzero(place >= 0), np.flatnonzero(place < 0)
    two = np.arange(2 * len(runs))
    order = np.concatenate([tool_place[span_no] * 2 + frame["seq"].to_numpy() % 2,
                            run_place[two // 2] * 2 + two % 2])  # fmt: skip
    return concat_frames([frame, made.frame()]), order


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
    tools: list[Span] = []
    tool_sessions: list[str | None] = []
    at: list[int] = []  # each run's and tool span's place among them (their rows' order)
    errors = rows.Rows()
    for span in batch.spans:
        session = own_session(span) or sessions.get(span.trace_id or "")
        got = _claim(span, session)
        if isinstance(got, Exchange):
            exchanges.append(got)
        elif isinstance(got, ToolRun):
            at.append(~len(runs))
            runs.append(got)
        elif isinstance(got, Span):
            at.append(len(tools))
            tools.append(span)
            mcp = span.attrs.get("mcp.session.id") if map_mcp.is_mcp(span) else None
            tool_sessions.append(as_text(mcp or session))
        elif got is None and not map_mcp.is_mcp(span):
            message, etype = map_genai.span_error(span)
            if message or etype:
                rows.error_row(span, session, message, etype, errors)
    exchanges += map_genai_legacy.log_exchanges(batch.logs, sessions)
    tool_part, tool_order = _tool_part(runs, tools, tool_sessions, at)
    bad = rows.Rows()
    rows.unreadable(batch, bad)
    done = rows_done if rows_done is not None else []
    # the column-wise tables carry their own row order in `seq` (request, response, …)
    orders = [None, None, tool_order, None, *(f["seq"].to_numpy() for f in done)]
    parts = [conversation.emit(exchanges, path), errors.frame(), tool_part, bad.frame(), *done]
    done.clear()  # the tables are released as their columns are copied
    return sorted_union(parts, orders)
