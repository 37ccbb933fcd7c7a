"""\
What it does
  Compares each call's phases from the aligned timeline with the SLA in `[sla]`: call
  initiation (received → request sent, 100 ms), tool service (request → response, 800 ms),
  injection (response → result injected, 50 ms) and end to end (3 s: the chat request, else
  the call's first → last event of a source that sees the round trip; an agent's own session
  log times its tools and its user, not a round trip, so it gives none). One finding per call
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
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import rows_of_calls
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.rows_by_key import RowsByKey
from toolcall_cli.model.words import plural

RULE = rule(
    "TM002",
    "sla-breach",
    Severity.warning,
    "a phase's latency above its SLA",
    doc=__doc__,
)

if TYPE_CHECKING:
    import numpy as np

    #: phase → (its value per call, NaN where unmeasured; its SLA in ms)
    _Arrays = dict[str, tuple[np.ndarray, float]]

_E2E = "end_to_end_ms"

#: Calls reported one by one (the furthest over their SLA); the rest share one finding.
MAX_CALL_FINDINGS = 50
#: What proves a latency: each phase line's timestamp (an access log's ``rt=`` seconds).
_WHEN = Aim(key="ts", pattern=r"\brt=[\d.]+")


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
        f"{name.removesuffix('_ms').replace('_', ' ')} {plural(n, 'call', spec=',')} "
        f"(worst {worst:,.0f} ms, SLA {lim:,.0f} ms)"
        for name, (n, worst, lim) in per_phase.items()
    )
    ids = [c.tool_call_id for c in rest[:20]]
    return make(
        RULE,
        ctx,
        f"{len(rest):,} more calls above their SLA: {listed}",
        by_call.first_of(ids[:3], 3),
        call_ids=ids,
        aim=_WHEN,
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
    import numpy as np

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
    import numpy as np

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
    """One RULE per chat request whose end-to-end time is above the SLA."""
    limit = float(ctx.cfg.sla.end_to_end_ms)
    for (trace, ms), calls in slow:
        ids = [c.tool_call_id for c in calls if c.tool_call_id]
        rows = by_call.first_of(ids[:3], 3)
        first = calls[0]
        yield make(
            RULE,
            ctx,
            f"chat request of trace {trace}: end to end {ms:,.0f} ms (SLA {limit:,.0f} ms) "
            f"for {len(calls)} call{'s' if len(calls) != 1 else ''} ({', '.join(ids[:5])}"
            f"{' …' if len(ids) > 5 else ''})",
            rows,
            call_ids=ids,
            session_id=first.session_id,
            trace_id=trace,
            extra={"breaches": {"end_to_end_ms": {"ms": ms, "sla_ms": limit}}},
            aim=_WHEN,
        )


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TM002: one finding per call with the phases above their SLA (the worst calls), plus a
    summary of the rest."""
    import numpy as np

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
            RULE,
            ctx,
            f"call {cid}{f' ({call.tool})' if call.tool else ''}: {listed}",
            rows,
            call_ids=[cid or None],
            session_id=call.session_id,
            trace_id=call.trace,
            tool=call.tool,
            extra={"breaches": {n: {"ms": round(v, 1), "sla_ms": lim} for n, v, lim in breaches}},
            aim=_WHEN,
        )
