"""Timeouts and latency (TM001, TM002): what the model was told when a tool ran out of time,
and which phases of a round trip broke their SLA.
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
from toolcall_cli.diagnose.truncation import tools_by_call

__all__ = ["TM001", "TM002", "bare_timeout", "breached_phases"]

TM001 = rule(
    "TM001",
    "timeout-without-partial",
    Severity.warning,
    "a tool timeout reported to the model as a bare error, with no progress or resume token",
    doc="""\
What it does
  Finds tool calls that timed out (a middleware `tool call timeout`, an HTTP 504/408 from the
  tool service, an nginx 504/499 for the call, or a short tool result that says it timed out)
  and checks what the model was told: a result with no partial data, progress, resume token,
  job/task id, handle or cursor is a bare timeout.

Why it matters
  The model cannot tell "failed" from "not finished yet" from "finished but the answer was
  lost"; it retries the whole call (duplicate side effects) or gives up.

Example
  `{"error": "tool call timeout"}` after a 30 s `export_report` that had written 300 of 1,000
  rows.

Fix
  Treat a timeout as a state, not an error: return `status: "partial"` with progress and a
  resume token, or run long tools as submit + poll (`task_id`, `check_task`), with an
  idempotency key so a retry does not repeat side effects.
""",
)

TM002 = rule(
    "TM002",
    "sla-breach",
    Severity.warning,
    "a phase's latency above its SLA",
    doc="""\
What it does
  Compares each call's phases from the aligned timeline with the SLA in `[sla]`: call
  initiation (received → request sent, 100 ms), tool service (request → response, 800 ms),
  injection (response → result injected, 50 ms) and end to end (3 s). One finding per call
  lists every breached phase, for the 50 calls furthest over their SLA; the other breaching
  calls are summarised in one more finding (calls and worst latency per phase), so a slow
  day does not bury the root causes.

Why it matters
  Slow phases are where timeouts, retries and duplicate calls start; the phase tells which
  team owns the delay.

Example
  `search`: service 2,140 ms (SLA 800 ms), end to end 3,420 ms (SLA 3,000 ms).

Fix
  Look at the owner of the slow phase: middleware queueing (initiation, injection) or the tool
  service (service); raise the SLA in config only if the budget really is larger.
""",
)

_TIMEOUT_TEXT = re.compile(
    r"\btim(?:ed|e)[\s_-]?out\b|\btimeout\b|deadline exceeded|ETIMEDOUT", re.IGNORECASE
)
_PROGRESS = re.compile(
    r"partial|progress|resum|job[\s_-]?id|task[\s_-]?id|\bhandle\b|cursor|continuation|\bpoll",
    re.IGNORECASE,
)
_ERRORISH = re.compile(
    r"\b(?:error|fail(?:ed|ure)?|exception|unavailable|abort(?:ed)?|cancell?ed|gateway)\b",
    re.IGNORECASE,
)
#: A tool result longer than this that mentions a timeout is content, not a bare error.
BARE_RESULT_CHARS = 600
_TIMEOUT_HTTP = (504, 408)
_TIMEOUT_NGINX = (504, 499)


def bare_timeout(result: str) -> bool:
    """The result text carries no partial data, progress, resume token or handle."""
    return not _PROGRESS.search(result)


def _timeouts(ev: pd.DataFrame) -> dict[str, tuple[str, list[Any]]]:
    """tool_call_id → (what timed out, evidence rows) from middleware, HTTP and access logs."""
    out: dict[str, tuple[str, list[Any]]] = {}
    status = ev["http_status"]
    mw = ev["kind"] == "mw_timeout"
    http = (ev["kind"] == "http_response") & status.isin(_TIMEOUT_HTTP).fillna(False)
    nginx = (ev["kind"] == "http_access") & status.isin(_TIMEOUT_NGINX).fillna(False)
    for mask, what in (
        (mw, "the middleware logged a tool call timeout"),
        (http, "the tool service answered HTTP {s}"),
        (nginx, "nginx logged HTTP {s} for it"),
    ):
        rows = ev[mask.astype(bool) & ev["tool_call_id"].notna()]
        for idx, cid, st in zip(
            rows.index, rows["tool_call_id"].astype(str), rows["http_status"], strict=True
        ):
            if not cid:
                continue
            label = what.format(s=st if pd.notna(st) else "")
            prev = out.get(cid)
            out[cid] = (prev[0] if prev else label, [*(prev[1] if prev else []), idx])
    return out


def _call(cid: str | None, tool: str | None) -> str:
    """`call ID (tool)` for messages."""
    return f"call {cid or '(no id)'}" + (f" ({tool})" if tool else "")


@CLASSIFIERS.register(TM001.code)
def check_timeout_without_partial(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TM001: timed-out calls whose result told the model nothing it could resume from."""
    ev = with_attrs(ctx)
    results = ev[(ev["kind"] == "tool_result") & ev["detail"].notna()]
    signals = _timeouts(ev)
    names = tools_by_call(ev)
    done: set[str] = set()
    for idx, raw, raw_id, raw_tool in zip(
        results.index, results["detail"], results["tool_call_id"], results["tool"], strict=True
    ):
        detail = str(raw)
        cid = text(raw_id) or ""
        key = cid or f"#{idx}"
        if key in done:
            continue
        signal = signals.get(cid) if cid else None
        if len(detail) > BARE_RESULT_CHARS:
            continue  # a payload, not an error message (a retry may have succeeded: FL004)
        said_timeout = bool(_TIMEOUT_TEXT.search(detail))
        if signal is None and not said_timeout:
            continue
        if not (said_timeout or _ERRORISH.search(detail) or not detail.strip()):
            continue  # the model got a real answer (a retry may have succeeded: FL004)
        if not bare_timeout(detail):
            continue
        done.add(key)
        what = signal[0] if signal else "the tool result says it timed out"
        rows = (
            pd.concat([ev.loc[signal[1][:2]], results.loc[[idx]]]) if signal else results.loc[[idx]]
        )
        quoted = detail.strip().replace("\n", " ")
        quoted = quoted if len(quoted) <= 120 else quoted[:119] + "…"
        tool = text(raw_tool) or names.get(cid)
        yield make(
            TM001,
            ctx,
            f"{_call(cid, tool)} timed out ({what}) and the model got only "
            f"{quoted!r}: no partial result, progress or resume handle",
            rows,
            call_ids=[cid or None],
        )


#: Calls reported one by one (the furthest over their SLA); the rest share one finding.
MAX_CALL_FINDINGS = 50


def _breach_summary(
    ctx: DiagnoseContext, rest: list[tuple[Any, list[tuple[str, float, float]]]]
) -> Finding:
    """One finding for the breaching calls beyond the per-call cap."""
    per_phase: dict[str, tuple[int, float, float]] = {}
    for _, breaches in rest:
        for name, v, lim in breaches:
            n, worst, _ = per_phase.get(name, (0, 0.0, lim))
            per_phase[name] = (n + 1, max(worst, v), lim)
    listed = ", ".join(
        f"{name.removesuffix('_ms').replace('_', ' ')} {n:,} calls "
        f"(worst {worst:,.0f} ms, SLA {lim:,.0f} ms)"
        for name, (n, worst, lim) in per_phase.items()
    )
    ids = [c.tool_call_id for c, _ in rest[:20]]
    ev = ctx.events()
    return make(
        TM002,
        ctx,
        f"{len(rest):,} more calls above their SLA: {listed}",
        ev[ev["tool_call_id"].isin(ids[:3])].head(3),
        call_ids=ids,
        extra={
            "calls": len(rest),
            "phases": {
                k: {"calls": n, "worst_ms": round(w, 1), "sla_ms": lim}
                for k, (n, w, lim) in per_phase.items()
            },
        },
    )


def breached_phases(
    phases: dict[str, float | None] | Any, sla: Any
) -> list[tuple[str, float, float]]:
    """(phase, measured ms, SLA ms) for every phase above its SLA (unmeasured phases skipped)."""
    out: list[tuple[str, float, float]] = []
    for name, value in phases.items():
        if value is None:
            continue
        limit = getattr(sla, name, None)
        v = float(value)
        if limit is not None and v > limit:  # NaN compares False: unmeasured
            out.append((name, v, float(limit)))
    return out


def _slow_requests(
    ctx: DiagnoseContext, groups: dict[tuple[str, float], list[Any]]
) -> Iterator[Finding]:
    """One TM002 per chat request whose end-to-end time is above the SLA."""
    ev = ctx.events()
    limit = float(ctx.cfg.sla.end_to_end_ms)
    for (trace, ms), calls in sorted(groups.items(), key=lambda kv: -kv[0][1])[:MAX_CALL_FINDINGS]:
        ids = [c.tool_call_id for c in calls if c.tool_call_id]
        rows = ev[ev["tool_call_id"].isin(ids[:3])].head(3) if ids else ev.iloc[0:0]
        first = calls[0]
        yield make(
            TM002,
            ctx,
            f"chat request of trace {trace}: end to end {ms:,.0f} ms (SLA {limit:,.0f} ms) "
            f"for {len(calls)} call{'s' if len(calls) != 1 else ''} ({', '.join(ids[:5])}"
            f"{' …' if len(ids) > 5 else ''})",
            rows,
            call_ids=ids,
            session_id=first.session_id,
            trace_id=trace,
            extra={"breaches": {"end_to_end_ms": {"ms": ms, "sla_ms": limit}}},
        )


#: Columns `make` and its evidence read from a finding's rows.
_QUOTED = (
    "origin",
    "kind",
    "tool",
    "tool_call_id",
    "http_status",
    "detail",
    "args",
    "session_id",
    "trace",
    "source",
    "ts",
    "seq",
)


@CLASSIFIERS.register(TM002.code)
def check_sla_breach(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TM002: one finding per call with the phases above their SLA (the worst calls), plus a
    summary of the rest."""
    ev = ctx.events()
    by_call: dict[Any, Any] | None = None  # call id → row positions, built once, not per call
    breaching = []
    # End to end is the chat request around the calls: one slow request is one finding, not
    # one per call it carried.
    slow_requests: dict[tuple[str, float], list[Any]] = {}
    for c in ctx.timeline.calls:
        b = breached_phases(c.phases, ctx.cfg.sla)
        e2e = [x for x in b if x[0] == "end_to_end_ms"]
        own = [x for x in b if x[0] != "end_to_end_ms"]
        if e2e:
            slow_requests.setdefault((str(c.trace), round(e2e[0][1], 1)), []).append(c)
        if own:
            breaching.append((c, own))
    yield from _slow_requests(ctx, slow_requests)
    breaching.sort(key=lambda cb: -max(v / lim if lim else float("inf") for _, v, lim in cb[1]))
    if len(breaching) > MAX_CALL_FINDINGS:
        yield _breach_summary(ctx, breaching[MAX_CALL_FINDINGS:])
    for call, breaches in breaching[:MAX_CALL_FINDINGS]:
        cid = call.tool_call_id
        if by_call is None:
            by_call = ev.groupby("tool_call_id", sort=False, dropna=True, observed=True).indices
            # the columns a finding quotes, as plain objects: slicing Arrow-backed columns
            # once per call would dominate the rule on a large store
            ev = ev[[c for c in _QUOTED if c in ev.columns]].astype(object)
        rows = ev.iloc[by_call[cid]] if cid and cid in by_call else ev.iloc[0:0]
        listed = ", ".join(
            f"{n.removesuffix('_ms').replace('_', ' ')} {v:,.0f} ms (SLA {lim:,.0f} ms)"
            for n, v, lim in breaches
        )
        yield make(
            TM002,
            ctx,
            f"call {cid}{f' ({call.tool})' if call.tool else ''}: {listed}",
            rows,
            call_ids=[cid or None],
            session_id=call.session_id,
            trace_id=call.trace,
            tool=call.tool,
            extra={"breaches": {n: {"ms": round(v, 1), "sla_ms": lim} for n, v, lim in breaches}},
        )
