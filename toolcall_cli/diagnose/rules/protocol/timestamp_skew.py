"""\
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
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.call_label import tool_to_call
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import attr_list, has_key, objects, with_attrs
from toolcall_cli.diagnose.rules.protocol.response_contract import tool_responses
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import REQUEST_KINDS
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim

if TYPE_CHECKING:
    import pandas as pd

RULE = rule(
    "PR005",
    "timestamp-skew",
    Severity.warning,
    "response timestamp outside tolerance (500 ms) of the request's",
    doc=__doc__,
)


def parse_instant(value: Any) -> pd.Timestamp | None:
    """A timestamp from epoch seconds/ms/us/ns (number or digits) or an ISO string, as UTC."""
    import pandas as pd

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


def _capture(origin: Any) -> str:
    """The capture file of a `path#frame=N` origin."""
    return str(origin).partition("#")[0]


class _Requests:
    """Index of requests: by capture stream (in order) and by tool_call_id (first one)."""

    def __init__(self, ev: pd.DataFrame) -> None:
        reqs = ev.loc[
            ev["kind"].isin(REQUEST_KINDS),
            ["seq", "origin", "tool_call_id", "attrs", "_attrs"],
        ]
        self.by_stream: dict[Any, tuple[list[int], list[int], bool]] = {}
        streams: dict[Any, tuple[list[int], list[int]]] = {}
        streamed = reqs[has_key(reqs, "stream")]
        for label, seq, origin, stream in zip(
            streamed.index.tolist(),
            streamed["seq"].tolist(),
            objects(streamed, "origin"),
            attr_list(streamed, "stream"),
            strict=True,
        ):
            if stream is not None:
                # stream numbers and seq restart in every capture: key by file and stream
                seqs, labels = streams.setdefault((_capture(origin), stream), ([], []))
                seqs.append(int(seq))
                labels.append(label)
        for stream, (seqs, labels) in streams.items():
            ordered = len(seqs) < 2 or all(a <= b for a, b in pairwise(seqs))
            self.by_stream[stream] = (seqs, labels, ordered)
        ids = reqs["tool_call_id"]
        named = reqs[ids.notna() & (ids != "")].drop_duplicates("tool_call_id")
        self.by_id: dict[str, Any] = dict(
            zip(named["tool_call_id"].tolist(), named.index.tolist(), strict=True)
        )

    def find(self, kind: str, seq: int, cid: str | None, stream: tuple[str, Any]) -> Any | None:
        """The label of the request a response answers: the last request of its capture
        stream at or before it (in event order), else the first with its tool_call_id."""
        if stream[1] is not None and kind == "http_response" and stream in self.by_stream:
            seqs, labels, ordered = self.by_stream[stream]
            if ordered:
                k = bisect_right(seqs, seq)
                if k:
                    return labels[k - 1]
            else:
                before = [lab for s, lab in zip(seqs, labels, strict=True) if s <= seq]
                if before:
                    return before[-1]
        return self.by_id.get(cid or "")


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR005: responses whose body timestamp is off the request's by more than the tolerance."""
    import pandas as pd

    ev = with_attrs(ctx)
    resp = tool_responses(ctx)
    tol = ctx.cfg.tolerance.timestamp_ms
    requests: _Requests | None = None
    stamped = resp[has_key(resp, "timestamp")]
    req_attrs = ev["_attrs"].to_numpy()
    for idx, kind, seq, origin, cid_raw, tool, a in zip(
        stamped.index.tolist(),
        objects(stamped, "kind"),
        stamped["seq"].tolist(),
        objects(stamped, "origin"),
        objects(stamped, "tool_call_id"),
        objects(stamped, "tool"),
        stamped["_attrs"].tolist(),
        strict=True,
    ):
        said = parse_instant(a.get("timestamp"))
        if said is None:
            continue
        requests = requests or _Requests(ev)
        cid = text(cid_raw)
        label = requests.find(str(kind), int(seq), cid, (_capture(origin), a.get("stream")))
        stamp = a.get("x_request_timestamp")
        if label is not None:
            stamp = req_attrs[label].get("x_request_timestamp", stamp)
        sent = parse_instant(stamp)
        basis = "X-Request-Timestamp"
        if sent is None and label is not None:
            req_ts: Any = ev["ts"].iat[label]
            if pd.notna(req_ts):
                sent, basis = req_ts, "the request's capture time"
        if sent is None:
            continue
        off = (said - sent).total_seconds() * 1000.0
        if abs(off) <= tol:
            continue
        yield make(
            RULE,
            ctx,
            f"the response of {tool_to_call(tool, cid)} is stamped {off:+.0f} ms from {basis} "
            f"(tolerance {tol:.0f} ms)",
            [idx] if label is None else [label, idx],
            call_ids=[cid or None],
            extra={"offset_ms": round(off, 1), "tolerance_ms": tol},
            aim=Aim(key="timestamp", pattern=r'"ts":\s*"[^"]+"'),
        )
