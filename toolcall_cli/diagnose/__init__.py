"""Diagnose: root-cause classifiers over the aligned timeline, registered by rule code.

`CLASSIFIERS` maps a code (``FL001``) to a function ``check(ctx) -> Iterable[Finding]``.
Registration is explicit: every family package (`flooding`, `ingest`, `orphans`, `protocol`,
`timeouts`, `truncation`) is imported below by name and imports its rule modules by name.
`classify()` runs the selected classifiers and ranks their findings; `diagnose_events()` is the
whole path from an event table to a report, its evidence quoted last (`model.quoting`).

Pandas, numpy and pyarrow are imported inside the functions that use them (annotations under
`TYPE_CHECKING`), so registering every rule — `toolcall rules` — loads none of them
(`tests/test_startup_imports.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose import rules as _rules  # noqa: F401  (registers every rule)
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import (
    Classifier,
    DiagnoseContext,
    DiagnoseReport,
    TimelineLike,
)
from toolcall_cli.diagnose.kit.evidence import stand_in
from toolcall_cli.model.config import DEFAULT, Config
from toolcall_cli.model.events import UNPARSED
from toolcall_cli.model.findings import Finding, Severity, select_codes

if TYPE_CHECKING:
    import pandas as pd

    from toolcall_cli.align.select import ScopeFlags
    from toolcall_cli.align.skew import SkewEstimate
    from toolcall_cli.model.redact import Redactor
    from toolcall_cli.tools.registry import ToolRegistry

__all__ = [
    "CLASSIFIERS",
    "Classifier",
    "DiagnoseContext",
    "DiagnoseReport",
    "classify",
    "diagnose_events",
    "finding_counts",
]


def classify(
    ctx: DiagnoseContext, *, select: Iterable[str] = (), ignore: Iterable[str] = ()
) -> DiagnoseReport:
    """Run every selected classifier on *ctx*, then link them (`incidents.link`): root causes
    ranked errors first, then by reach, each followed by the symptoms it explains."""
    from toolcall_cli.diagnose.kit.batches import WHOLE_TIMELINE, in_whole, split_context
    from toolcall_cli.diagnose.kit.cited_codes import cite_present
    from toolcall_cli.diagnose.kit.incidents import link

    codes = select_codes(CLASSIFIERS.names(), select=select, ignore=ignore)
    found: list[Finding] = []
    batches = split_context(ctx)  # independent evidence apart: a reused id joins nothing
    for code in sorted(codes):
        for part in [ctx] if code in WHOLE_TIMELINE else batches:
            found.extend(in_whole(part.findings_of(code), part))
    ranked = cite_present(link(found, ctx), CLASSIFIERS.names())
    summary = summarize(ctx, ranked)
    return DiagnoseReport(command="diagnose", findings=tuple(ranked), summary=summary)


def summarize(ctx: DiagnoseContext, findings: list[Finding]) -> dict[str, Any]:
    """`{"traces","sessions","calls","events","findings":{severity:n},"by_code":{code:n},
    "incidents":n,"symptoms":n,"headlines":{trace:sentence}}` of linked *findings*, and
    `"cancelled":n` and `"cancelled_by":{who:n}` (`user`, `client`) when some calls were
    cancelled."""
    from toolcall_cli.diagnose.kit.frames import first_rows

    ev = ctx.events()
    read = [c for c in ("kind", "source", "session_id", "trace", "call", "tool_call_id") if c in ev]
    good = ev[read][ev["kind"] != UNPARSED]  # the columns counted, not a copy of every row
    traces = good["trace"].dropna().nunique() if "trace" in good.columns else 0
    calls = good.loc[good["kind"] == "tool_call"]
    # a call without an id (functionary, ToolBench, Gemini) is no timeline call but is read:
    # each one counts, and they never collapse into one "repeated" call of the id null
    idless = calls["tool_call_id"].isna()  # "" is an id (a timeline call), null is none
    keyed = calls[~idless.to_numpy()]
    # one id carried by several tool_call events of one conversation is several calls (FL003)
    keys = [c for c in ("trace", "call") if c in keyed.columns]
    repeats = len(keyed) - len(first_rows(keyed, keys)) if len(keyed) and keys else 0
    n_calls = (len(ctx.timeline.calls) + repeats + int(idless.sum())) or len(calls)
    # a call cancelled (the user aborted its turn, the client withdrew it) is not "healthy"
    by_whom: dict[str, int] = {}
    for c in ctx.timeline.calls:
        if c.outcome == "cancelled":
            by_whom[str(c.cancelled_by)] = by_whom.get(str(c.cancelled_by), 0) + 1
    cancelled = sum(by_whom.values())
    return {
        **(
            {"cancelled": cancelled, "cancelled_by": dict(sorted(by_whom.items()))}
            if cancelled
            else {}
        ),
        "traces": int(traces),
        "sessions": int(good["session_id"].dropna().nunique()),
        "calls": int(n_calls),
        "events": len(good),
        "by_source": _per_source(good),
        **finding_counts(findings),
    }


def finding_counts(findings: Iterable[Finding]) -> dict[str, Any]:
    """The summary's counts of linked *findings*: `findings` per severity, `by_code`,
    `incidents`, `symptoms` and each trace's headline (a pooled report counts them again
    over all its buckets' findings)."""
    from toolcall_cli.diagnose.kit.headlines import incident_counts, trace_headlines

    by_sev = {s.value: 0 for s in Severity}
    by_code: dict[str, int] = {}
    for f in findings:
        by_sev[f.severity.value] += 1
        by_code[f.code] = by_code.get(f.code, 0) + 1
    incidents, symptoms = incident_counts(findings)
    return {
        "findings": by_sev,
        "by_code": dict(sorted(by_code.items())),
        "incidents": incidents,
        "symptoms": symptoms,
        "headlines": trace_headlines(findings),
    }


def _per_source(events: pd.DataFrame) -> dict[str, int]:
    """Events per source (what a verdict was drawn from)."""
    counts = events["source"].value_counts().sort_index()
    return {str(k): int(v) for k, v in counts.items()}


def diagnose_events(
    events: pd.DataFrame,
    *,
    cfg: Config = DEFAULT,
    registry: ToolRegistry | None = None,
    skew_correction: bool = True,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    inputs: tuple[str, ...] = (),
    quotable: Iterable[str] | None = None,
    redactor: Redactor | None = None,
    scope: ScopeFlags | None = None,
    skew_estimate: SkewEstimate | None = None,
) -> DiagnoseReport:
    """Align *events*, build the context, classify, then quote the evidence: the whole
    `toolcall diagnose` core.

    Quotes are read only from *quotable* (default: *inputs*), the files this run ingested or
    the store recorded, and go through *redactor* (default: `DEFAULT_REDACTOR`); any other
    origin keeps the event's own text. With *scope* only the traces it selects are classified
    (alignment sees everything). *skew_estimate* replaces the estimate from *events* (a store
    diagnosed per bucket passes the whole store's, diagnose/run_store.py).
    """
    # quoting and redaction (hashlib, a thread pool, orjson) load when a report is built, not
    # when `toolcall rules` registers the classifiers
    from toolcall_cli.align import align
    from toolcall_cli.align.select import in_scope
    from toolcall_cli.model.quoting import quote_findings
    from toolcall_cli.model.redact import DEFAULT_REDACTOR

    aligned = align(events, cfg=cfg, skew_correction=skew_correction, skew_estimate=skew_estimate)
    timeline: TimelineLike = in_scope(aligned, scope) if scope is not None else aligned
    ctx = DiagnoseContext(timeline=timeline, cfg=cfg, registry=registry)
    rep = classify(ctx, select=select, ignore=ignore)
    files = inputs if quotable is None else quotable
    return DiagnoseReport(
        command=rep.command,
        findings=quote_findings(
            rep.findings,
            files=files,
            redactor=DEFAULT_REDACTOR if redactor is None else redactor,
            stand_in=stand_in(ctx),
        ),
        summary=rep.summary,
        inputs=inputs,
        timeline=timeline,
        config=cfg,
    )
