"""Inspect AI eval logs (`.json`) → one session per sample (and epoch).

`{version, status, eval: {task, model, ...}, samples: [{id, epoch, messages, events}]}`.
Messages are Inspect `ChatMessage`s: `tool_calls[{id, function, arguments}]` name the
function by a string and give arguments as an object; `role: tool` messages carry
`tool_call_id`, `function` and an `error`, whose message Inspect sends the model in place of
the content (`Error: <message>`): that is the result's text. `ToolEvent`s (`{event: "tool",
id, timestamp, error}`) clock the calls and results they match by id. Rows carry attrs
`eval: true`; calls of a sample's last assistant turn that never got a result carry
`ends_on_call: true`. The binary `.eval` (zip) log is not read: convert it with
`inspect log convert --to json`.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd

from toolcall_cli.model.jsonio import dumps
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages import openai
from toolcall_cli.sources.messages.rows import Sink, as_dict, as_id, as_list, as_str, ptr, to_ts
from toolcall_cli.sources.transcripts.base import (
    Head,
    TranscriptFormat,
    document_object,
    tag_rows,
)
from toolcall_cli.sources.transcripts.chunks import ChunkSink

_HEAD_RE = re.compile(r'^\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"\w+"\s*,\s*"eval"\s*:')


def sniff(head: Head) -> int:
    """98 for the eval log's opening keys (`version`, `status`, `eval`)."""
    if _HEAD_RE.match(head.text.lstrip()[:400]):
        return 98
    doc = head.document
    if isinstance(doc, dict) and isinstance(doc.get("eval"), dict) and "samples" in doc:
        return 97
    return 0


def parse(path: Path, opts: ParseOptions) -> pd.DataFrame:
    """Every sample's conversation."""
    out = ChunkSink(path, tz=opts.tz)
    doc = document_object(out, path, opts, "an Inspect eval log") or {}
    for k, sample in enumerate(as_list(doc.get("samples"))):
        where = f"{path}#/samples/{k}"
        if not isinstance(sample, dict):
            out.sink.unparsed(None, where, sample, "sample is not an object")
            continue
        _emit_sample(out.sink, sample, where)
        out.flush_if_full()
    return out.frame()


def _emit_sample(sink: Sink, sample: dict[str, Any], origin: str) -> None:
    sid = as_id(sample.get("id")) or origin
    if isinstance(sample.get("epoch"), int) and sample["epoch"] > 1:
        sid = f"{sid}:epoch{sample['epoch']}"
    conv = sink.conv(session_id=sid)
    times = _tool_events(sample)
    start = len(sink.rows)
    last_calls: list[dict[str, Any]] = []
    for m, msg in enumerate(as_list(sample.get("messages"))):
        where = ptr(origin, "messages", m)
        if not isinstance(msg, dict):
            sink.unparsed(conv, where, msg, "message is not an object")
            continue
        before = len(sink.rows)
        openai.emit_message(sink, conv, _as_openai(msg), where, m)
        new = sink.rows[before:]
        if msg.get("role") == "assistant":
            last_calls = [r for r in new if r["kind"] == "tool_call"]
        elif msg.get("role") == "tool":
            last_calls = []
            err = as_dict(msg.get("error"))
            said = as_str(err.get("message")) if err else None
            for row in new if err else ():
                row["status"] = "error"
                row["attrs"] = {**(row["attrs"] or {}), "error_type": as_str(err.get("type"))}
                if said and row["kind"] == "tool_result":
                    # what Inspect sends the model for a failed call, in place of the content
                    row["detail"] = f"Error: {said}"
        for row in new:
            ev = times.get(row["tool_call_id"] or "")
            if ev is not None:
                _clock(row, ev)
    for row in last_calls:
        row["attrs"] = {**(row["attrs"] or {}), "ends_on_call": True}
    tag_rows(sink, start, {"eval": True})


def _as_openai(msg: dict[str, Any]) -> dict[str, Any]:
    """Inspect's `{function: "name", arguments: {...}}` calls in OpenAI's shape."""
    calls = msg.get("tool_calls")
    out = dict(msg)
    if isinstance(calls, list):
        out["tool_calls"] = [
            {
                "id": c.get("id"),
                "type": "function",
                "function": {
                    "name": c.get("function"),
                    "arguments": dumps(c.get("arguments"))
                    if c.get("arguments") is not None
                    else None,
                },
                "__attrs__": {"parse_error": as_str(c.get("parse_error"))},
            }
            if isinstance(c, dict) and isinstance(c.get("function"), str)
            else c
            for c in calls
        ]
    if msg.get("role") == "tool" and isinstance(msg.get("function"), str):
        out["name"] = msg["function"]
    return out


def _tool_events(sample: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        str(e["id"]): e
        for e in as_list(sample.get("events"))
        if isinstance(e, dict) and e.get("event") == "tool" and as_id(e.get("id"))
    }


def _clock(row: dict[str, Any], ev: dict[str, Any]) -> None:
    """Time a call at its ToolEvent, and its result when the tool finished."""
    ts = to_ts(ev.get("timestamp"))
    if ts is None:
        return
    took = ev.get("working_time")
    if row["kind"] == "tool_result":
        if isinstance(took, int | float):
            ts = ts + timedelta(seconds=float(took))
        err = as_dict(ev.get("error"))
        if err:
            row["status"] = "error"
            row["attrs"] = {**(row["attrs"] or {}), "error_type": as_str(err.get("type"))}
    row["ts"] = ts


FORMAT = TranscriptFormat(
    name="inspect-ai",
    label="Inspect AI eval log (.json)",
    samples=("fixtures/transcripts/inspect_eval_log.json",),
    sniff=sniff,
    parse=parse,
    keys=frozenset({"version", "status", "eval", "plan", "results", "stats", "samples"}),
    needs="`eval` and `samples[].messages` (Inspect's JSON log; convert .eval files first)",
)
