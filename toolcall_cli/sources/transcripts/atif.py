"""ATIF trajectories (Harbor's Agent Trajectory Interchange Format, v1.x) → events.

`{schema_version: "ATIF-v1.N", session_id, agent, steps: [...]}`; a step has `source`
(`system`/`user`/`agent`), `message`, `timestamp`, `tool_calls[{tool_call_id, function_name,
arguments}]` and `observation.results[{source_call_id, content}]`. Embedded sub-agent runs
(`subagent_trajectories`, top level or in `extra`) are sessions of their own. Field names
follow the published ATIF RFC.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages.rows import (
    Sink,
    args_text,
    as_dict,
    as_id,
    as_list,
    as_str,
    content_text,
    ptr,
    to_ts,
)
from toolcall_cli.sources.transcripts.base import Head, TranscriptFormat, document_object
from toolcall_cli.sources.transcripts.chunks import ChunkSink

_VERSION_RE = re.compile(r'"schema_version"\s*:\s*"ATIF')


def sniff(head: Head) -> int:
    """98 for an ATIF document (its schema_version, or steps with an agent)."""
    if _VERSION_RE.search(head.text[:4096]):
        return 98
    doc = head.document
    if isinstance(doc, dict) and isinstance(doc.get("steps"), list) and "agent" in doc:
        return 96
    return 0


def parse(path: Path, opts: ParseOptions) -> pd.DataFrame:
    """The trajectory and its sub-agent trajectories."""
    out = ChunkSink(path, tz=opts.tz)
    doc = document_object(out, path, opts, "an ATIF trajectory")
    if doc is not None:
        emit_trajectory(out.sink, doc, f"{path}#", as_id(doc.get("session_id")) or path.stem)
    return out.frame()


def emit_trajectory(sink: Sink, doc: dict[str, Any], origin: str, sid: str, depth: int = 0) -> None:
    """One trajectory as one session; nested ones as `<sid>/agent:<their id>`."""
    conv = sink.conv(session_id=sid)
    for k, step in enumerate(as_list(doc.get("steps"))):
        where = ptr(origin, "steps", k)
        if not isinstance(step, dict):
            sink.unparsed(conv, where, step, "step is not an object")
            continue
        ts = to_ts(step.get("timestamp"))
        src = as_str(step.get("source"))
        text = content_text(step.get("message"))
        base = {"msg_index": k, "step_id": step.get("step_id")}
        if src in ("system", "user"):
            conv.close_block()
            sink.add(conv, src, ptr(where, "message"), ts=ts, detail=text, attrs=base)
        elif src == "agent":
            conv.turn += 1
            calls = as_list(step.get("tool_calls"))
            if text or not calls:
                sink.add(
                    conv,
                    "assistant_text",
                    ptr(where, "message"),
                    ts=ts,
                    detail=text,
                    attrs={**base, "turn": conv.turn},
                )
            ids: list[str | None] = []
            names: list[str | None] = []
            for c, call in enumerate(calls):
                call = as_dict(call)
                args, args_type = args_text(call.get("arguments"))
                cid, name = as_id(call.get("tool_call_id")), as_str(call.get("function_name"))
                sink.add(
                    conv,
                    "tool_call",
                    ptr(where, "tool_calls", c),
                    ts=ts,
                    tool=name,
                    tool_call_id=cid,
                    args=args,
                    attrs={
                        **base,
                        "turn": conv.turn,
                        "call_index": c,
                        "protocol": "atif",
                        "args_type": None if args_type == "object" else args_type,
                    },
                )
                ids.append(cid)
                names.append(name)
            conv.open_block(ids, names) if names else conv.close_block()
        else:
            sink.unparsed(conv, where, step, f"unknown step source {str(src)[:40]!r}")
            continue
        for r, res in enumerate(as_list(as_dict(step.get("observation")).get("results"))):
            res = as_dict(res)
            cid = as_id(res.get("source_call_id"))
            body = content_text(res.get("content"))
            err = res.get("is_error") is True
            sink.add(
                conv,
                "tool_result",
                ptr(where, "observation", "results", r),
                ts=ts,
                tool_call_id=cid,
                detail=body,
                size=len(body) if body else None,
                status="error" if err else None,
                attrs={**base, "follows_call": conv.follows(cid, None), "is_error": err or None},
            )
    subs = doc.get("subagent_trajectories", as_dict(doc.get("extra")).get("subagent_trajectories"))
    for k, sub in enumerate(as_list(subs)):
        if isinstance(sub, dict) and depth < 4:
            name = as_id(sub.get("session_id")) or str(k)
            emit_trajectory(
                sink, sub, ptr(origin, "subagent_trajectories", k), f"{sid}/agent:{name}", depth + 1
            )


FORMAT = TranscriptFormat(
    name="atif",
    label="ATIF trajectory",
    samples=("fixtures/transcripts/atif_trajectory.json",),
    sniff=sniff,
    parse=parse,
    keys=frozenset({"schema_version", "session_id", "agent", "steps", "final_metrics"}),
    needs="`steps` with `source`/`message` and an `agent` (schema_version ATIF-v1.x)",
)
