"""Model exchanges → the conversation's events (kinds `user`, `system`, `assistant_text`,
`tool_call`, `tool_result`), emitted once.

Every model call re-sends the history, so exchanges of one conversation (its session, else its
trace) are taken in time order and only the messages past the common prefix with what was
already seen are emitted (the messages adapter does the same for cassettes, with the same
message signature). The messages adapter's emitters write the rows, so pairing, turns and
`follows_call` mean what they mean there. Input messages take the time the call started (that
is when they were sent), output messages the time it ended.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from toolcall_cli.model.events import empty_frame
from toolcall_cli.sources.messages.cassette import common_prefix, signature
from toolcall_cli.sources.messages.openai import emit_message, emit_tools
from toolcall_cli.sources.messages.rows import Conv, Sink, safe_dump
from toolcall_cli.sources.otel.exchange import Exchange

SOURCE = "otel"
_STATUS_CODE = re.compile(r"\b(?:Error code|status(?: code)?)[:= ]+([45]\d\d)\b", re.I)


def _groups(exchanges: Iterable[Exchange]) -> list[list[Exchange]]:
    by: dict[str, list[Exchange]] = {}
    for ex in exchanges:
        by.setdefault(ex.session or ex.trace_id or ex.origin, []).append(ex)
    return [sorted(g, key=lambda e: (e.start_ns is None, e.start_ns or 0)) for g in by.values()]


def emit(exchanges: list[Exchange], path: Path) -> pd.DataFrame:
    """The conversation rows of every exchange (source `otel`)."""
    if not exchanges:
        return empty_frame()
    sink = Sink(path)
    ranges: list[tuple[int, int, Exchange, int | None]] = []
    for group in _groups(exchanges):
        conv: Conv | None = None
        seen: list[Any] = []
        for n, ex in enumerate(group):
            # signatures are only read against a later exchange of the group: a conversation
            # of one model call needs none (they cost more than its rows)
            later = n + 1 < len(group)
            sigs = [signature(m) for m, _ in ex.inputs] if seen or later else []
            k = common_prefix(sigs, seen)
            if conv is None or (ex.inputs and seen and k == 0):
                conv = sink.conv()
            r0 = len(sink.rows)
            if ex.tools is not None:
                emit_tools(sink, conv, ex.tools[0], ex.tools[1])
            for j in range(k, len(ex.inputs)):
                msg, origin = ex.inputs[j]
                emit_message(sink, conv, msg, origin, j)
            if not ex.captured:
                sink.add(
                    conv,
                    "system",
                    ex.origin,
                    detail="model call (message content not captured)",
                    attrs={"content_captured": False, "finish_reason": ex.finish},
                )
            r1 = len(sink.rows)
            for j, (msg, origin) in enumerate(ex.outputs, start=len(ex.inputs)):
                emit_message(sink, conv, msg, origin, j, finish_reason=ex.finish)
            if ex.error or ex.error_type:
                m = _STATUS_CODE.search(ex.error or "")
                sink.add(
                    conv,
                    "system",
                    ex.origin,
                    status="error",
                    http_status=int(m.group(1)) if m else None,
                    detail=ex.error or ex.error_type,
                    attrs={"provider_error": True, "error_type": ex.error_type},
                )
            ranges += [(r0, r1, ex, ex.start_ns), (r1, len(sink.rows), ex, ex.end_ns)]
            if later and (ex.inputs or ex.outputs):
                seen = sigs + [signature(m) for m, _ in ex.outputs]
    return _stamp(sink, ranges)


def _stamp(sink: Sink, ranges: list[tuple[int, int, Exchange, int | None]]) -> pd.DataFrame:
    """The sink's table with each row given its exchange's time, trace, session and span (the
    Sink knows none). Each row's attrs are its own (nulls dropped) followed by the exchange's,
    written once: not written by the Sink, read back and written again."""
    n = len(sink.rows)
    ts: list[Any] = [None] * n
    trace: list[Any] = [None] * n
    session: list[Any] = [None] * n
    attrs: list[Any] = [None] * n
    for r0, r1, ex, t in ranges:
        extra = {"span_id": ex.span_id, "convention": ex.convention, **ex.attrs}
        extra = {k: v for k, v in extra.items() if v is not None}
        for i in range(r0, r1):
            ts[i] = t
            trace[i] = ex.trace_id
            session[i] = ex.session
            row = sink.rows[i]
            attrs[i] = _merged(row["attrs"], extra)
            row["attrs"] = None
    out = sink.frame(source=SOURCE)  # a new table: its columns are replaced in place
    out["ts"] = pd.to_datetime(pd.Series(ts, dtype="Int64"), unit="ns", utc=True).astype(
        out["ts"].dtype
    )
    out["trace_id"] = pd.Series(trace, dtype=out["trace_id"].dtype)
    out["session_id"] = pd.Series(session, dtype=out["session_id"].dtype)
    out["attrs"] = pd.Series(attrs, dtype=out["attrs"].dtype)
    return out


def _merged(own: dict[str, Any] | None, extra: dict[str, Any]) -> str:
    """A row's attrs *own* (as the Sink would write them, nulls dropped) with *extra* after
    them: what `{**loads(sink text), **extra}` gives, without the round trip through text."""
    base = {k: v for k, v in own.items() if v is not None} if own else {}
    try:
        # plain JSON values come back from text as they were: the same bytes either way
        return orjson.dumps({**base, **extra}).decode()
    except TypeError:  # what only the Sink's lenient writer reads (non-text keys, objects)
        text = safe_dump(base) if own else None
        return orjson.dumps({**(orjson.loads(text) if text else {}), **extra}).decode()
