"""Row collection for the messages adapter: conversations, pointers, value coercion.

Parsers never build DataFrames themselves: they append rows to a :class:`Sink`, grouped into
:class:`Conv` objects (one per conversation). The sink assigns `seq` (emission order) and the
session ids of the COMMON contract (`<stem>` for one conversation, `<stem>:<n>` for several)
when the frame is built.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import orjson
import pandas as pd

from toolcall_cli.model.events import UNPARSED, build_frame, validate_frame

#: Cap for the raw text kept in an `unparsed` row's detail.
RAW_CAP = 2000

_COLUMNS = (
    "ts",
    "tool_call_id",
    "request_id",
    "tool",
    "args",
    "status",
    "http_status",
    "size",
    "detail",
)


@dataclass(eq=False)
class Conv:
    """One conversation being collected, with the pairing state tool results need."""

    index: int
    session_id: str | None = None
    trace_id: str | None = None
    turn: int = 0
    block_ids: set[str] = field(default_factory=set)
    block_names: set[str] = field(default_factory=set)
    in_block: bool = False
    tools_sig: str | None = None
    last_kind: str | None = None  # kind of the last event added (Responses items group by it)
    system_sig: str | None = None
    stop: tuple[str, ...] = ()  # the request's stop sequences (they cut text-protocol blocks)
    #: The request's output token budget, and the response's output tokens used (TR003).
    max_output_tokens: int | None = None
    output_tokens: int | None = None

    def open_block(self, ids: list[str | None], names: list[str | None]) -> None:
        """An assistant message carrying tool calls starts a new call block."""
        self.block_ids = {i for i in ids if i}
        self.block_names = {n for n in names if n}
        self.in_block = True

    def close_block(self) -> None:
        """A message that is not a tool result ends the current block."""
        self.in_block = False

    def follows(self, call_id: str | None, name: str | None) -> bool:
        """True when a result directly follows the assistant block holding its call."""
        if not self.in_block:
            return False
        if call_id:
            return call_id in self.block_ids
        return name in self.block_names if name else not self.block_ids


@dataclass
class Sink:
    """Every row a file produced, in order; builds the event table at the end."""

    path: Path
    tz: str = "UTC"  # zone for naive timestamps (--tz)
    rows: list[dict[str, Any]] = field(default_factory=list)
    convs: list[Conv] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The path as written into origins."""
        return str(self.path)

    def conv(self, session_id: Any = None, trace_id: Any = None) -> Conv:
        """Open a new conversation (ids from a wrapper, if any)."""
        c = Conv(index=len(self.convs), session_id=as_id(session_id), trace_id=as_id(trace_id))
        self.convs.append(c)
        return c

    def add(
        self,
        conv: Conv | None,
        kind: str,
        origin: str,
        *,
        attrs: dict[str, Any] | None = None,
        **cols: Any,
    ) -> None:
        """Append one event row."""
        row: dict[str, Any] = {"conv": conv, "kind": kind, "origin": origin.removesuffix("#")}
        for k in _COLUMNS:
            row[k] = cols.get(k)
        row["attrs"] = attrs
        self.rows.append(row)
        if conv is not None:
            conv.last_kind = kind

    def unparsed(self, conv: Conv | None, origin: str, raw: Any, reason: str) -> None:
        """Append an `unparsed` row: the raw text (capped) and why it was refused."""
        text = raw if isinstance(raw, str) else (safe_dump(raw) or repr(raw)[:RAW_CAP])
        self.add(conv, UNPARSED, origin, detail=text[:RAW_CAP], attrs={"reason": reason})

    def frame(self, *, source: str = "messages") -> pd.DataFrame:
        """The validated event table of everything collected (rows tagged with *source*)."""
        stem = self.path.stem or "messages"
        single = len(self.convs) == 1
        places = _conversation_places(self.rows, self.label)
        names = ("seq", "source", "origin", "kind", "session_id", "trace_id", "attrs", *_COLUMNS)
        cols: dict[str, list[Any]] = {c: [] for c in names}
        for seq, row in enumerate(self.rows):
            conv: Conv | None = row["conv"]
            sid = None
            if conv is not None:
                sid = conv.session_id or (stem if single else f"{stem}:{places[conv.index]}")
            cols["seq"].append(seq)
            cols["source"].append(source)
            cols["origin"].append(row["origin"])
            cols["kind"].append(row["kind"])
            cols["session_id"].append(sid)
            cols["trace_id"].append(conv.trace_id if conv else None)
            attrs = row["attrs"]
            cols["attrs"].append(
                safe_dump({k: v for k, v in attrs.items() if v is not None}) if attrs else None
            )
            for k in _COLUMNS:
                cols[k].append(row[k])
            if row["ts"] is not None and row["ts"].tzinfo is None:
                cols["ts"][-1] = _localise(row["ts"], self.tz)
        return validate_frame(build_frame(cols, n=len(self.rows)))


_PLACE = re.compile(r"^(?::(\d+))?#?/?(\d+)?")


def _conversation_places(rows: list[dict[str, Any]], label: str) -> dict[int, str]:
    """Per conversation index, where it sits in the file, as its origins say: the line of a
    JSONL file, else the index in the top-level array (`#/109/...` → `109`). A label that
    two conversations would share falls back to their order (`<place>.<n>`)."""
    first: dict[int, str] = {}
    for row in rows:
        conv = row["conv"]
        if conv is None or conv.index in first:
            continue
        m = _PLACE.match(str(row["origin"]).removeprefix(label))
        line, index = (m.group(1), m.group(2)) if m else (None, None)
        first[conv.index] = line or index or str(conv.index)
    seen: dict[str, int] = {}
    for place in first.values():
        seen[place] = seen.get(place, 0) + 1
    return {k: (p if seen[p] == 1 else f"{p}.{k}") for k, p in first.items()}


def _localise(ts: datetime, tz: str) -> datetime:
    try:
        zone: tzinfo = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        zone = UTC
    return ts.replace(tzinfo=zone).astimezone(UTC)


def ptr(base: str, *tokens: Any) -> str:
    """Extend a JSON-pointer origin (`f.json#/messages`) with escaped tokens."""
    out = base
    for t in tokens:
        out += "/" + str(t).replace("~", "~0").replace("/", "~1")
    return out


def response_entries(
    sink: Sink, conv: Conv, body: dict[str, Any], origin: str, key: str, noun: str
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The object entries of a response body's list `body[key]` (`choices`, `candidates`,
    `output`), with their index; a value that is not a list, or an entry that is not an
    object, becomes an `unparsed` row instead."""
    entries = body.get(key)
    if not isinstance(entries, list):
        sink.unparsed(conv, ptr(origin, key), entries, f"{key} is not a list")
        return
    for k, entry in enumerate(entries):
        if isinstance(entry, dict):
            yield k, entry
        else:
            sink.unparsed(conv, ptr(origin, key, k), entry, f"{noun} is not an object")


def as_dict(value: Any) -> dict[str, Any]:
    """*value* when it is an object, else an empty dict (wrong types read as absent)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """*value* when it is an array, else an empty list."""
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    """*value* when it is a string, else None."""
    return value if isinstance(value, str) else None


def as_id(value: Any) -> str | None:
    """An id as text: strings stay as they are (even ""), numbers become text, others None."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return str(value)
    return None


def safe_dump(obj: Any) -> str | None:
    """Compact JSON text of *obj*, or None when it cannot be serialised (e.g. nested too deep)."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS, default=str).decode()
    except (orjson.JSONEncodeError, TypeError, RecursionError):
        return None


def args_text(value: Any) -> tuple[str | None, str | None]:
    """Arguments as sent: (text, args_type); a string is kept verbatim with no type mark."""
    if isinstance(value, str):
        return value, None
    if value is None:
        return None, "null"
    kind = {dict: "object", list: "array", bool: "boolean", int: "number", float: "number"}.get(
        type(value), type(value).__name__
    )
    text = safe_dump(value)
    return (text, kind) if text is not None else (None, "unserialisable")


def content_text(content: Any) -> str | None:
    """The text of a message's content: strings verbatim, lists of parts joined by newlines."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for p in content:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict):
                t = p.get("text")
                if isinstance(t, str):
                    parts.append(t)
                elif isinstance(p.get("content"), str | list):
                    parts.append(content_text(p.get("content")) or "")
                elif p.get("type") not in (
                    "thinking",
                    "redacted_thinking",
                    "reasoning",
                    "image",
                    "image_url",
                ):
                    parts.append(safe_dump(p) or "")
        return "\n".join(parts)
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return str(content["text"])
    return safe_dump(content)


def to_ts(value: Any) -> datetime | None:
    """A real timestamp from an epoch number or an ISO / HTTP-date string; None otherwise."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, int | float):
            if value <= 0:
                return None
            secs = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(secs, tz=UTC)
        if isinstance(value, str) and value.strip():
            return _parse_time_text(value.strip())
    except (ValueError, OverflowError, OSError, TypeError):
        return None
    return None


def _parse_time_text(text: str) -> datetime | None:
    """ISO 8601 (naive = UTC) or an HTTP date; anything else is not a time."""
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        try:
            dt = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
    return dt if dt.tzinfo is None else dt.astimezone(UTC)  # naive: localised by Sink.frame
