"""Codex CLI rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) → events.

Current rollouts: one `{timestamp, type, payload}` per line; `session_meta` names the session
(`payload.id`), `response_item` payloads are Responses-API items (`message`,
`function_call`/`function_call_output`, `custom_tool_call`/`custom_tool_call_output`,
`local_shell_call`, `reasoning`), `event_msg` and `turn_context` are the UI's bookkeeping
(an `event_msg` of type `error` is kept as a provider error). Older rollouts start with a
`{id, timestamp, instructions}` line followed by bare items. Items go through the messages
adapter's Responses-API emitter; `local_shell_call` becomes a call of the `local_shell` tool
with its `action` as arguments. Field names follow the public codex-rs rollout format.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from toolcall_cli.model.events import EventChunk, assemble_chunks
from toolcall_cli.model.jsonio import dumps, try_loads
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages import items
from toolcall_cli.sources.messages.rows import Conv, Sink, as_id, as_str, to_ts
from toolcall_cli.sources.transcripts.base import (
    Head,
    TranscriptFormat,
    json_lines,
    share,
    tag_rows,
)
from toolcall_cli.sources.transcripts.chunks import CallOrder, ChunkSink

LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "web_search_call",
    }
)


def sniff(head: Head) -> int:
    """98 for `{timestamp, type, payload}` lines of rollout types; 96 for the older layout."""
    objs = head.objects
    if not objs:
        return 0
    wrapped = share(
        objs, lambda o: as_str(o.get("type")) in LINE_TYPES and isinstance(o.get("payload"), dict)
    )
    if wrapped >= 0.5 and any("timestamp" in o for o in objs):
        return 98
    first = objs[0]
    if {"id", "timestamp"} <= first.keys() and "type" not in first:
        rest = objs[1:]
        if (
            rest
            and share(rest, lambda o: as_str(o.get("type")) in ITEM_TYPES or "record_type" in o)
            > 0.5
        ):
            return 96
    return 0


def parse_chunks(path: Path, opts: ParseOptions) -> Iterator[EventChunk]:
    """Every line of a rollout, streamed and handed on in chunks."""
    out = ChunkSink(path, tz=opts.tz, order=CallOrder())
    sink = out.sink
    conv = sink.conv(session_id=path.stem)
    for n, obj, err in json_lines(path, opts.progress):
        origin = f"{path}:{n}"
        if err is not None or not isinstance(obj, dict):
            sink.unparsed(conv, origin, obj, err or "line is not a JSON object")
            continue
        ts = to_ts(obj.get("timestamp"))
        ltype = as_str(obj.get("type"))
        payload = obj.get("payload")
        if ltype == "session_meta" and isinstance(payload, dict):
            conv.session_id = as_id(payload.get("id")) or conv.session_id
            _emit_instructions(sink, conv, payload.get("instructions"), f"{origin}#/payload", ts)
        elif ltype == "response_item" and isinstance(payload, dict):
            _emit_item(sink, conv, payload, f"{origin}#/payload", n, ts)
        elif ltype == "event_msg" and isinstance(payload, dict):
            if payload.get("type") == "turn_aborted":  # the user stopped the turn
                reason = as_str(payload.get("reason"))
                sink.add(
                    conv,
                    "system",
                    f"{origin}#/payload",
                    ts=ts,
                    detail=f"turn aborted: {reason or 'unknown reason'}",
                    attrs={"turn_aborted": reason or True},
                )
            elif payload.get("type") in ("error", "stream_error"):
                sink.add(
                    conv,
                    "system",
                    f"{origin}#/payload",
                    ts=ts,
                    status="error",
                    detail=as_str(payload.get("message")),
                    attrs={"provider_error": True, "provider": "openai"},
                )
        elif ltype in LINE_TYPES:
            continue
        elif n == 1 and "id" in obj and ltype is None:  # older rollouts: the session line
            conv.session_id = as_id(obj.get("id")) or conv.session_id
            _emit_instructions(sink, conv, obj.get("instructions"), f"{origin}#", ts)
        elif ltype in ITEM_TYPES:
            _emit_item(sink, conv, obj, f"{origin}#", n, ts)
        elif "record_type" in obj:
            continue
        else:
            sink.unparsed(conv, origin, obj, f"unknown rollout line type {str(ltype)[:40]!r}")
        yield from out.ready()
    yield from out.finish()


def parse(path: Path, opts: ParseOptions) -> pd.DataFrame:
    """Every line of a rollout, as one event table."""
    return assemble_chunks(parse_chunks(path, opts))


def _emit_instructions(sink: Sink, conv: Conv, text: Any, origin: str, ts: Any) -> None:
    if isinstance(text, str) and text:
        sink.add(conv, "system", origin, ts=ts, detail=text, attrs={"role": "instructions"})


def _emit_item(sink: Sink, conv: Conv, item: dict[str, Any], origin: str, n: int, ts: Any) -> None:
    itype = as_str(item.get("type"))
    start = len(sink.rows)
    if itype == "local_shell_call":
        action = item.get("action")
        shaped = {
            "type": "function_call",
            "name": "local_shell",
            "arguments": dumps(action) if action is not None else None,
            "call_id": item.get("call_id", item.get("id")),
            "status": item.get("status"),
        }
        items.emit_item(sink, conv, shaped, origin, n, ts=ts)
        tag_rows(sink, start, {"item_type": "local_shell_call"})
        return
    if itype == "local_shell_call_output":
        item = {**item, "type": "function_call_output"}
    items.emit_item(sink, conv, item, origin, n, ts=ts)
    if itype in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        tag_rows(sink, start, _exit_code(item.get("output")))


def _exit_code(output: Any) -> dict[str, Any]:
    """Codex wraps shell output as `{"output": ..., "metadata": {"exit_code": N}}` text."""
    doc = try_loads(output) if isinstance(output, str) else output
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    return {"exit_code": code} if isinstance(code, int) else {}


FORMAT = TranscriptFormat(
    name="codex",
    label="Codex CLI rollout JSONL",
    samples=("fixtures/transcripts/codex_rollout.jsonl",),
    sniff=sniff,
    parse=parse,
    parse_chunks=parse_chunks,
    keys=frozenset({"timestamp", "type", "payload"}),
    needs="`{timestamp, type, payload}` lines with `session_meta`/`response_item` types",
)
