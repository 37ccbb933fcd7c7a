"""\
What it does
  Looks at a session's chat requests (access-log lines or captured POSTs to a chat endpoint
  such as /v1/chat/completions, /chat, /api/chat: anything that is not /tools/...) and fires
  when two start within 1 s of each other, or when a capture shows two identical request
  bodies, with no tool result between them. Each source is read on its own, so one request
  seen by both nginx and the capture is not counted twice. When the recording says what
  started each request (a HAR's `_initiator` stack), the finding quotes it: the click handler
  that fired twice.

Why it matters
  A double-clicked send button or a client retry on a slow response starts two model runs
  for one turn. Both call the same tools, so the middleware sees twice the calls it should
  and cancels some of them as flooding, although the model behaved.

Example
  10.0.0.5 "POST /v1/chat/completions" session_id=sess-1 at 12:00:00.10 and again at
  12:00:00.35; each run calls search_flights once; the second is cancelled.

Fix
  Disable the send button while a turn is in flight and make client retries idempotent
  (an idempotency key per turn that the gateway deduplicates).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import with_attrs
from toolcall_cli.diagnose.kit.incidents import FLOOD_OR001
from toolcall_cli.diagnose.rules.flooding.cancellations import cite_floods
from toolcall_cli.diagnose.rules.flooding.http_requests import (
    TOOL_PATH,
    ns,
    requests,
    result_between,
)
from toolcall_cli.model.events import WIRE_SOURCES
from toolcall_cli.model.findings import Evidence, Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.words import plural

if TYPE_CHECKING:
    import numpy as np

#: Two chat POSTs of one session closer than this (nanoseconds: 1 s) are a double submit.
BURST_NS = 1_000_000_000

RULE = rule(
    "FL002",
    "double-submit",
    Severity.error,
    "≥2 chat POSTs of one session within 1 s (front end)",
    doc=__doc__,
    explains=(FLOOD_OR001,),
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Two chat POSTs of one session (one source) within 1 s or with identical captured bodies."""
    import numpy as np
    import pandas as pd

    reqs = requests(ctx)
    is_chat = (
        (reqs["_method"] == "POST")
        & ~reqs["_path"].str.match(TOOL_PATH)
        & reqs["_scope"].notna()
        & reqs["tool"].isna()
        & reqs["_start"].notna()
    )
    if int(is_chat.sum()) < 2:
        return
    chat = reqs.loc[is_chat.to_numpy(), ["_scope", "source", "_start", "size", "_path", "_body"]]
    # Column-wise: order by (session, source, start), compare each request with the next one
    # of its group, and look up "a tool result in between" by bisection (no loop per session).
    scope_code, scopes = pd.factorize(chat["_scope"].astype(str), sort=True)
    source_code, sources = pd.factorize(chat["source"].astype(str), sort=True)
    start = ns(chat["_start"])
    order = np.lexsort((np.arange(len(chat)), start, source_code, scope_code))
    sc, so, st = scope_code[order], source_code[order], start[order]
    size = chat["size"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)[order]
    path = chat["_path"].to_numpy(dtype=object)[order]
    same_group = (sc[1:] == sc[:-1]) & (so[1:] == so[:-1])
    close = st[1:] - st[:-1] <= BURST_NS
    is_wire = np.asarray(sources.isin(WIRE_SOURCES))[so[:-1]]
    body = chat["_body"].to_numpy(dtype=object)[order]
    # the digest decides where both bodies were recorded; the size alone where one was not
    digest_ok = (body[1:] == body[:-1]) | pd.isna(body[1:]) | pd.isna(body[:-1])
    same_body = is_wire & (size[1:] == size[:-1]) & (path[1:] == path[:-1]) & digest_ok
    pair = same_group & (close | same_body)
    pair &= ~result_between(ctx, scopes, sc[:-1], st[:-1], st[1:])
    hit = np.zeros(len(order), dtype=bool)
    hit[:-1] |= pair
    hit[1:] |= pair
    rows = np.flatnonzero(hit)
    if not len(rows):
        return
    labels = chat.index.to_numpy()[order]
    group = sc[rows].astype(np.int64) * len(sources) + so[rows]
    bounds = np.flatnonzero(np.diff(group)) + 1
    attrs = with_attrs(ctx)["_attrs"]  # once: a column look-up per finding cost seconds at 1 M
    for part in np.split(rows, bounds):
        scope, source = str(scopes[sc[part[0]]]), str(sources[so[part[0]]])
        started = _initiators(attrs.loc[labels[part]].tolist())
        said = "; started by " + " / ".join(dict.fromkeys(t for t, _ in started)) if started else ""
        runs = _runs(part, pair)
        finding = make(
            RULE,
            ctx,
            f"{len(part)} chat requests of session {scope} {_bursts(runs, st)} ({source}), "
            f"before any tool result: {_resubmitted(runs)}{said}",
            cite_floods(ctx, labels[part], session_ids=[scope]),
            session_id=scope,
            extra={"requests": len(part), "source": source}
            | ({"initiators": len(started)} if started else {}),
            aim=Aim(key="ts", pattern=r'\[[^\]]{10,40}\] "POST [^"\s]+'),  # when, and which path
        )
        cause = tuple(Evidence(origin=at, text=t) for t, at in started[:3])
        yield replace(finding, evidence=finding.evidence + cause) if cause else finding


def _runs(part: np.ndarray, pair: np.ndarray) -> list[np.ndarray]:
    """The bursts of one session's paired requests (positions in start order): a burst ends
    where a request is not paired with the next one."""
    import numpy as np

    return np.split(part, np.flatnonzero(~pair[part[:-1]]) + 1)


def _bursts(runs: list[np.ndarray], start: np.ndarray) -> str:
    """`started within 98 ms of each other`, or per burst when the session has several."""
    if len(runs) == 1:
        (part,) = runs
        return (
            f"started within {(start[part].max() - start[part].min()) / 1e6:.0f} ms of each other"
        )
    each = ", ".join(
        f"{len(r)} within {(start[r].max() - start[r].min()) / 1e6:.0f} ms" for r in runs
    )
    return f"came in {len(runs)} bursts ({each})"


def _resubmitted(runs: list[np.ndarray]) -> str:
    """`the turn was submitted twice` (3 times, …), or `2 turns were each submitted more than
    once`: the count of the requests, not a fixed word."""
    if len(runs) > 1:
        return f"{plural(len(runs), 'turn')} were each submitted more than once"
    n = len(runs[0])
    return f"the turn was submitted {'twice' if n == 2 else plural(n, 'time')}"


def _initiators(attrs: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """(readable stack, origin of the recorded initiator) of the requests (their parsed
    `attrs`) that have one."""
    out = []
    for a in attrs:
        text, at = a.get("initiator_text"), a.get("initiator_at")
        if isinstance(text, str) and text and isinstance(at, str):
            out.append((text, at))
    return out
