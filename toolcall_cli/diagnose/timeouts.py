"""Timeouts and latency (TM001, TM002): what the model was told when a tool ran out of time,
and which phases of a round trip broke their SLA.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose._byid import RowsByKey, objects, rows_of_calls
from toolcall_cli.diagnose._common import make, text
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
    ev = ctx.events()
    results = ev[(ev["kind"] == "tool_result") & ev["detail"].notna()]
    if not len(results):
        return
    signals = _timeouts(ev)
    names = tools_by_call(ev)
    done: set[str] = set()
    for idx, raw, raw_id, raw_tool in zip(
        results.index.tolist(),
        results["detail"].tolist(),
        objects(results, "tool_call_id"),
        objects(results, "tool"),
        strict=True,
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
        rows = [*signal[1][:2], idx] if signal else [idx]
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


#: phase → (its value per call, NaN where unmeasured; its SLA in ms)
_Arrays = dict[str, tuple[np.ndarray, float]]
_E2E = "end_to_end_ms"

#: Calls reported one by one (the furthest over their SLA); the rest share one finding.
MAX_CALL_FINDINGS = 50


def _breach_summary(
    ctx: DiagnoseContext, rest: list[Any], arrays: _Arrays, at: np.ndarray, by_call: RowsByKey
) -> Finding:
    """One finding for the breaching calls beyond the per-call cap (*at*: their positions)."""
    # phases in the order the calls first name them; counts and worst values column-wise
    breached = {
        name: values[at][values[at] > lim]
        for name, (values, lim) in arrays.items()
        if name != _E2E and (values[at] > lim).any()
    }
    order: list[str] = []
    for c in rest:
        for name, _, _ in breached_phases(c.phases, ctx.cfg.sla):
            if name != _E2E and name not in order:
                order.append(name)
        if len(order) >= len(breached):
            break
    per_phase = {
        name: (len(breached[name]), max(0.0, float(breached[name].max())), arrays[name][1])
        for name in order
    }
    listed = ", ".join(
        f"{name.removesuffix('_ms').replace('_', ' ')} {n:,} calls "
        f"(worst {worst:,.0f} ms, SLA {lim:,.0f} ms)"
        for name, (n, worst, lim) in per_phase.items()
    )
    ids = [c.tool_call_id for c in rest[:20]]
    return make(
        TM002,
        ctx,
        f"{len(rest):,} more calls above their SLA: {listed}",
        by_call.first_of(ids[:3], 3),
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


def _phase_arrays(calls: Sequence[Any], sla: Any) -> _Arrays:
    """phase → (its value for every call, NaN where unmeasured; its SLA) for the phases that
    have an SLA: the calls' phases compared column-wise, not call by call."""
    phases = [c.phases for c in calls]
    out: _Arrays = {}
    for name in sorted(set().union(*phases)) if phases else ():
        limit = getattr(sla, name, None)
        if limit is not None:
            out[name] = (np.array([p.get(name) for p in phases], dtype=float), float(limit))
    return out


def _breaching(arrays: _Arrays, n: int) -> np.ndarray:
    """Positions of the calls with a phase other than end to end above its SLA, furthest over
    first (by their worst ratio of measured to SLA; ties keep call order)."""
    worst = np.full(n, -np.inf)
    for name, (values, lim) in arrays.items():
        if name == _E2E:
            continue
        over = values > lim
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = values / lim if lim else np.full(n, np.inf)
        worst = np.where(over, np.maximum(worst, ratio), worst)
    at = np.flatnonzero(worst > -np.inf)
    return at[np.argsort(-worst[at], kind="stable")]


def _slow_requests(
    ctx: DiagnoseContext, slow: list[tuple[tuple[str, float], list[Any]]], by_call: RowsByKey
) -> Iterator[Finding]:
    """One TM002 per chat request whose end-to-end time is above the SLA."""
    limit = float(ctx.cfg.sla.end_to_end_ms)
    for (trace, ms), calls in slow:
        ids = [c.tool_call_id for c in calls if c.tool_call_id]
        rows = by_call.first_of(ids[:3], 3)
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


@CLASSIFIERS.register(TM002.code)
def check_sla_breach(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TM002: one finding per call with the phases above their SLA (the worst calls), plus a
    summary of the rest."""
    calls = ctx.timeline.calls
    arrays = _phase_arrays(calls, ctx.cfg.sla)
    # End to end is the chat request around the calls: one slow request is one finding, not
    # one per call it carried.
    slow_requests: dict[tuple[str, float], list[Any]] = {}
    if _E2E in arrays:
        values, lim = arrays[_E2E]
        for k in np.flatnonzero(values > lim).tolist():
            c = calls[k]
            slow_requests.setdefault((str(c.trace), round(float(values[k]), 1)), []).append(c)
    slow = sorted(slow_requests.items(), key=lambda kv: -kv[0][1])[:MAX_CALL_FINDINGS]
    order = _breaching(arrays, len(calls))
    rest = order[MAX_CALL_FINDINGS:]
    top = [calls[k] for k in order[:MAX_CALL_FINDINGS].tolist()]
    # the rows every finding cites, found in one pass over the ids they name
    named = [i for _, group in slow for i in [c.tool_call_id for c in group if c.tool_call_id][:3]]
    named += [calls[k].tool_call_id for k in rest[:3].tolist()] + [c.tool_call_id for c in top]
    by_call = rows_of_calls(ctx, named)
    yield from _slow_requests(ctx, slow, by_call)
    if len(rest):
        yield _breach_summary(ctx, [calls[k] for k in rest.tolist()], arrays, rest, by_call)
    for call in top:
        breaches = [x for x in breached_phases(call.phases, ctx.cfg.sla) if x[0] != _E2E]
        cid = call.tool_call_id
        rows = by_call.labels(cid) if cid else []
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
