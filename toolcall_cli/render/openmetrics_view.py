"""`diagnose --format openmetrics`: the counters of DESIGN §4b as OpenMetrics text.

A node_exporter textfile collector or a Pushgateway takes the output as is. Families:

- `tool_call_total{tool,outcome}`: calls by outcome (`result`, `missing`, `flooded`, …);
- `tool_call_flooded_total{cause}`: flood-cancelled calls by the flooding finding that explains
  them (`model-loop`, `double-submit`, …; `unexplained` when none does);
- `tool_return_truncated_total{tool}`: calls whose result TR002 found cut short;
- `tool_call_timeout_total{tool}`: calls that timed out;
- `tool_call_resumed_total{tool}`: calls that timed out and still got their result;
- `tool_registry_conflict_total{source}`: calls whose tool the registry did not hold as named
  (PR002 unknown, PR003 case, PR010 stale list), by the source that recorded the call;
- `toolcall_findings_total{code,severity}`: findings;
- `tool_call_phase_seconds{phase}`: a histogram per phase (buckets around the SLAs of §3).

Counts are of this run's evidence (a textfile collector replaces the file on each run). Label
values come from the evidence: they are escaped as the format says, never trusted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Final, TextIO

import pandas as pd

from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.model.findings import Finding
from toolcall_cli.render import RenderOptions, renders

#: upper bounds in seconds: around 50 ms injection, 100 ms initiation, 800 ms service, 3 s e2e
BUCKETS: Final = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.8, 1.0, 2.5, 3.0, 5.0, 10.0, 30.0)
_PHASES: Final = (
    ("initiation_ms", "initiation"),
    ("service_ms", "service"),
    ("injection_ms", "injection"),
    ("end_to_end_ms", "end_to_end"),
)
_FLOOD_PREFIX: Final = "FL"
_TRUNCATED: Final = frozenset({"TR002"})
_REGISTRY: Final = frozenset({"PR002", "PR003", "PR010"})
_TIMEOUT_KIND: Final = "mw_timeout"
_UNKNOWN: Final = "unknown"


def escape(value: object) -> str:
    """A label value as OpenMetrics writes it (backslash, quote and newline escaped)."""
    text = _UNKNOWN if value is None or value == "" else str(value)
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(names: Sequence[str], values: Sequence[object]) -> str:
    inner = ",".join(f'{n}="{escape(v)}"' for n, v in zip(names, values, strict=True))
    return "{" + inner + "}"


def counter(
    out: TextIO, family: str, help_text: str, names: Sequence[str], counts: Counter[Any]
) -> None:
    """One counter family: `# TYPE`, `# HELP` and a `_total` sample per label set."""
    out.write(f"# TYPE {family} counter\n# HELP {family} {help_text}\n")
    for key in sorted(counts, key=lambda k: tuple(str(x) for x in k)):
        out.write(f"{family}_total{_labels(names, key)} {counts[key]}\n")


def histogram(out: TextIO, family: str, help_text: str, samples: dict[str, list[float]]) -> None:
    """One histogram family with a `phase` label (cumulative buckets, `+Inf`, count, sum)."""
    out.write(f"# TYPE {family} histogram\n# UNIT {family} seconds\n# HELP {family} {help_text}\n")
    for phase, values in samples.items():
        series = pd.Series(values, dtype="float64")
        for bound in BUCKETS:
            n = int((series <= bound).sum())
            out.write(f'{family}_bucket{{phase="{phase}",le="{bound}"}} {n}\n')
        out.write(f'{family}_bucket{{phase="{phase}",le="+Inf"}} {len(series)}\n')
        out.write(f'{family}_count{{phase="{phase}"}} {len(series)}\n')
        out.write(f'{family}_sum{{phase="{phase}"}} {float(series.sum())!r}\n')


def _by_call(findings: Iterable[Finding], codes: frozenset[str]) -> dict[str, Finding]:
    """tool_call_id → the first finding of *codes* naming it."""
    out: dict[str, Finding] = {}
    for f in findings:
        if f.code in codes:
            for i in f.tool_call_ids:
                out.setdefault(i, f)
    return out


def _call_sources(events: pd.DataFrame | None) -> dict[str, str]:
    """tool_call_id → the source of its first event."""
    if events is None or events.empty:
        return {}
    sub = events.loc[events["tool_call_id"].notna(), ["tool_call_id", "source"]]
    sub = sub.drop_duplicates("tool_call_id")
    return dict(zip(sub["tool_call_id"].astype(str), sub["source"].astype(str), strict=True))


def _timed_out(events: pd.DataFrame | None) -> set[str]:
    if events is None or events.empty:
        return set()
    hit = events.loc[(events["kind"] == _TIMEOUT_KIND) & events["tool_call_id"].notna()]
    return set(hit["tool_call_id"].astype(str))


def write_metrics(report: DiagnoseReport, out: TextIO) -> None:
    """Every §4b family of *report*, then `# EOF`."""
    tl = report.timeline
    calls: Sequence[Any] = tl.calls if tl is not None else ()
    events = tl.events if tl is not None else None
    findings = report.findings
    tool_of = {c.tool_call_id: c.tool for c in calls}
    counter(out, "tool_call", "Tool calls by outcome.", ("tool", "outcome"),
            Counter((c.tool, c.outcome) for c in calls))  # fmt: skip
    flood_codes = frozenset(f.code for f in findings if f.code.startswith(_FLOOD_PREFIX))
    causes = _by_call(sorted(findings, key=lambda f: f.code), flood_codes)
    flooded = [c for c in calls if c.outcome == "flooded"]
    counter(out, "tool_call_flooded", "Flood-cancelled tool calls by the cause found.",
            ("cause",), Counter((causes[c.tool_call_id].name if c.tool_call_id in causes
                                 else "unexplained",) for c in flooded))  # fmt: skip
    truncated = _by_call(findings, _TRUNCATED)
    counter(out, "tool_return_truncated", "Tool results cut short.", ("tool",),
            Counter((tool_of.get(i) or f.tool,) for i, f in truncated.items()))  # fmt: skip
    timed_out = _timed_out(events)
    timeouts = [c for c in calls if c.outcome == "timeout" or c.tool_call_id in timed_out]
    counter(out, "tool_call_timeout", "Tool calls that timed out.", ("tool",),
            Counter((c.tool,) for c in timeouts))  # fmt: skip
    counter(out, "tool_call_resumed", "Timed-out tool calls that still got their result.",
            ("tool",), Counter((c.tool,) for c in timeouts if c.outcome == "result"))  # fmt: skip
    source_of = _call_sources(events)
    conflicts = _by_call(findings, _REGISTRY)
    counter(out, "tool_registry_conflict", "Calls of a tool the registry did not hold as named.",
            ("source",), Counter((source_of.get(i),) for i in conflicts))  # fmt: skip
    counter(out, "toolcall_findings", "toolcall findings by code and severity.",
            ("code", "severity"),
            Counter((f.code, f.severity.value) for f in findings))  # fmt: skip
    samples: dict[str, list[float]] = {}
    for key, label in _PHASES:
        samples[label] = [c.phases[key] / 1000.0 for c in calls if c.phases.get(key) is not None]
    histogram(out, "tool_call_phase_seconds", "Tool-call phase latency.", samples)
    out.write("# EOF\n")


@renders("openmetrics", DiagnoseReport)
def render_diagnose(report: DiagnoseReport, out: TextIO, opts: RenderOptions) -> None:
    """The §4b counters of a diagnose run."""
    write_metrics(report, out)
