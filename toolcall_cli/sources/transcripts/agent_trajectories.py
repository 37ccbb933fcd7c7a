"""Coding-agent trajectories: OpenHands event streams and SWE-agent `.traj` files.

OpenHands (`trajectory.json`, a list, or `events.jsonl`): events `{id, timestamp, source,
action | observation, args, content, cause, tool_call_metadata{function_name, tool_call_id}}`.
An action other than `message`/`system` is a tool call (named by its function, else by the
action); an observation answers the action named by `tool_call_metadata.tool_call_id`, else
by `cause` (the action's event id).

SWE-agent (`*.traj`): `{trajectory: [...], history: [...], info}`. `history` is the model's
own message list (OpenAI shape, results with `tool_call_ids`); without function calling the
assistant's `action` text is the call (tool = its first word) and the next observation its
result. Field names follow the public OpenHands and SWE-agent formats as their docs show.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from toolcall_cli.model.events import EventChunk, assemble_chunks
from toolcall_cli.model.jsonio import dumps
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages import openai
from toolcall_cli.sources.messages.rows import (
    Sink,
    as_dict,
    as_id,
    as_list,
    as_str,
    content_text,
    ptr,
    to_ts,
)
from toolcall_cli.sources.transcripts.base import (
    Head,
    TranscriptFormat,
    document_object,
    records,
    share,
)
from toolcall_cli.sources.transcripts.chunks import ChunkSink

_NOT_CALLS = frozenset({"message", "system", "recall", "change_agent_state", "null"})


def _oh_event(o: Any) -> bool:
    return isinstance(o, dict) and "source" in o and ("action" in o or "observation" in o)


def sniff_openhands(head: Head) -> int:
    """97 for a list (or lines) of OpenHands events."""
    doc = head.document
    objs = doc if isinstance(doc, list) else head.objects
    if not objs and head.text.lstrip().startswith("[") and '"observation"' in head.text:
        return 90 if '"tool_call_metadata"' in head.text or '"cause"' in head.text else 0
    return 97 if share([o for o in objs if isinstance(o, dict)], _oh_event) >= 0.6 else 0


def parse_openhands(path: Path, opts: ParseOptions) -> pd.DataFrame:
    """An OpenHands event list or event lines, as one event table."""
    return assemble_chunks(openhands_chunks(path, opts))


def openhands_chunks(path: Path, opts: ParseOptions) -> Iterator[EventChunk]:
    """An OpenHands event list or event lines, as one session, handed on in chunks."""
    out = ChunkSink(path, tz=opts.tz)
    sink = out.sink
    conv = sink.conv(
        session_id=path.parent.name if path.stem in ("trajectory", "events") else path.stem
    )
    by_event: dict[str, str] = {}
    for origin, ev, err in records(path, opts):
        if err is not None or not isinstance(ev, dict):
            sink.unparsed(conv, origin, ev, err or "event is not an object")
            continue
        _emit_oh(sink, conv, ev, origin if "#" in origin else f"{origin}#", by_event)
        yield from out.ready()
    yield from out.finish()


def _emit_oh(
    sink: Sink, conv: Any, ev: dict[str, Any], origin: str, by_event: dict[str, str]
) -> None:
    ts = to_ts(ev.get("timestamp"))
    meta = as_dict(ev.get("tool_call_metadata"))
    src = as_str(ev.get("source"))
    base = {"event_id": ev.get("id"), "source_field": src}
    if "action" in ev:
        action = as_str(ev.get("action")) or "?"
        text = content_text(as_dict(ev.get("args")).get("content") or ev.get("message"))
        if action in _NOT_CALLS:
            kind = "user" if src == "user" else "system" if action == "system" else "assistant_text"
            if kind == "assistant_text":
                conv.turn += 1
            conv.close_block()
            sink.add(conv, kind, origin, ts=ts, detail=text, attrs={**base, "action": action})
            return
        cid = as_id(meta.get("tool_call_id")) or f"event:{ev.get('id')}"
        by_event[str(ev.get("id"))] = cid
        name = as_str(meta.get("function_name")) or action
        same = (
            conv.in_block
            and conv.last_kind == "tool_call"
            and meta.get("total_calls_in_response", 1) != 1
        )
        if not same:
            conv.turn += 1
        sink.add(
            conv,
            "tool_call",
            ptr(origin, "args"),
            ts=ts,
            tool=name,
            tool_call_id=cid,
            args=dumps(ev.get("args")) if ev.get("args") is not None else None,
            attrs={**base, "turn": conv.turn, "action": action, "protocol": "openhands"},
        )
        if same:
            conv.block_ids.add(cid)
            conv.block_names.add(name)
        else:
            conv.open_block([cid], [name])
    elif "observation" in ev:
        obs = as_str(ev.get("observation"))
        rid = as_id(meta.get("tool_call_id")) or by_event.get(str(ev.get("cause")))
        if rid is None:
            sink.add(
                conv,
                "system",
                origin,
                ts=ts,
                detail=content_text(ev.get("content")),
                attrs={**base, "observation": obs},
            )
            return
        body = content_text(ev.get("content"))
        code = as_dict(ev.get("extras")).get("exit_code")
        sink.add(
            conv,
            "tool_result",
            ptr(origin, "content"),
            ts=ts,
            tool_call_id=rid,
            tool=as_str(meta.get("function_name")),
            detail=body,
            size=len(body) if body else None,
            status="error" if obs == "error" else None,
            attrs={
                **base,
                "observation": obs,
                "follows_call": conv.follows(rid, None),
                "exit_code": code if isinstance(code, int) else None,
            },
        )


def sniff_swe_agent(head: Head) -> int:
    """97 for a `.traj` document (`trajectory` list plus `history` or `info`)."""
    doc = head.document
    if isinstance(doc, dict) and isinstance(doc.get("trajectory"), list):
        return 97 if ("history" in doc or "info" in doc) else 0
    t = head.text.lstrip()[:2000]
    return 92 if t.startswith("{") and '"trajectory"' in t and '"action"' in head.text else 0


def parse_swe_agent(path: Path, opts: ParseOptions) -> pd.DataFrame:
    """The `history` message list (else the `trajectory` steps) as one session."""
    out = ChunkSink(path, tz=opts.tz)
    sink = out.sink
    conv = sink.conv(session_id=path.stem)
    doc = document_object(out, path, opts, "a SWE-agent trajectory")
    if doc is None:
        return out.frame()
    history = as_list(doc.get("history"))
    if any(isinstance(m, dict) and m.get("tool_calls") for m in history):
        for m, msg in enumerate(history):
            if (
                isinstance(msg, dict)
                and isinstance(msg.get("tool_call_ids"), list)
                and msg["tool_call_ids"]
            ):
                msg = {**msg, "tool_call_id": msg["tool_call_ids"][0]}
            openai.emit_message(sink, conv, msg, f"{path}#/history/{m}", m)
        return out.frame()
    for k, step in enumerate(as_list(doc.get("trajectory"))):
        step = as_dict(step)
        where = f"{path}#/trajectory/{k}"
        conv.turn += 1
        thought = as_str(step.get("thought")) or as_str(step.get("response"))
        if thought:
            sink.add(
                conv,
                "assistant_text",
                ptr(where, "thought"),
                detail=thought,
                attrs={"msg_index": k, "turn": conv.turn},
            )
        action = as_str(step.get("action"))
        if not action or not action.strip():
            continue
        name = action.strip().split(None, 1)[0]
        sink.add(
            conv,
            "tool_call",
            ptr(where, "action"),
            tool=name,
            args=dumps({"command": action}),
            attrs={"msg_index": k, "turn": conv.turn, "protocol": "swe-agent", "call_index": 0},
        )
        conv.open_block([None], [name])
        obs = content_text(step.get("observation"))
        if obs is not None:
            sink.add(
                conv,
                "tool_result",
                ptr(where, "observation"),
                tool=name,
                detail=obs,
                size=len(obs),
                attrs={"msg_index": k, "follows_call": True},
            )
    return out.frame()


OPENHANDS = TranscriptFormat(
    name="openhands",
    label="OpenHands trajectory / event stream",
    samples=("fixtures/transcripts/openhands_trajectory.json",),
    sniff=sniff_openhands,
    parse=parse_openhands,
    parse_chunks=openhands_chunks,
    keys=frozenset({"id", "timestamp", "source", "action", "args", "observation", "cause"}),
    needs="events with `source` and `action` or `observation`",
)
SWE_AGENT = TranscriptFormat(
    name="swe-agent",
    label="SWE-agent .traj",
    samples=("fixtures/transcripts/swe_agent.traj",),
    sniff=sniff_swe_agent,
    parse=parse_swe_agent,
    keys=frozenset({"trajectory", "history", "info", "replay_config", "environment"}),
    needs="a `trajectory` list of {action, observation} and `history`",
)
