"""The ingest summary: counts per source and kind, unparsed samples, time span, traces."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa

from toolcall_cli.core.events import UNPARSED
from toolcall_cli.core.jsonio import try_loads

SAMPLES_PER_FILE = 3


@dataclass(frozen=True, slots=True)
class FileSummary:
    """One input's contribution."""

    path: str
    source: str
    events: int
    unparsed: int


@dataclass(slots=True)
class Digest:
    """What the summary needs of the events, gathered file by file so that `toolcall ingest`
    can write each file and let its events go (a day of logs need not sit in memory at once).
    """

    by_source: dict[str, dict[str, int]] = field(default_factory=dict)
    samples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # per input path
    unparsed: int = 0
    events: int = 0
    start: pd.Timestamp | None = None
    end: pd.Timestamp | None = None
    # distinct ids as Arrow text, not Python sets: a million-row file's call ids as Python
    # strings cost ~100 MB at the ingest's peak
    traces: pa.Array = field(default_factory=lambda: pa.array([], pa.large_string()))
    sessions: pa.Array = field(default_factory=lambda: pa.array([], pa.large_string()))
    tool_calls: pa.Array = field(default_factory=lambda: pa.array([], pa.large_string()))

    @classmethod
    def of(cls, *frames: pd.DataFrame) -> Digest:
        """The digest of whole event tables."""
        d = cls()
        for ev in frames:
            d.add(ev)
        return d

    def add(self, ev: pd.DataFrame) -> None:
        """Count one more file's (or table's) events in."""
        bad_mask = ev["kind"] == UNPARSED
        # a table without unparsed rows is not copied (a million-row file's events, twice)
        good, bad = (ev, ev.iloc[:0]) if not bad_mask.any() else (ev[~bad_mask], ev[bad_mask])
        counts = good.groupby(["source", "kind"], observed=True).size()
        for key, n in counts.items():
            pair: tuple[Any, Any] = key  # type: ignore[assignment]
            per = self.by_source.setdefault(str(pair[0]), {})
            per[str(pair[1])] = per.get(str(pair[1]), 0) + int(n)
        for path, grp in bad.groupby(bad["origin"].str.rsplit(":", n=1).str[0], sort=True):
            kept = self.samples.setdefault(str(path), [])
            for _, row in grp.head(SAMPLES_PER_FILE - len(kept)).iterrows():
                reason = (
                    (try_loads(row["attrs"]) or {}).get("reason")
                    if isinstance(row["attrs"], str)
                    else None
                )
                kept.append({"origin": row["origin"], "text": row["detail"], "reason": reason})
        self.unparsed += len(bad)
        self.events += len(good)
        ts = good["ts"].dropna()
        if len(ts):
            lo, hi = ts.min(), ts.max()
            self.start = lo if self.start is None else min(self.start, lo)
            self.end = hi if self.end is None else max(self.end, hi)
        self.traces = _union(self.traces, _trace_keys(good))
        self.sessions = _union(self.sessions, good["session_id"])
        self.tool_calls = _union(self.tool_calls, good["tool_call_id"])


@dataclass(frozen=True, slots=True)
class IngestReport:
    """What `toolcall ingest` shows: a summary, and the events for `--format jsonl`."""

    files: tuple[FileSummary, ...]
    events: pd.DataFrame
    store: str | None
    skipped: tuple[tuple[str, str], ...] = ()  # (path, reason) of files not ingested
    #: Gathered while ingesting; when None it is taken from `events` (which may then be
    #: empty, as `toolcall ingest` leaves it unless `--format jsonl` prints the events).
    digest: Digest | None = None

    def summary(self) -> dict[str, Any]:
        """The JSON summary of DESIGN §6."""
        d = self.digest if self.digest is not None else Digest.of(self.events)
        samples = [s for path in sorted(d.samples) for s in d.samples[path]]
        return {
            "files": [
                {"path": f.path, "source": f.source, "events": f.events, "unparsed": f.unparsed}
                for f in self.files
            ],
            "events": d.events,
            "by_source": {
                src: dict(sorted(kinds.items())) for src, kinds in sorted(d.by_source.items())
            },
            "unparsed": {"count": d.unparsed, "samples": samples},
            "time_span": {
                "start": d.start.isoformat() if d.start is not None else None,
                "end": d.end.isoformat() if d.end is not None else None,
            },
            "traces": len(d.traces),
            "sessions": len(d.sessions),
            "tool_calls": len(d.tool_calls),
            "store": self.store,
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
        }


def _trace_keys(ev: pd.DataFrame) -> pd.Series:
    """Traces = distinct trace_id / tool_call_id keys (cheap stand-in before alignment)."""
    return ev["trace_id"].fillna(ev["tool_call_id"])


def _union(known: pa.Array, values: pd.Series) -> pa.Array:
    """*known* (distinct texts) with the distinct non-null *values* added, in Arrow: distinct
    values first, then text, so a million-row column is not converted whole."""
    distinct = values.dropna().unique()
    arr = getattr(distinct, "_pa_array", None)  # an Arrow-backed column's values, no copy
    if arr is None:
        arr = pa.array([str(v) for v in distinct], pa.large_string())
    else:
        arr = pa.chunked_array(arr).combine_chunks().cast(pa.large_string())
    return pa.concat_arrays([known, arr]).unique() if len(known) else arr
