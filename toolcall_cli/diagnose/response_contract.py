"""The tool-service response contract (PR004, PR005), read from captures and middleware logs.

Part of the protocol family (`protocol.py` imports this module to register it). A tool
response must carry `status`, must not carry data with an error status, and its `timestamp`
must be within the tolerance of the request's `X-Request-Timestamp`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pandas as pd

from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose._common import make, text, with_attrs
from toolcall_cli.diagnose.base import DiagnoseContext

__all__ = ["PR004", "PR005", "parse_instant"]

PR004 = rule(
    "PR004",
    "response-contract",
    Severity.error,
    "a tool response without `status`, or with error status and data",
    doc="""\
What it does
  Checks every tool-service response seen on the wire (capture) or logged by the middleware:
  a JSON body must carry `status`, and a body whose status is an error must not also carry
  `data`.

Why it matters
  A middleware that validates responses drops the ones without `status` (the call then has no
  result), and an error with data leaves the model to guess which of the two to believe.

Example
  `{"data": {"seats": 3}}` from `POST /tools/check_seats`, or
  `{"status": "error", "data": {"seats": 3}}`.

Fix
  Make the tool service always answer `{"status": "ok"|"error", "data": ..., "message": ...}`
  and send `data` only with `ok`.
""",
)

PR005 = rule(
    "PR005",
    "timestamp-skew",
    Severity.warning,
    "response timestamp outside tolerance (500 ms) of the request's",
    doc="""\
What it does
  Compares the `timestamp` in a tool response body with the request's `X-Request-Timestamp`
  header (or the request's capture time) and flags differences beyond
  `[tolerance] timestamp_ms` (default 500 ms).

Why it matters
  Middlewares that check freshness drop such responses as stale or replayed; a skewed clock
  on the tool service makes every call look like that.

Example
  Request sent with `X-Request-Timestamp: 1717000000000`; the response says
  `"timestamp": 1717000004210` (4.2 s later for a 40 ms call).

Fix
  Synchronise the tool service's clock (NTP), echo the request timestamp instead of a local
  one, or widen the tolerance if the service legitimately queues.
""",
)

_ERROR = frozenset({"error", "failed", "failure", "fail", "err"})
_BODY_KEYS = ("call_id", "timestamp", "message", "data_empty")
_NO_STATUS = re.compile(r"(?:missing|no|without)(?: the)? [\"'`]?status\b", re.IGNORECASE)


def _whose(tool: Any, cid: str | None) -> str:
    return f"{tool} to call {cid}" if cid else str(tool)


def _responses(ev: pd.DataFrame) -> pd.DataFrame:
    """Tool-service responses: captured HTTP responses of a tool, and middleware responses."""
    return ev[(ev["kind"].isin(["http_response", "mw_response"])) & ev["tool"].notna()]


def _json_body(a: dict[str, Any], status: str | None) -> bool:
    ctype = str(a.get("content_type") or "").lower()
    return "json" in ctype or any(k in a for k in _BODY_KEYS) or status is not None


def _contract_problem(kind: str, status: str | None, a: dict[str, Any], detail: Any) -> str | None:
    """What breaks the contract in one response, or None."""
    status = status or (str(a["status"]) if a.get("status") is not None else None)
    if kind == "http_response":
        if not _json_body(a, status):
            return None
        if status is None:
            return "the JSON body has no `status`"
    elif status is None and (a.get("status_missing") or _NO_STATUS.search(text(detail) or "")):
        return "the response has no `status`"
    data = a.get("data")
    has_data = (
        a.get("data_empty") is False
        or a.get("has_data") is True
        or (data is not None and data not in ({}, [], ""))
    )
    if status is not None and status.lower() in _ERROR and has_data:
        return f"status is {status!r} but the body also carries `data`"
    return None


@CLASSIFIERS.register(PR004.code)
def check_response_contract(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR004: one finding per response that breaks the `{status, data, message}` contract."""
    resp = _responses(with_attrs(ctx))
    for idx, kind, status, a, detail in zip(
        resp.index, resp["kind"], resp["status"], resp["_attrs"], resp["detail"], strict=True
    ):
        problem = _contract_problem(str(kind), text(status), a, detail)
        if problem is None:
            continue
        row = resp.loc[idx]
        cid = text(row["tool_call_id"])
        yield make(
            PR004,
            ctx,
            f"the response of {_whose(row['tool'], cid)} breaks the contract: {problem}",
            resp.loc[[idx]],
            call_ids=[cid or None],
        )


def parse_instant(value: Any) -> pd.Timestamp | None:
    """A timestamp from epoch seconds/ms/us/ns (number or digits) or an ISO string, as UTC."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        s = value.strip()
        if re.fullmatch(r"\d+(\.\d+)?", s):
            value = float(s)
        else:
            try:
                ts = pd.Timestamp(s)
            except (ValueError, TypeError):
                return None
            if pd.isna(ts):
                return None
            return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
    if isinstance(value, int | float):
        v = float(value)
        unit = "s" if v < 1e11 else "ms" if v < 1e14 else "us" if v < 1e17 else "ns"
        return pd.Timestamp(v, unit=unit, tz="UTC")
    return None


class _Requests:
    """Index of requests: by capture stream (in order) and by tool_call_id (first one)."""

    def __init__(self, ev: pd.DataFrame) -> None:
        reqs = ev[ev["kind"].isin(["http_request", "mw_request"])]
        self.by_stream: dict[Any, list[tuple[int, Any]]] = {}
        self.by_id: dict[str, Any] = {}
        for label, seq, cid, a in zip(
            reqs.index, reqs["seq"], reqs["tool_call_id"], reqs["_attrs"], strict=True
        ):
            if a.get("stream") is not None:
                self.by_stream.setdefault(a["stream"], []).append((int(seq), label))
            key = text(cid)
            if key and key not in self.by_id:
                self.by_id[key] = label

    def find(self, resp: Any) -> Any | None:
        """The label of the request *resp* answers: same stream, else same tool_call_id."""
        stream = resp["_attrs"].get("stream")
        if stream is not None and resp["kind"] == "http_response":
            before = [lab for seq, lab in self.by_stream.get(stream, []) if seq <= resp["seq"]]
            if before:
                return before[-1]
        return self.by_id.get(text(resp["tool_call_id"]) or "")


@CLASSIFIERS.register(PR005.code)
def check_timestamp_skew(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR005: responses whose body timestamp is off the request's by more than the tolerance."""
    ev = with_attrs(ctx)
    resp = _responses(ev)
    tol = ctx.cfg.tolerance.timestamp_ms
    requests: _Requests | None = None
    stamped = resp[
        pd.Series(["timestamp" in a for a in resp["_attrs"]], index=resp.index, dtype=bool)
    ]
    for idx, row in stamped.iterrows():
        said = parse_instant(row["_attrs"].get("timestamp"))
        if said is None:
            continue
        requests = requests or _Requests(ev)
        label = requests.find(row)
        req = ev.loc[label] if label is not None else None
        stamp = row["_attrs"].get("x_request_timestamp")
        if req is not None:
            stamp = req["_attrs"].get("x_request_timestamp", stamp)
        sent = parse_instant(stamp)
        basis = "X-Request-Timestamp"
        if sent is None and req is not None and pd.notna(req["ts"]):
            sent, basis = req["ts"], "the request's capture time"
        if sent is None:
            continue
        off = (said - sent).total_seconds() * 1000.0
        if abs(off) <= tol:
            continue
        cid = text(row["tool_call_id"])
        rows = resp.loc[[idx]] if req is None else pd.concat([ev.loc[[req.name]], resp.loc[[idx]]])
        yield make(
            PR005,
            ctx,
            f"the response of {_whose(row['tool'], cid)} is stamped {off:+.0f} ms from {basis} "
            f"(tolerance {tol:.0f} ms)",
            rows,
            call_ids=[cid or None],
            extra={"offset_ms": round(off, 1), "tolerance_ms": tol},
        )
