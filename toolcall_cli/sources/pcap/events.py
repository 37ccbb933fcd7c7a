"""Event rows out of the message table (the event contract: :mod:`toolcall_cli.model.events`).

http_request / http_response per message; keys from headers (a response falls back to its
request's keys); tool-service JSON bodies fill tool/args/status; LLM API bodies add
tool_call / tool_result (or provider-error / tools-declared system) events right after their
message (:mod:`.llm_rows`). Headers, pairing, keys, details and the `attrs` text are built
column-wise (pyarrow, numpy); what stays per message is what only Python reads: each body's
JSON (orjson), the few fields taken out of it (one pass: :mod:`.body_scan`), and its sha256.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.events import UNPARSED, build_frame, concat_frames
from toolcall_cli.model.jsonio import dumps
from toolcall_cli.sources._shared.textlog import const_str, frame, to_str_series
from toolcall_cli.sources.pcap import arrow_text as at
from toolcall_cli.sources.pcap import body_scan, llm_rows
from toolcall_cli.sources.pcap.header_columns import header_values, tools_from_paths, trace_ids
from toolcall_cli.sources.pcap.http import NULL_NS, decode_body
from toolcall_cli.sources.pcap.pairing import pair

SOURCE: Final = llm_rows.SOURCE
_KEYS: Final = ("session_id", "trace_id", "tool_call_id", "request_id")
_HEADERS: Final = {
    "session_id": "x-session-id",
    "tool_call_id": "x-tool-call-id",
    "request_id": "x-request-id",
    "x_trace": "x-trace-id",
    "traceparent": "traceparent",
    "host": "host",
    "x_original_id": "x-original-id",
    "x_request_timestamp": "x-request-timestamp",
    "content_type": "content-type",
    "content_encoding": "content-encoding",
    "transfer_encoding": "transfer-encoding",
}
#: `attrs` members taken from the message's own headers, after method and uri.
_HEADER_ATTRS: Final = (
    "x_original_id",
    "x_request_timestamp",
    "content_type",
    "content_encoding",
    "transfer_encoding",
)
_LLM_PATH: Final = r"(?s)^[^?]*(?:/completions|/v1/messages)(?:\?|\z)"
_JSON_START: Final = (b"{", b"[")
_RESPONSE_FACTS: Final = ("call_id", "timestamp", "message", "data_empty")


def events(msgs: pd.DataFrame, path: str, *, cap: int) -> pd.DataFrame:
    """The event table for a message table (capture order)."""
    n = len(msgs)
    h = header_values(at.text(msgs["hdr"]), _HEADERS)
    h["trace_id"] = pc.coalesce(h["x_trace"], trace_ids(h["traceparent"]))
    ctype = pc.utf8_lower(h["content_type"])
    bodies: list[bytes] = msgs["body"].tolist()
    flags = {i: dict(f) for i, f in enumerate(msgs["flags"].tolist()) if f}
    encoding = h["content_encoding"]
    encoded = np.flatnonzero(pc.is_valid(encoding).to_numpy(zero_copy_only=False))
    for i, enc in zip(encoded.tolist(), encoding.take(encoded).to_pylist(), strict=True):
        bodies[i], extra = decode_body(bodies[i], enc, cap=cap)
        if extra:
            flags.setdefault(i, {}).update(extra)
    frames = msgs["frame"].to_numpy(np.int64)
    ts_ns = msgs["ts_ns"].to_numpy(np.int64)
    is_req = msgs["is_request"].to_numpy(bool)
    codes = _floats(msgs["code"])
    stream_ids = pd.factorize(msgs["stream"], use_na_sentinel=False)[0]
    peer, pflags = pair(stream_ids, is_req, codes, frames, _floats(msgs["request_in"]))
    for i, f in pflags.items():
        flags.setdefault(i, {})[f] = True

    uri = at.text(msgs["uri"])
    found = body_scan.scan(
        bodies,
        json_type=_has(ctype, "json").tolist(),
        event_stream=_has(ctype, "event-stream").tolist(),
        is_request=is_req.tolist(),
        llm_path=pc.fill_null(pc.match_substring_regex(uri, _LLM_PATH), False)
        .to_numpy(False)
        .tolist(),
    )
    objs, is_dict, llm = found.objs, found.is_dict, found.llm
    req = np.where(is_req, np.arange(n), peer)  # the request of each message, -1 for none
    req_idx = pa.array(req, mask=req < 0)
    has_peer = peer >= 0
    resp_of_req = ~is_req & has_peer
    body_cols = _body_facts(found, n, tools_from_paths(uri), flags)
    tool = pc.if_else(pa.array(is_req), body_cols["tool"], body_cols["tool"].take(req_idx))

    keys = {}
    for k in _KEYS:
        inherited = pc.if_else(pa.array(resp_of_req), h[k].take(req_idx), pa.nulls(n, h[k].type))
        keys[k] = pc.coalesce(h[k], inherited)
    client = pc.if_else(pa.array(is_req), at.text(msgs["src"]), at.text(msgs["dst"]))
    method, version = at.text(msgs["method"]), at.text(msgs["version"])
    phrase = at.text(msgs["phrase"])
    code_text = at.numbers(np.nan_to_num(codes).astype(np.int64), (codes == codes) & (codes != 0))
    detail = pc.if_else(
        pa.array(is_req),
        at.words([method, uri, version]),
        at.words([version, code_text, phrase]),
    )
    sizes = np.fromiter(map(len, bodies), np.int64, n)
    valid_ts = (ts_ns != NULL_NS) & (ts_ns[np.maximum(peer, 0)] != NULL_NS)
    duration = np.where(resp_of_req & valid_ts, (ts_ns - ts_ns[np.maximum(peer, 0)]) / 1e6, np.nan)
    not_json = np.array([o is None for o in objs], bool) & (sizes > 0) & _has(ctype, "json")
    attrs = _attrs(
        msgs, h, body_cols, bodies, sizes, flags, req_idx, peer, is_req, not_json, frames
    )

    status = pc.if_else(pa.array(is_req), pa.nulls(n, pa.large_string()), body_cols["status"])
    http_status = pd.array(np.nan_to_num(codes).astype(np.int64), dtype="Int64")
    http_status[is_req | (codes != codes)] = pd.NA
    main = frame(
        {
            "ts": llm_rows.timestamps(ts_ns),
            "seq": np.arange(n, dtype=np.int64),
            "source": const_str(SOURCE, n),
            "origin": to_str_series(
                pc.binary_join_element_wise(
                    at.lit(f"{path}#frame="), pa.array(frames).cast(pa.large_string()), at.lit("")
                )
            ),
            "kind": to_str_series(
                pc.if_else(pa.array(is_req), at.lit("http_request"), at.lit("http_response"))
            ),
            **{k: to_str_series(v) for k, v in keys.items()},
            "tool": to_str_series(tool),
            "args": to_str_series(
                pc.if_else(pa.array(is_req), body_cols["args"], pa.nulls(n, pa.large_string()))
            ),
            "status": to_str_series(status),
            "http_status": http_status,
            "duration_ms": duration,
            "size": pd.array(sizes, dtype="Int64"),
            "client": to_str_series(client),
            "detail": to_str_series(detail),
            "attrs": to_str_series(attrs),
        },
        n,
    )
    extras = llm_rows.message_rows(msgs, objs, is_dict, llm, req, is_req, main, path)
    if not extras:
        return main
    main["_order"] = np.arange(n, dtype=np.float64)
    out = pd.concat([main, llm_rows.extra_frame(extras)], ignore_index=True)
    out = out.sort_values("_order", kind="stable")
    out = out.drop(columns="_order").reset_index(drop=True)
    out["seq"] = np.arange(len(out), dtype=np.int64)
    return concat_frames([out])


def _floats(col: pd.Series) -> np.ndarray:
    """A column of integers or missing values as float64 (NaN: missing)."""
    if isinstance(col.dtype, pd.Int64Dtype):  # what the fields pass gives: no object detour
        return col.to_numpy(np.float64, na_value=np.nan)
    return pd.to_numeric(pd.Series(col, dtype=object), errors="coerce").to_numpy(np.float64)


def _has(text: pa.Array, part: str) -> np.ndarray:
    """Rows whose *text* contains *part* (False where null)."""
    return pc.fill_null(pc.match_substring(text, part), False).to_numpy(zero_copy_only=False)


def _body_facts(
    found: body_scan.BodyScan, n: int, path_tool: pa.Array, flags: dict[int, dict[str, Any]]
) -> dict[str, pa.Array]:
    """tool / args / args_type of tool-service requests, status and facts of responses."""
    asks, sent, rows, facts, llm = found.asks, found.sent, found.answers, found.facts, found.llm
    named = [f[0] if f else None for f in sent]
    for i, tool, by_path in zip(
        asks.tolist(), named, path_tool.take(asks).to_pylist(), strict=True
    ):
        if by_path and tool and tool != by_path:
            flags.setdefault(i, {})["body_function"] = tool

    def asked(k: int) -> pa.Array:
        return at.scatter(n, asks, pa.array([f[k] if f else None for f in sent], pa.large_string()))

    def answered(k: int, text: pa.Array | None = None) -> pa.Array:
        vals = [f[k] for f in facts]
        return at.scatter(n, rows, at.json_values(vals) if text is None else text)

    path_hit = pc.and_(pc.is_valid(path_tool), pa.array(~llm))  # an LLM request names no tool
    return {
        "tool": pc.if_else(path_hit, path_tool.cast(pa.large_string()), asked(0)),
        "args": asked(1),
        "args_type": asked(2),
        "status": answered(0, pa.array([f[0] for f in facts], pa.large_string())),
        "call_id": answered(1),
        "timestamp": answered(2),
        "message": answered(3),
        "data_empty": answered(4, at.numbers(np.array([f[4] for f in facts], bool))),
    }


def _attrs(
    msgs: pd.DataFrame,
    h: dict[str, pa.Array],
    body_cols: dict[str, pa.Array],
    bodies: list[bytes],
    sizes: np.ndarray,
    flags: dict[int, dict[str, Any]],
    req_idx: pa.Array,
    peer: np.ndarray,
    is_req: np.ndarray,
    not_json: np.ndarray,
    frames: np.ndarray,
) -> pa.Array:
    """The `attrs` object of every message, members in their fixed order."""
    n = len(msgs)
    has_peer = peer >= 0
    peer_frame = frames[np.maximum(peer, 0)]
    stream = _floats(msgs["stream"])
    true = np.ones(n, bool)
    req_rows = np.flatnonzero(is_req & (sizes > 0))
    sha = [hashlib.sha256(bodies[i]).hexdigest()[:16] for i in req_rows.tolist()]
    flag_rows = np.array(sorted(flags), np.int64)
    flag_text = pa.array([dumps(flags[i]) for i in flag_rows.tolist()], pa.large_string())
    members = [
        ("method", _strings(at.text(msgs["method"]).take(req_idx))),
        ("uri", _strings(at.text(msgs["uri"]).take(req_idx))),
        ("host", _strings(h["host"])),
        ("stream", at.numbers(np.nan_to_num(stream).astype(np.int64), stream == stream)),
        ("frame", at.numbers(frames)),
        *((k, _strings(h[k])) for k in _HEADER_ATTRS),
        ("body_not_json", at.numbers(true, not_json)),
        ("args_type", _strings(body_cols["args_type"])),
        ("body_sha256", at.scatter(n, req_rows, at.quote(pa.array(sha, pa.large_string())))),
        ("no_response", at.numbers(true, is_req & ~has_peer)),
        ("response_frame", at.numbers(peer_frame, is_req & has_peer)),
        ("request_frame", at.numbers(peer_frame, ~is_req & has_peer)),
        ("unmatched", at.numbers(true, ~is_req & ~has_peer)),
        *((k, body_cols[k]) for k in _RESPONSE_FACTS),
        ("", at.scatter(n, flag_rows, flag_text)),
    ]
    return at.objects(members, n)


def _strings(arr: pa.Array) -> pa.Array:
    """JSON string members; `attrs` leaves empty strings out, as it leaves out nulls."""
    return at.quote(at.nonempty(arr))


def unparsed_frame(path: str, items: list[tuple[str, str]]) -> pd.DataFrame:
    """`unparsed` rows: (raw text, reason) pairs, raw capped at 2000 chars."""
    m = len(items)
    return build_frame(
        {
            "ts": llm_rows.timestamps([NULL_NS] * m),
            "seq": list(range(m)),
            "source": [SOURCE] * m,
            "origin": [path] * m,
            "kind": [UNPARSED] * m,
            "detail": [r[:2000] for r, _ in items],
            "attrs": [dumps({"reason": why}) for _, why in items],
        }
    )
