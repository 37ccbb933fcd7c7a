"""\
What it does
  Reports a source whose clock is offset from the others by more than tolerance.skew_ms
  (default 500 ms), as estimated by alignment from events that share a tool_call_id.

Why it matters
  Phase latencies, SLA checks, burst detection and "happened before" all compare timestamps
  across sources. A skewed clock makes a response appear before its request or hides a
  timeout; alignment corrects the offset, but you should know it was needed.

Example
  nginx timestamps run 2.4 s ahead of the middleware's for the same tool_call_id.

Fix
  Run NTP/chrony on every host and log with millisecond UTC timestamps. Until then keep
  skew correction on (the default) or pass --no-skew-correction to see raw clocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.model.findings import Finding, Severity, rule

if TYPE_CHECKING:
    pass

RULE = rule(
    "IN002",
    "clock-skew",
    Severity.warning,
    "a source's clock is offset beyond tolerance",
    doc=__doc__,
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One finding per source whose estimated offset exceeds tolerance.skew_ms."""
    import pandas as pd

    tol = ctx.cfg.tolerance.skew_ms
    skewed = [
        (source, offset)
        for source, offset in sorted(ctx.timeline.skews.items())
        if not (offset is None or pd.isna(offset) or abs(float(offset)) <= tol)
    ]
    if not skewed:
        return
    ev = ctx.events()
    shared = ev.loc[
        ev["tool_call_id"].notna() & (ev["tool_call_id"] != "") & ev["ts"].notna(),
        ["source", "tool_call_id"],
    ]
    for source, offset in skewed:
        rows = shared[shared["source"] == source]
        ids = rows["tool_call_id"].dropna().astype(str)
        first = ids.head(1).tolist()
        others = shared[(shared["source"] != source) & shared["tool_call_id"].isin(first)]
        # one finding per source: a two-row frame (labels would build whole-column lists)
        proof = ev.loc[rows.index[:1].tolist() + others.index[:1].tolist()]
        yield make(
            RULE,
            ctx,
            f"{source} clock is offset by {float(offset):+.0f} ms from the other sources "
            f"(tolerance {tol:.0f} ms)",
            proof,
            call_ids=ids.head(1).tolist(),
            session_id=None,
            trace_id=None,
            tool=None,
            extra={"source": str(source), "offset_ms": round(float(offset), 1)},
        )
