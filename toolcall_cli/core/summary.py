"""The ingest summary: counts per source and kind, unparsed samples, time span, traces."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

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


@dataclass(frozen=True, slots=True)
class IngestReport:
    """What `toolcall ingest` shows: a summary, and the events for `--format jsonl`."""

    files: tuple[FileSummary, ...]
    events: pd.DataFrame
    store: str | None
    skipped: tuple[tuple[str, str], ...] = ()  # (path, reason) of files not ingested

    def summary(self) -> dict[str, Any]:
        """The JSON summary of DESIGN §6."""
        ev = self.events
        good = ev[ev["kind"] != UNPARSED]
        bad = ev[ev["kind"] == UNPARSED]
        by_source: dict[str, dict[str, int]] = {}
        counts = good.groupby(["source", "kind"], observed=True).size()
        for key, n in counts.items():
            pair: tuple[Any, Any] = key  # type: ignore[assignment]
            by_source.setdefault(str(pair[0]), {})[str(pair[1])] = int(n)
        samples: list[dict[str, Any]] = []
        for _path, grp in bad.groupby(bad["origin"].str.rsplit(":", n=1).str[0], sort=True):
            for _, row in grp.head(SAMPLES_PER_FILE).iterrows():
                reason = (
                    (try_loads(row["attrs"]) or {}).get("reason")
                    if isinstance(row["attrs"], str)
                    else None
                )
                samples.append({"origin": row["origin"], "text": row["detail"], "reason": reason})
        ts = good["ts"].dropna()
        return {
            "files": [
                {"path": f.path, "source": f.source, "events": f.events, "unparsed": f.unparsed}
                for f in self.files
            ],
            "events": len(good),
            "by_source": by_source,
            "unparsed": {"count": len(bad), "samples": samples},
            "time_span": {
                "start": ts.min().isoformat() if len(ts) else None,
                "end": ts.max().isoformat() if len(ts) else None,
            },
            "traces": int(_count_traces(good)),
            "sessions": int(good["session_id"].dropna().nunique()),
            "tool_calls": int(good["tool_call_id"].dropna().nunique()),
            "store": self.store,
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
        }


def _count_traces(ev: pd.DataFrame) -> int:
    """Traces = connected groups of trace_id / tool_call_id (cheap stand-in before alignment)."""
    keys = ev["trace_id"].fillna(ev["tool_call_id"]).dropna()
    return int(keys.nunique())
