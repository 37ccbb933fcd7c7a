"""Ingest checks: records no format could parse (IN001) and clocks that disagree (IN002)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pandas as pd

from toolcall_cli.core.events import UNPARSED
from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose._common import make, with_attrs
from toolcall_cli.diagnose.base import DiagnoseContext

IN001 = rule(
    "IN001",
    "unparsed-line",
    Severity.warning,
    "records no format could parse (count + first samples)",
    doc="""\
What it does
  Counts the records of each input that no format could parse and quotes the first few with
  their file:line, so nothing is dropped silently.

Why it matters
  The line that explains an incident is often the odd one: a stack trace in a JSON log, a
  truncated write, a proxy's own format. If it cannot be parsed it is invisible to every
  other rule, so the count tells you how much evidence the diagnosis did not see.

Example
  app.log:57  {"ts": "2024-05-01T10:00:01Z", "event": "tool_call.received", "tool": "sea
  (a line cut off mid-record by log rotation)

Fix
  Look at the quoted lines. If they are a format toolcall does not know, describe it in
  toolcall.toml ([[formats]] with a regex and sample lines) or pass --source / --nginx-format;
  if they are damaged records, fix the writer (line buffering, rotation).
""",
)

IN002 = rule(
    "IN002",
    "clock-skew",
    Severity.warning,
    "a source's clock is offset beyond tolerance",
    doc="""\
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
""",
)

_LINE_SUFFIX = re.compile(r":\d+$")
SAMPLES = 3


def file_of(origin: str) -> str:
    """The file part of an origin (`path:line`, `path#...`, `path:line#...`)."""
    return _LINE_SUFFIX.sub("", origin.partition("#")[0])


@CLASSIFIERS.register("IN001")
def unparsed(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One finding per input file with unparsed records."""
    ev = with_attrs(ctx)
    bad = ev[ev["kind"] == UNPARSED]
    if not len(bad):
        return
    files = bad["origin"].astype(str).map(file_of)
    for path, grp in bad.groupby(files, sort=True):
        n = len(grp)
        reasons = sorted({str(a.get("reason")) for a in grp["_attrs"] if a.get("reason")})
        why = f" ({'; '.join(reasons[:3])})" if reasons else ""
        yield make(
            IN001,
            ctx,
            f"{n} record{'s' if n != 1 else ''} of {path} could not be parsed{why}",
            grp,
            limit=SAMPLES,
            extra={"count": n, "file": str(path)},
        )


@CLASSIFIERS.register("IN002")
def clock_skew(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One finding per source whose estimated offset exceeds tolerance.skew_ms."""
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
            IN002,
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
