"""Event rows of a batch of HAR entries: pcap's builder, then the HAR's own origins and attrs.

:func:`~toolcall_cli.sources.pcap.events.events` turns the batch's message table into
http_request/http_response rows (keys from X-Tool-Call-ID, X-Trace-ID, X-Session-ID,
X-Request-ID, traceparent) and the tool_call / tool_result / system rows of LLM API
bodies. Its frame-shaped origins and attrs are then rewritten: the origin is a JSON pointer
into the HAR (``path#/log/entries/7/request``) that evidence quotes directly,
``frame``/``stream`` give way to ``entry``, and each message gets its entry's timings,
sizes, initiator and resource type. WebSocket frames recorded in `_webSocketMessages`
become `ws_message` rows after their entry.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import orjson
import pandas as pd

from toolcall_cli.model.events import STR, UNPARSED, build_frame, concat_frames
from toolcall_cli.model.jsonio import canonical, dumps
from toolcall_cli.sources._shared.logtime import epoch_to_utc
from toolcall_cli.sources.har.entries import Batch
from toolcall_cli.sources.pcap import events as pcap_events

SOURCE: Final = "har"
#: Where a HAR's entries sit (origins are JSON pointers below it: ``#/log/entries/7/request``).
ENTRIES: Final = "/log/entries"
_MAIN: Final = frozenset({"http_request", "http_response"})
_PCAP_ONLY: Final = ("frame", "stream", "request_frame", "response_frame")
_KEYS: Final = ("session_id", "trace_id", "request_id")
_DEDUPE: Final = ("kind", "tool_call_id", "tool", "args", "detail", "status", "origin")
_SENTINEL: Final = "\x00"  # the path pcap's builder sees; replaced by the entry's pointer
_PREFIX: Final = f"{_SENTINEL}#frame="
#: Characters of a WebSocket frame or a bad entry kept in `detail`.
TEXT_CAP: Final = 2000


def batch_events(
    batch: Batch,
    path: str,
    *,
    cap: int,
    seen: set[str],
    source: str = SOURCE,
    entries: str = ENTRIES,
) -> pd.DataFrame:
    """The events of *batch* in entry order; *seen* carries the LLM-call dedupe across batches
    (a chat request resends the whole history: its calls count at their first sighting).

    *source* and *entries* (the pointer prefix of an entry) let another exchange recording
    read as HAR entries (mitmproxy flows) keep its own name and origins."""
    where = f"{path}#{entries}"
    frames: list[pd.DataFrame] = []
    if batch.rows:
        frames.append(_http(batch, where, cap, seen, source))
    if batch.websockets:
        frames.append(_websockets(batch, where, frames[0] if frames else None, source))
    if batch.bad:
        items = [(f"#{entries}/{i}", why, why) for i, why in batch.bad]
        frames.append(unparsed(path, items, order=True, source=source))
    if not frames:
        return concat_frames([])
    out = concat_frames(frames)
    return out.sort_values("seq", kind="stable").reset_index(drop=True)


def _http(batch: Batch, where: str, cap: int, seen: set[str], source: str) -> pd.DataFrame:
    df = pcap_events.events(batch.table(), _SENTINEL, cap=cap)
    frame = df["origin"].str.slice(len(_PREFIX)).astype("int64").to_numpy()
    entry, side = frame // 2, frame % 2
    df["origin"] = [
        f"{where}/{e}/{'response' if s else 'request'}"
        for e, s in zip(entry.tolist(), side.tolist(), strict=True)
    ]
    kinds = df["kind"].tolist()
    attrs_in = df["attrs"].tolist()
    sizes = df["size"].astype(object).where(df["size"].notna(), None).tolist()
    attrs_out: list[str | None] = []
    cells = [df[c].astype(object).where(df[c].notna(), None).tolist() for c in _DEDUPE]
    keep = np.ones(len(df), dtype=bool)
    for k, (kind, raw, f, e) in enumerate(
        zip(kinds, attrs_in, frame.tolist(), entry.tolist(), strict=True)
    ):
        a: dict[str, Any] = orjson.loads(raw) if isinstance(raw, str) and raw else {}
        for name in _PCAP_ONLY:
            a.pop(name, None)
        if kind in _MAIN:
            a.update({n: v for n, v in batch.attrs.get(f, {}).items() if v is not None})
            if "initiator" in a:  # what a finding quotes as the request's cause (FL002)
                a["initiator_at"] = f"{where}/{e}/_initiator"
            if "host" not in a and "netloc" in a:
                a["host"] = a["netloc"]
            a.pop("netloc", None)
            sizes[k] = batch.sizes.get(f)
        elif _duplicate([c[k] for c in cells], a, seen):
            keep[k] = False
            continue
        a["entry"] = e
        attrs_out.append(dumps(a))
    df = df[keep].copy()
    df["attrs"] = pd.Series(attrs_out, index=df.index, dtype=STR)
    df["size"] = pd.array([s for s, k in zip(sizes, keep, strict=True) if k], dtype="Int64")
    df["source"] = source
    # order key: entry, then side (request, response, websocket frames), stable inside
    df["seq"] = (entry * 3 + side)[keep]
    return df


def _duplicate(row: list[Any], a: dict[str, Any], seen: set[str]) -> bool:
    """pcap's dedupe key for an LLM row (cells in `_DEDUPE` order), kept across batches."""
    kind, cid, tool, args, detail, status, origin = row
    key = canonical(
        [kind, cid, tool, args, detail, a.get("tools"), origin if status == "error" else None]
    )
    if key in seen:
        return True
    seen.add(key)
    return False


def _websockets(batch: Batch, where: str, http: pd.DataFrame | None, source: str) -> pd.DataFrame:
    """One `ws_message` per recorded WebSocket frame (time, direction, opcode, data)."""
    keys: dict[int, dict[str, Any]] = {}
    if http is not None:
        req = http[http["kind"] == "http_request"]
        for e, *vals in zip(
            (req["seq"] // 3).tolist(), *(req[c].tolist() for c in _KEYS), strict=True
        ):
            keys[int(e)] = {
                c: (None if pd.isna(v) else v) for c, v in zip(_KEYS, vals, strict=True)
            }
    cols: dict[str, list[Any]] = {
        c: [] for c in ("ts", "seq", "origin", "detail", "size", "attrs", *_KEYS)
    }
    for e, msgs in batch.websockets:
        for k, m in enumerate(msgs):
            if not isinstance(m, dict):
                continue
            data = m.get("data")
            text = data if isinstance(data, str) else "" if data is None else dumps(data)
            t = m.get("time")
            cols["ts"].append(
                float(t) if isinstance(t, int | float) and not isinstance(t, bool) else np.nan
            )
            cols["seq"].append(e * 3 + 2)
            cols["origin"].append(f"{where}/{e}/_webSocketMessages/{k}")
            cols["detail"].append(text[:TEXT_CAP])
            cols["size"].append(len(text))
            attrs = {"direction": m.get("type"), "opcode": m.get("opcode"), "entry": e}
            cols["attrs"].append(dumps({n: v for n, v in attrs.items() if v is not None}))
            for c in _KEYS:
                cols[c].append(keys.get(e, {}).get(c))
    n = len(cols["seq"])
    times = np.asarray(cols.pop("ts"), dtype=float)
    ts: pd.Series | list[Any] = epoch_to_utc(times) if n else []
    return build_frame({"ts": ts, "source": [source] * n, "kind": ["ws_message"] * n, **cols}, n=n)


def unparsed(
    path: str,
    items: list[tuple[str, str, str]],
    *,
    order: bool = False,
    source: str = SOURCE,
) -> pd.DataFrame:
    """`unparsed` rows from (pointer, text, reason); *order* places them at their entry."""
    n = len(items)
    seq = [int(p.rsplit("/", 1)[-1]) * 3 if order else 0 for p, _, _ in items]
    return build_frame(
        {
            "seq": seq,
            "source": [source] * n,
            "origin": [f"{path}{p}" for p, _, _ in items],
            "kind": [UNPARSED] * n,
            "detail": [t[:TEXT_CAP] for _, t, _ in items],
            "attrs": [dumps({"reason": why}) for _, _, why in items],
        },
        n=n,
    )
