"""Flooding caused by the infrastructure: double submits (FL002), retries that reuse the call
(FL004) and a rate-limit window split across middleware instances (FL005).

These causes live outside the conversation, so the rules read the access log, the capture and
the middleware log: the model did nothing wrong, yet the middleware counts too many calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from toolcall_cli.core.events import KINDS
from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose._byid import RowsByKey
from toolcall_cli.diagnose._common import cite_floods, column, flood_rows, make, of_kind, text
from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.http_requests import TOOL_PATH, ns, requests, result_between

#: Two chat POSTs of one session closer than this are a double submit.
BURST = pd.Timedelta(seconds=1)
#: A repeat of a 499/504 tool request within this window is a retry.
RETRY_WINDOW = pd.Timedelta(seconds=60)

FL002 = rule(
    "FL002",
    "double-submit",
    Severity.error,
    "≥2 chat POSTs of one session within 1 s (front end)",
    doc="""\
What it does
  Looks at a session's chat requests (access-log lines or captured POSTs to a chat endpoint
  such as /v1/chat/completions, /chat, /api/chat: anything that is not /tools/...) and fires
  when two start within 1 s of each other, or when a capture shows two identical request
  bodies, with no tool result between them. Each source is read on its own, so one request
  seen by both nginx and the capture is not counted twice.

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
""",
)

FL004 = rule(
    "FL004",
    "retry-duplicate",
    Severity.error,
    "the same call sent to the tool service twice (timeout retry without a new id)",
    doc="""\
What it does
  Fires when one tool call (one tool_call_id) is sent to the tool service two or more times:
  repeated middleware requests, repeated captured POST /tools/NAME requests, repeated
  access-log lines, or an nginx 499/504 on a tool request followed by a repeat of it.
  Ids that the conversation shows on different calls are left to FL003.

Why it matters
  A retry after a timeout re-runs the tool (a second booking, a second payment) and counts
  again against the flooding window; the first response may still arrive and be dropped
  or injected twice.

Example
  POST /tools/book_flight X-Tool-Call-ID: call_r1 → 504 after 5 s; 10 ms later the
  middleware sends POST /tools/book_flight with call_r1 again.

Fix
  Make tool requests idempotent (pass the tool_call_id as an idempotency key and let the
  service return the stored result), exclude retries from the flooding count, and raise the
  upstream timeout above the tool's real latency.
""",
)

FL005 = rule(
    "FL005",
    "session-state-loss",
    Severity.warning,
    "one session's calls counted on ≥2 middleware instances (window not shared)",
    doc="""\
What it does
  Fires when the middleware events of one session come from two or more instances (the
  instance / host / pod field). It is an error when that session also had a flooding
  cancellation, a warning otherwise (shared state may be fine).

Why it matters
  A sliding-window rate limit kept in process memory is per instance. Behind a load
  balancer each instance sees part of a session: limits are applied to a fraction of the
  calls, state such as seen ids is lost, and cancellations look random.

Example
  sess-lb: call_c1 on mw-1, call_c2 on mw-2, call_c3 on mw-1 ... mw-2 cancels call_c7 as
  flooding while mw-1 has counted only three calls.

Fix
  Keep the rate-limit window and dedupe state in a shared store (Redis, the session
  record), or route a session to one instance (sticky sessions on the session id).
""",
)


@CLASSIFIERS.register("FL002")
def double_submit(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Two chat POSTs of one session (one source) within 1 s or with identical captured bodies."""
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
    chat = reqs.loc[is_chat.to_numpy(), ["_scope", "source", "_start", "size", "_path"]]
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
    close = st[1:] - st[:-1] <= BURST.value
    is_pcap = np.asarray(sources == "pcap")[so[:-1]]
    same_body = is_pcap & (size[1:] == size[:-1]) & (path[1:] == path[:-1])
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
    for part in np.split(rows, bounds):
        scope, source = str(scopes[sc[part[0]]]), str(sources[so[part[0]]])
        gap = (st[part].max() - st[part].min()) / 1e6
        yield make(
            FL002,
            ctx,
            f"{len(part)} chat requests of session {scope} started within {gap:.0f} ms of each "
            f"other ({source}), before any tool result: the turn was submitted twice",
            cite_floods(ctx, labels[part], session_ids=[scope]),
            session_id=scope,
            extra={"requests": len(part), "source": source},
        )


def _sends(ctx: DiagnoseContext) -> pd.DataFrame:
    """Requests to the tool service: middleware requests, captured and logged /tools/ POSTs."""
    reqs = requests(ctx)
    tool_http = reqs[
        reqs["_path"].str.match(TOOL_PATH) | (reqs["kind"] == "http_request") & reqs["tool"].notna()
    ]
    mw = of_kind(ctx, "mw_request")
    return pd.concat([mw, tool_http[mw.columns.intersection(tool_http.columns)]])


@CLASSIFIERS.register("FL004")
def retry_duplicate(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One call sent to the tool service ≥2 times (per source), or a 499/504 then a repeat."""
    sends = _sends(ctx)
    if not len(sends):
        return
    id_defects = {c for f in ctx.findings_of("FL003") for c in f.tool_call_ids}
    flagged: set[str] = set()
    with_id = sends[sends["tool_call_id"].notna() & (sends["tool_call_id"] != "")]
    # only ids sent twice or more can fire: drop the (many) single sends before iterating groups
    sent = with_id.groupby(["tool_call_id", "source"], sort=False)["kind"].transform("size")
    with_id = with_id[sent.to_numpy() >= 2]
    for (cid, source), grp in with_id.groupby(["tool_call_id", "source"], sort=True):
        if len(grp) < 2 or cid in id_defects or cid in flagged:
            continue
        args = grp["args"].dropna().unique()
        if len(args) > 1:  # different arguments under one id: FL003's territory
            continue
        flagged.add(str(cid))
        codes = [int(s) for s in grp["http_status"].dropna() if int(s) in (499, 502, 504)]
        why = f" after HTTP {codes[0]}" if codes else ""
        tool = text(grp["tool"].dropna().iloc[0]) if grp["tool"].notna().any() else "?"
        yield make(
            FL004,
            ctx,
            f"call {cid} ({tool}) was sent to the tool service {len(grp)} times{why} ({source})",
            cite_floods(ctx, grp),
            call_ids=[str(cid)],
            extra={"sends": len(grp), "source": str(source)},
        )
    yield from _nginx_retries(ctx, sends, flagged)


def _nginx_retries(
    ctx: DiagnoseContext, sends: pd.DataFrame, flagged: set[str]
) -> Iterator[Finding]:
    """Access-log tool requests without ids: a 499/504, then the same path from the same scope."""
    lines = sends[
        (sends["kind"] == "http_access")
        & (sends["tool_call_id"].isna() | (sends["tool_call_id"] == ""))
    ]
    if not len(lines):
        return
    scope = lines["session_id"].fillna(lines["client"]).fillna("")
    for (_, tool), grp in lines.groupby([scope, lines["tool"].fillna("")], sort=True):
        grp = grp.sort_values("ts", kind="stable")
        times: list[Any] = grp["ts"].tolist()
        status: list[Any] = grp["http_status"].tolist()
        for k in range(len(grp) - 1):
            if pd.isna(status[k]) or int(status[k]) not in (499, 504) or pd.isna(times[k + 1]):
                continue
            gap = times[k + 1] - times[k]
            if gap > RETRY_WINDOW:
                continue
            yield make(
                FL004,
                ctx,
                f"POST /tools/{tool} got HTTP {int(status[k])} and was sent again "
                f"{gap.total_seconds():.0f} s later",
                cite_floods(ctx, grp.iloc[k : k + 2]),
                extra={"sends": 2, "source": "nginx"},
            )
            break


@CLASSIFIERS.register("FL005")
def session_state_loss(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One session's middleware events on ≥2 instances."""
    mw = of_kind(ctx, *_MW_KINDS)
    mw = mw[mw["instance"].notna() & (mw["instance"] != "") & mw["session_id"].notna()]
    if not len(mw):
        return
    mw = mw.assign(session_id=mw["session_id"].astype(str), instance=mw["instance"].astype(str))
    # first row per (session, instance), in event order: a session needs two of them
    per = mw.drop_duplicates(["session_id", "instance"])
    many = per["session_id"].duplicated(keep=False)
    per = per[many.to_numpy()]
    if not len(per):
        return
    sessions = sorted(set(per["session_id"].tolist()))
    # first row per instance, first row per call: each session's rows in event order
    per_s = RowsByKey(per["session_id"])
    calls = mw[mw["session_id"].isin(sessions) & mw["tool_call_id"].notna()]
    calls_s = RowsByKey(calls.drop_duplicates(["session_id", "tool_call_id"])["session_id"])
    instance, call_id = column(ctx, "instance"), column(ctx, "tool_call_id")
    flooded_sessions = {str(s) for s in flood_rows(ctx)["session_id"].dropna().tolist()}
    for sid in sessions:
        firsts = per_s.labels(sid)
        instances = [str(instance[i]) for i in firsts]
        ids = [str(call_id[i]) for i in calls_s.labels(sid)]
        flooded = sid in flooded_sessions
        yield make(
            FL005,
            ctx,
            f"session {sid} was handled by {len(instances)} middleware instances "
            f"({', '.join(instances[:5])}); {len(ids)} calls were counted apart"
            + ("; one of them cancelled a call as flooding" if flooded else ""),
            cite_floods(ctx, firsts, session_ids=[sid]),
            call_ids=ids[:20],
            session_id=sid,
            severity=Severity.error if flooded else Severity.warning,
            extra={"instances": instances},
        )


_MW_KINDS = KINDS["middleware"]
