"""Content sniffing for the messages adapter (≤64 KiB head; 0 for anything not a conversation).

A head that is a whole JSON document (or whole JSONL lines) is scored by structure; a
truncated document by key patterns. Tool-definition files, BFCL data and logs score 0.
"""

from __future__ import annotations

import re
from typing import Any

from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.sources.messages.locate import MULTI_KEYS

_STREAM_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "message-start",
        "content-delta",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "message-end",
        "content-start",
    }
)
_ROLES = frozenset({"system", "user", "assistant", "tool", "function", "developer", "model"})
_ROLE_RE = re.compile(r'"role"\s*:\s*"(?:system|user|assistant|tool|function|developer)"')
_CONV_KEY_RE = re.compile(
    r'"(?:messages|traj|tool_calls|function_call|tool_call_id|train_messages|'
    r'tool_use_id|messages_display)"\s*:'
)
_BFCL_RE = re.compile(
    r'"id"\s*:\s*"(?:live_|simple_|multiple_|parallel_|irrelevance_|multi_turn_|'
    r'memory_|web_search_|exec_|sql_|java_|javascript_)[\w]*"|"question"\s*:\s*\[\s*\['
)
_SSE_RE = re.compile(r"(?m)^data:\s*(\{.*)$")
_CASSETTE_RE = re.compile(r"(?m)^interactions:\s*$")


def sniff(head: bytes, path: Any = None) -> int:
    """A 0–100 score for *head* being a conversation, response, stream or cassette."""
    text = head[:65536].decode("utf-8", errors="replace").lstrip("\ufeff")
    s = text.lstrip()
    if not s:
        return 0
    if _CASSETTE_RE.search(text[:4096]) and "request:" in text:
        return 92
    sse = _SSE_RE.findall(text)
    if sse:
        return max((stream_score(try_loads(p)) for p in sse[:50]), default=0)
    if s[0] not in "{[":
        return 0
    if _BFCL_RE.search(text[:20000]):
        return 0
    whole = try_loads(text) if len(head) < 65536 else None
    if whole is not None:
        return score(whole)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(head) >= 65536 and lines:
        lines = lines[:-1]  # the last line may be cut
    parsed = [try_loads(ln) for ln in lines[:200]]
    objs = [p for p in parsed if isinstance(p, dict | list)]
    if objs and len(objs) * 2 >= len(parsed):
        streams = [stream_score(o) for o in objs[:50]]
        if max(streams) > 0:
            return max(streams)
        return max(score(o) for o in objs[:50])
    return _pattern_score(text)


def stream_score(obj: Any) -> int:
    """Score for one streamed chunk object."""
    if not isinstance(obj, dict):
        return 0
    ch = obj.get("choices")
    if isinstance(ch, list) and (
        obj.get("object") == "chat.completion.chunk"
        or any(isinstance(c, dict) and "delta" in c for c in ch)
    ):
        return 93
    if isinstance(obj.get("type"), str) and obj["type"] in _STREAM_TYPES:
        return 90
    if isinstance(obj.get("candidates"), list):
        return 75
    return 0


def score(obj: Any, depth: int = 0) -> int:
    """Structural score of a parsed JSON value."""
    if depth > 3:
        return 0
    if isinstance(obj, list):
        dicts = [x for x in obj[:50] if isinstance(x, dict)]
        if not dicts:
            return 0
        roles = [x.get("role") for x in dicts if "role" in x]
        known = any(isinstance(r, str) and r in _ROLES for r in roles)
        if known and not any("question" in x for x in dicts):
            return 90
        return max(score(x, depth + 1) for x in dicts[:10])
    if not isinstance(obj, dict):
        return 0
    if "question" in obj or "ground_truth" in obj:
        return 0
    if isinstance(obj.get("interactions"), list):
        return 90
    for key in ("messages", "traj"):
        if isinstance(obj.get(key), list):
            return 95 if any(isinstance(m, dict) and "role" in m for m in obj[key]) else 70
    if isinstance(obj.get("request"), dict) and "response" in obj:
        return 90
    if isinstance(obj.get("choices"), list) and any(
        isinstance(c, dict) and ("message" in c or "delta" in c) for c in obj["choices"]
    ):
        return 90
    if obj.get("type") == "message" and isinstance(obj.get("content"), list):
        return 90
    if stream_score(obj):
        return stream_score(obj)
    ag = obj.get("answer_generation")
    if isinstance(ag, dict) and isinstance(ag.get("train_messages"), list):
        return 85
    if isinstance(obj.get("messages_display"), str):
        return 80
    if obj.get("object") == "response" and isinstance(obj.get("output"), list):
        return 80
    if isinstance(obj.get("contents"), list) and any(
        isinstance(c, dict) and "parts" in c for c in obj["contents"]
    ):
        return 75
    if isinstance(obj.get("input"), list) and any(
        isinstance(c, dict)
        and ("role" in c or c.get("type") in ("function_call", "function_call_output"))
        for c in obj["input"]
    ):
        return 75
    err = obj.get("error")
    if (
        isinstance(err, dict)
        and isinstance(err.get("message"), str)
        and set(obj) <= {"error", "type", "request_id", "id", "user_id"}
    ):
        return 60
    for mk in MULTI_KEYS:
        if isinstance(obj.get(mk), list):
            return score(obj[mk], depth + 1)
    return 0


def _pattern_score(text: str) -> int:
    """A truncated single document: key patterns only."""
    roles = len(_ROLE_RE.findall(text))
    keys = len(_CONV_KEY_RE.findall(text))
    if roles and keys:
        return 85
    if roles >= 2:
        return 60
    if '"choices"' in text and '"finish_reason"' in text:
        return 70
    return 0
