"""Claude Code session JSONL (`~/.claude/projects/<dir>/<session>.jsonl`) → conversation events.

One record per line: `type` `user` / `assistant` carry `message` in the Anthropic Messages
shape (`tool_use{id,name,input}`, `tool_result{tool_use_id,content,is_error}` blocks);
`summary`, `file-history-snapshot` and `queue-operation` records are bookkeeping, not
conversation. `uuid`/`parentUuid` thread the records, `sessionId` names the session and
`timestamp` clocks every event. `isSidechain` records are a sub-agent's conversation (the Task
tool): each sidechain thread is its own session `<sessionId>/agent:<agentId or root uuid>`.

Thread defects never stop the parse; they are counted and named on the rows (attrs `thread`)
and in one closing `system` event: a parent never seen before its child, a parent chain
that loops, a uuid used twice, and a tool result that comes before its call.
A tool call the user rejected is answered by an `is_error` result with a rejection text: it
is a result (attrs `rejected`), not an orphan. Field names follow the files Claude Code 1.x–2.x
writes, as documented by the public tools that read them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from toolcall_cli.model.events import EventChunk, assemble_chunks
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages import anthropic, openai
from toolcall_cli.sources.messages.rows import Conv, as_id, as_str, content_text, to_ts
from toolcall_cli.sources.transcripts.base import (
    Head,
    TranscriptFormat,
    json_lines,
    share,
    tag_rows,
)
from toolcall_cli.sources.transcripts.chunks import CallOrder, ChunkSink

RECORD_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation"}
)
_CONVERSATION = frozenset({"user", "assistant", "system"})
#: The words Claude Code answers a rejected or interrupted tool use with.
REJECTION_RE = re.compile(
    r"(?i)doesn't want to proceed|does not want to proceed|tool use was rejected|"
    r"user rejected|request interrupted by user"
)
#: The text Claude Code writes as the user's turn when the user stops the model (Esc): the turn
#: was aborted, whatever call was pending gets no result from a tool.
INTERRUPT_RE = re.compile(r"\A\s*\[Request interrupted by user(?: for tool use)?\]")
#: Walk at most this many parents when a forward reference may close a loop.
_MAX_WALK = 10_000


def sniff(head: Head) -> int:
    """98 when most head lines are Claude Code records and some carry session threading."""
    objs = head.objects
    if not objs:
        return 0
    typed = share(objs, lambda o: as_str(o.get("type")) in RECORD_TYPES)
    threaded = any("parentUuid" in o or "sessionId" in o or "leafUuid" in o for o in objs)
    return 98 if typed >= 0.5 and threaded else 0


@dataclass
class _Threads:
    """uuid bookkeeping of one file: parents, sidechain roots and the defects found."""

    parent: dict[str, str | None] = field(default_factory=dict)
    root: dict[str, str] = field(default_factory=dict)
    wanted: set[str] = field(default_factory=set)  # parents referenced before they appeared
    problems: dict[str, int] = field(default_factory=dict)
    named: dict[str, list[str]] = field(default_factory=dict)
    last_message: dict[str, str] = field(default_factory=dict)  # session → last assistant id

    def note(self, problem: str, what: str) -> str:
        self.problems[problem] = self.problems.get(problem, 0) + 1
        names = self.named.setdefault(problem, [])
        if len(names) < 5:
            names.append(what)
        return f"{problem}: {what}"

    def add(self, uuid: str | None, parent: str | None) -> str | None:
        """Record one record's link; returns the defect it shows, if any."""
        if uuid is None:
            return None
        problem = None
        if uuid in self.parent:
            problem = self.note("duplicate uuid", uuid)
        elif parent is not None and parent not in self.parent:
            problem = self.note("missing parent", parent)
            self.wanted.add(parent)
        self.parent[uuid] = parent
        self.root[uuid] = self.root.get(parent, parent) if parent else uuid
        if uuid == parent or (uuid in self.wanted and self._loops(uuid)):
            problem = self.note("parent cycle", uuid)
        return problem

    def _loops(self, uuid: str) -> bool:
        cur = self.parent.get(uuid)
        for _ in range(_MAX_WALK):
            if cur is None:
                return False
            if cur == uuid:
                return True
            cur = self.parent.get(cur)
        return True


def _session(obj: dict[str, Any], th: _Threads, stem: str) -> str:
    sid = as_id(obj.get("sessionId")) or stem
    if obj.get("isSidechain") is True:
        agent = as_id(obj.get("agentId")) or th.root.get(as_id(obj.get("uuid")) or "", "?")
        return f"{sid}/agent:{agent}"
    return sid


def parse_chunks(path: Path, opts: ParseOptions) -> Iterator[EventChunk]:
    """Every record of a session file, streamed line by line and handed on in chunks."""
    out = ChunkSink(path, tz=opts.tz, order=CallOrder())
    sink = out.sink
    th = _Threads()
    convs: dict[str, Conv] = {}
    for n, obj, err in json_lines(path, opts.progress):
        origin = f"{path}:{n}"
        if err is not None or not isinstance(obj, dict):
            sink.unparsed(None, origin, obj, err or "record is not a JSON object")
            continue
        rtype = as_str(obj.get("type"))
        if rtype not in _CONVERSATION:
            if rtype not in RECORD_TYPES:
                sink.unparsed(None, origin, obj, f"unknown record type {str(rtype)[:40]!r}")
            continue
        uuid = as_id(obj.get("uuid"))
        problem = th.add(uuid, as_id(obj.get("parentUuid")))
        sid = _session(obj, th, path.stem)
        conv = convs.get(sid)
        if conv is None:
            conv = convs[sid] = sink.conv(session_id=sid)
        start = len(sink.rows)
        _emit_record(sink, conv, obj, rtype, f"{origin}#", n, th)
        tag_rows(
            sink,
            start,
            {
                "uuid": uuid,
                "parent_uuid": as_id(obj.get("parentUuid")),
                "sidechain": True if obj.get("isSidechain") is True else None,
                "thread": problem,
            },
        )
        yield from out.ready()
    if th.problems:
        summary = ", ".join(f"{k} ×{v} ({', '.join(th.named[k])})" for k, v in th.problems.items())
        sink.add(
            None,
            "system",
            f"{path}",
            detail=f"thread problems: {summary}",
            attrs={"thread_problems": th.problems},
        )
    yield from out.finish()


def parse(path: Path, opts: ParseOptions) -> pd.DataFrame:
    """Every record of a session file, as one event table."""
    return assemble_chunks(parse_chunks(path, opts))


def _emit_record(
    sink: Any, conv: Conv, obj: dict[str, Any], rtype: str, origin: str, n: int, th: _Threads
) -> None:
    ts = to_ts(obj.get("timestamp"))
    if rtype == "system":
        text = content_text(obj.get("content"))
        sink.add(
            conv,
            "system",
            origin,
            ts=ts,
            detail=text,
            attrs={"record": "system", "subtype": as_str(obj.get("subtype"))},
        )
        return
    msg = obj.get("message")
    if not isinstance(msg, dict):
        sink.unparsed(conv, origin, obj, "record has no message object")
        return
    if obj.get("isApiErrorMessage") is True:
        sink.add(
            conv,
            "system",
            origin,
            ts=ts,
            status="error",
            detail=content_text(msg.get("content")),
            attrs={"provider_error": True, "provider": "anthropic"},
        )
        return
    where = f"{origin}/message"
    if rtype == "assistant":
        _emit_assistant(sink, conv, msg, where, n, ts, th)
        return
    start = len(sink.rows)
    openai.emit_message(sink, conv, {**msg, "role": "user"}, where, n, ts=ts)
    _mark_rejections(sink, start, obj.get("toolUseResult"))
    _mark_interrupts(sink, start)


def _emit_assistant(
    sink: Any, conv: Conv, msg: dict[str, Any], where: str, n: int, ts: Any, th: _Threads
) -> None:
    """Claude Code writes one line per content block of a streamed message (same message
    id): those lines are one assistant turn and one call block."""
    mid = as_id(msg.get("id"))
    same = mid is not None and th.last_message.get(conv.session_id or "") == mid
    prev = (set(conv.block_ids), set(conv.block_names)) if same and conv.in_block else None
    if same:
        conv.turn -= 1
    content = msg.get("content")
    stop = as_str(msg.get("stop_reason"))
    if isinstance(content, list):
        anthropic.emit_blocks(sink, conv, "assistant", content, where, n, ts=ts, finish_reason=stop)
    else:
        openai.emit_message(
            sink, conv, {**msg, "role": "assistant"}, where, n, ts=ts, finish_reason=stop
        )
    if mid is not None:
        th.last_message[conv.session_id or ""] = mid
    if prev is not None:
        ids = [*prev[0], *(conv.block_ids if conv.in_block else ())]
        names = [*prev[1], *(conv.block_names if conv.in_block else ())]
        conv.open_block(ids, names)


def _mark_rejections(sink: Any, start: int, tool_use_result: Any) -> None:
    """Results the user rejected or interrupted: attrs `rejected`, kept as results."""
    extra = as_str(tool_use_result) or ""
    for row in sink.rows[start:]:
        if row["kind"] != "tool_result":
            continue
        attrs = row["attrs"] or {}
        said = f"{row['detail'] or ''} {extra}"
        if attrs.get("is_error") and REJECTION_RE.search(said):
            row["attrs"] = {**attrs, "rejected": True}
        if isinstance(tool_use_result, dict) and tool_use_result.get("interrupted") is True:
            row["attrs"] = {**row["attrs"], "interrupted": True}


def _mark_interrupts(sink: Any, start: int) -> None:
    """The user's `[Request interrupted by user]` turn: attrs `turn_aborted`, the marker Codex's
    `turn_aborted` event also sets (OR001 reads it: the user stopped the turn, not a tool)."""
    for row in sink.rows[start:]:
        if row["kind"] == "user" and INTERRUPT_RE.match(row["detail"] or ""):
            row["attrs"] = {**(row["attrs"] or {}), "turn_aborted": "interrupted"}


FORMAT = TranscriptFormat(
    name="claude-code",
    label="Claude Code session JSONL",
    samples=(
        "fixtures/transcripts/claude_code_session.jsonl",
        "fixtures/transcripts/claude_code_threads.jsonl",
    ),
    sniff=sniff,
    parse=parse,
    parse_chunks=parse_chunks,
    keys=frozenset({"type", "uuid", "parentUuid", "sessionId", "message", "isSidechain"}),
    needs="one record per line with `type` and `uuid`/`parentUuid`/`sessionId`",
)
