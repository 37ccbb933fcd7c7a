"""The ingest summary: counts per source and kind, unparsed samples, time span, traces."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.events import UNPARSED
from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.model.origins import files_of

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
    # distinct ids as Arrow text, not Python sets: a large file's call ids as Python strings
    # would add to the ingest's peak
    traces: Distinct = field(default_factory=lambda: Distinct())
    sessions: Distinct = field(default_factory=lambda: Distinct())
    tool_calls: Distinct = field(default_factory=lambda: Distinct())

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
        for source, kind, n in _pair_counts(good["source"], good["kind"]):
            per = self.by_source.setdefault(source, {})
            per[kind] = per.get(kind, 0) + n
        for path, grp in bad.groupby(files_of(bad["origin"]), sort=True):
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
        self.traces.add(pc.coalesce(_arrow(good["trace_id"]), _arrow(good["tool_call_id"])))
        self.sessions.add(_arrow(good["session_id"]))
        self.tool_calls.add(_arrow(good["tool_call_id"]))


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


class Distinct:
    """Distinct non-null texts seen across many tables: each table's distinct values are kept
    as they come and joined only when the count is asked for (or enough have gathered), so a
    file streamed in blocks does not re-hash the values of all earlier blocks per block."""

    #: Pending arrays joined once they hold this many values beyond the joined ones.
    _FOLD = 1 << 20

    def __init__(self) -> None:
        self._known = pa.array([], pa.large_string())
        self._pending: list[pa.Array] = []
        self._waiting = 0

    def add(self, values: pa.ChunkedArray) -> None:
        """Count *values*' distinct non-null texts in."""
        distinct = pc.unique(values).drop_null()
        if not pa.types.is_large_string(distinct.type):
            distinct = distinct.cast(pa.large_string())
        self._pending.append(distinct)
        self._waiting += len(distinct)
        if self._waiting > self._FOLD + len(self._known):
            self._fold()

    def _fold(self) -> None:
        if self._pending:
            self._known = pa.concat_arrays([self._known, *self._pending]).unique()
            self._pending, self._waiting = [], 0

    def __len__(self) -> int:
        self._fold()
        return len(self._known)


def _arrow(values: pd.Series) -> pa.ChunkedArray:
    """A column's values as Arrow text (an Arrow-backed column without a copy)."""
    arr = getattr(values.array, "_pa_array", None)
    if arr is None:
        arr = pa.array([None if pd.isna(v) else str(v) for v in values], pa.large_string())
    return arr if isinstance(arr, pa.ChunkedArray) else pa.chunked_array([arr])


def _pair_counts(source: pd.Series, kind: pd.Series) -> list[tuple[str, str, int]]:
    """(source, kind, rows) for each pair present (nulls left out, as pandas' groupby does)."""
    sources = _arrow(source)
    names = pc.unique(sources)
    if len(names) == 1 and names[0].is_valid:  # one file's table: one source, count its kinds
        counts = pc.value_counts(_arrow(kind))
        kinds, ns = counts.field("values").to_pylist(), counts.field("counts").to_pylist()
        return [(names[0].as_py(), k, n) for k, n in zip(kinds, ns, strict=True) if k is not None]
    table = pa.table({"source": sources, "kind": _arrow(kind)})
    counts = table.group_by(["source", "kind"]).aggregate([([], "count_all")])
    columns = (counts[c].to_pylist() for c in ("source", "kind", "count_all"))
    return [(s, k, n) for s, k, n in zip(*columns, strict=True) if s is not None and k is not None]
