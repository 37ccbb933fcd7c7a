"""The tool_call / tool_result / system rows that LLM API bodies on the wire add to a capture.

A chat request resends the whole history, so each call, result or declared tool list counts
at its first sighting (`seen`). The rows are placed right after their message (`_order`)
and carry its keys; they are built one message at a time, since only LLM round trips hold
them and each body's history is a Python object already.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import pandas as pd

from toolcall_cli.model.events import build_frame
from toolcall_cli.model.jsonio import canonical, dumps
from toolcall_cli.sources.pcap.body import llm_request_events, llm_response_events
from toolcall_cli.sources.pcap.http import NULL_NS

SOURCE: Final = "pcap"
#: The keys an LLM row takes from its message (its own tool_call_id is the call's).
KEYS: Final = ("session_id", "trace_id", "request_id")


def timestamps(ns: list[int] | np.ndarray) -> pd.Series:
    """int64 nanoseconds (NULL_NS: unknown) as UTC times."""
    arr = np.asarray(ns, dtype=np.int64)
    ts = pd.Series(pd.to_datetime(arr, unit="ns", utc=True))
    return ts.where(arr != NULL_NS)


def llm_rows(
    i: int, obj: dict[str, Any], is_req: bool, code: Any, frame: int, stream: Any, seen: set[str]
) -> list[dict[str, Any]]:
    """The event rows of message *i*'s LLM body *obj* not already in *seen* (which grows)."""
    evs = llm_request_events(obj) if is_req else llm_response_events(obj, code)
    if is_req and isinstance(obj.get("tools"), list):
        evs.insert(
            0, {"kind": "system", "detail": "tools declared", "attrs": {"tools": obj["tools"]}}
        )
    rows = []
    for ev in evs:
        key = canonical(
            [
                ev["kind"],
                ev.get("tool_call_id"),
                ev.get("tool"),
                ev.get("args"),
                ev.get("detail"),
                ev["attrs"].get("tools"),
                frame if ev.get("status") == "error" else None,
            ]
        )
        if key in seen:  # chat requests resend the whole history: keep the first sighting
            continue
        seen.add(key)
        attrs = {
            **ev.pop("attrs"),
            "frame": frame,
            "stream": stream,
            "from": "request" if is_req else "response",
        }
        if ev["kind"] == "system" and ev.get("status") == "error":
            ev["http_status"] = code
        rows.append({**ev, "attrs": dumps({k: v for k, v in attrs.items() if v is not None})})
    return rows


def placed_rows(
    rows: list[dict[str, Any]],
    keys: dict[str, Any],
    ts_ns: int,
    path: str,
    frame: int,
    client: Any,
    i: int,
) -> list[dict[str, Any]]:
    """The LLM rows of message *i*, placed right after it (`_order`), with its keys."""
    m = len(rows)
    base = {"ts_ns": ts_ns, "origin": f"{path}#frame={frame}", "client": client, **keys}
    return [{**base, **r, "_order": i + (k + 1) / (m + 1)} for k, r in enumerate(rows)]


def extra_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """One event frame for all LLM rows (a frame per message costs more than its rows)."""
    m = len(rows)
    cols = (
        "kind", "tool_call_id", "tool", "args", "status", "http_status", "size", "detail",
        "attrs", "origin", "client", *KEYS,
    )  # fmt: skip
    df = build_frame(
        {
            "ts": timestamps([r["ts_ns"] for r in rows]),
            "seq": [0] * m,
            "source": [SOURCE] * m,
            **{c: [r.get(c) for r in rows] for c in cols},
        }
    )
    df["_order"] = np.array([r["_order"] for r in rows], dtype=np.float64)
    return df


def message_rows(
    msgs: pd.DataFrame,
    objs: list[Any],
    is_dict: np.ndarray,
    llm: np.ndarray,
    req: np.ndarray,
    is_req: np.ndarray,
    main: pd.DataFrame,
    path: str,
) -> list[dict[str, Any]]:
    """The LLM rows of every message whose body (or whose request's body) is an LLM call."""
    own = llm | (~is_req & (req >= 0) & llm[np.maximum(req, 0)] & is_dict)
    extras: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i in np.flatnonzero(own).tolist():
        code, stream = msgs["code"].iloc[i], msgs["stream"].iloc[i]
        code = None if pd.isna(code) else int(code)
        stream = None if pd.isna(stream) else int(stream)
        frame_no = int(msgs["frame"].iloc[i])
        rows = llm_rows(i, objs[i], bool(is_req[i]), code, frame_no, stream, seen)
        if rows:
            row = main.iloc[i]
            keys = {k: _py(row[k]) for k in KEYS}
            extras.extend(
                placed_rows(
                    rows, keys, int(msgs["ts_ns"].iloc[i]), path, frame_no, _py(row["client"]), i
                )
            )
    return extras


def _py(value: Any) -> Any:
    return None if pd.isna(value) else value
