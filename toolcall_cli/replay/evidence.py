"""The recorded request and response of one call, picked from the events sharing its id.

The response is the wire's (a pcap `http_response`) when captured, else the middleware's
`Received response` line; a `mw_dropped` line adds why the middleware threw it away. The
request it is judged against is the one it answers: the pcap request of the same frame pair
or TCP stream, else the latest request sent before the response (a retry's answer is compared
with the retry, not with the first attempt).

When one `tool_call_id` names several calls (FL003), the id's evidence is split: the first call
keeps the dispatch evidence, later ones keep the rejections.
"""

from __future__ import annotations

from typing import Any

from toolcall_cli.model.cells import attrs_of, text
from toolcall_cli.model.events import DISPATCH_KINDS, REJECTION_KINDS, WIRE_SOURCES
from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.replay.base import RequestEvidence, ResponseEvidence
from toolcall_cli.replay.response import to_ms


def integer(v: Any) -> int | None:
    """A cell as int, or None."""
    return None if text(v) is None else int(v)


def _ms(row: Any) -> float | None:
    return float(row.t_.value) / 1e6 if text(row.t_) is not None else None


def response_of(rows: list[Any]) -> tuple[ResponseEvidence | None, Any]:
    """The recorded response of a call and the row it came from (None, None when none)."""
    dropped = next((text(r.detail) or "dropped" for r in rows if r.kind == "mw_dropped"), None)
    for kind in ("http_response", "mw_response"):  # the wire's answer first, then the log's
        for r in rows:
            if r.kind != kind:
                continue
            source = str(r.source)
            a = attrs_of(r.attrs)
            body = try_loads(text(r.detail)) if kind == "http_response" else None
            return ResponseEvidence(
                origin=str(r.origin),
                source=source,
                status=text(r.status) or text(a.get("status")),
                call_id=text(a.get("call_id")),
                has_call_id=source in WIRE_SOURCES or "call_id" in a,
                timestamp_ms=to_ms(a.get("timestamp")),
                size=integer(r.size),
                data_empty=a.get("data_empty") if isinstance(a.get("data_empty"), bool) else None,
                http_status=integer(r.http_status),
                dropped_reason=dropped,
                body=body if isinstance(body, dict) else None,
            ), r
    if dropped is not None:
        row = next(r for r in rows if r.kind == "mw_dropped")
        return ResponseEvidence(
            str(row.origin), str(row.source), None, None, False, None, None, None, None, dropped
        ), row
    return None, None


def request_of(rows: list[Any], answer: Any) -> RequestEvidence | None:
    """The request *answer* (a response row, or None) replies to."""
    for kind in ("http_request", "mw_request"):
        reqs = [r for r in rows if r.kind == kind]
        if not reqs:
            continue
        pick = reqs[0]
        if answer is not None:
            a = attrs_of(answer.attrs)
            same = [r for r in reqs if _pairs(attrs_of(r.attrs), a)]
            t = _ms(answer)
            before = [r for r in reqs if t is not None and (_ms(r) or 0.0) <= t]
            pick = (
                same[0] if same else (max(before, key=lambda r: _ms(r) or 0.0) if before else pick)
            )
        xts = to_ms(attrs_of(pick.attrs).get("x_request_timestamp"))
        return RequestEvidence(str(pick.origin), _ms(pick), xts)
    return None


def _pairs(req: dict[str, Any], resp: dict[str, Any]) -> bool:
    if resp.get("request_frame") is not None:
        return bool(req.get("frame") == resp["request_frame"])
    return resp.get("stream") is not None and req.get("stream") == resp.get("stream")


def split_kinds(kinds: set[str], rank: int | None) -> set[str]:
    """The evidence kinds a call gets when its id is shared (rank 0 = first call, None = sole)."""
    if rank is None:
        return kinds
    if rank == 0:
        return kinds - REJECTION_KINDS if kinds & DISPATCH_KINDS else kinds
    return kinds - DISPATCH_KINDS if kinds & REJECTION_KINDS else kinds
