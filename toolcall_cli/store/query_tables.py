"""The SQL views `toolcall query` offers over a store: `events`, `calls` and `findings`.

Each view reads the Parquet files of the store's correlation buckets
(`<table>/bucket=NN/*.parquet`, DESIGN §6b). The file lists are resolved here, in Python, so an
empty glob is an empty view rather than a DuckDB error, and so the connection can be allowed
to read exactly these files and nothing else (store/query.py).

`calls` and `findings` are read from their own tables when the store has them; a store
without a `calls` table gets one derived from its events (one row per stored
`tool_call_id`, as the stored keys give it: align's scoping of repeated ids is not redone in
SQL), and one without `findings` gets an empty table of the documented columns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from toolcall_cli.model.events import (
    COLUMNS,
    OUTCOME_KINDS,
    REJECTION_KINDS,
    REQUEST_KINDS,
    RESPONSE_KINDS,
)

TABLES = ("events", "calls", "findings")

#: The findings table's columns (store/layout.py on the bucketed store): a store without
#: one gets an empty table of these, so a query runs the same before the first diagnose.
FINDING_COLUMNS: dict[str, str] = {
    "run_id": "VARCHAR",
    "run_at": "TIMESTAMPTZ",
    "config_fingerprint": "VARCHAR",
    "id": "VARCHAR",
    "code": "VARCHAR",
    "name": "VARCHAR",
    "severity": "VARCHAR",
    "message": "VARCHAR",
    "trace_id": "VARCHAR",
    "session_id": "VARCHAR",
    "tool_call_ids": "VARCHAR[]",
    "caused_by": "VARCHAR",
    "symptoms": "VARCHAR[]",
    "tool": "VARCHAR",
    "explanation": "VARCHAR",
    "fix": "VARCHAR",
    "evidence": "VARCHAR",
    "extra": "VARCHAR",
}


@dataclass(frozen=True, slots=True)
class StoreTables:
    """The Parquet files behind each view (an empty tuple: the table is absent)."""

    events: tuple[Path, ...]
    calls: tuple[Path, ...]
    findings: tuple[Path, ...]

    def files(self) -> tuple[Path, ...]:
        """Every file a query may read."""
        return (*self.events, *self.calls, *self.findings)


def table_files(store: Path, table: str) -> tuple[Path, ...]:
    """The data files of *table* (`table/bucket=*/*.parquet`).

    Staged files of an unfinished ingest end in `.new` and temporary ones start with a dot,
    so neither matches. Symlinks are left out: a store that came inside a bundle must not
    make a query read a file elsewhere.
    """
    root = store / table
    if not root.is_dir() or root.is_symlink():
        return ()
    found = root.glob("bucket=*/*.parquet")
    return tuple(sorted(p for p in found if not p.name.startswith(".") and not _linked(p, root)))


def _linked(path: Path, root: Path) -> bool:
    return path.is_symlink() or path.parent.is_symlink()


def find_tables(store: Path) -> StoreTables:
    """The store's tables as files on disk."""
    return StoreTables(
        events=table_files(store, "events"),
        calls=table_files(store, "calls"),
        findings=table_files(store, "findings"),
    )


def _sql_list(values: Iterable[str]) -> str:
    return ", ".join(_literal(v) for v in sorted(values))


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _scan(files: tuple[Path, ...], *, one_schema: bool = False) -> str:
    """DuckDB's scan of *files*. *one_schema* says they share one (event parts are written in
    one, bucket_writer.normalise, pinned by a test), which halves the scan; the calls and
    findings files of different runs are unified by column name (calls written before the
    cancellation columns lack them)."""
    paths = ", ".join(_literal(str(p)) for p in files)
    return f"read_parquet([{paths}]{'' if one_schema else ', union_by_name = true'})"


def events_sql(files: tuple[Path, ...]) -> str:
    """The `events` view: the event columns of DESIGN §3 (hidden store columns left out)."""
    if not files:
        cols = ", ".join(f"CAST(NULL AS {_duck_type(d)}) AS {c}" for c, d in COLUMNS.items())
        return f"SELECT {cols} WHERE false"
    return f"SELECT {', '.join(COLUMNS)} FROM {_scan(files, one_schema=True)}"


def _duck_type(dtype: object) -> str:
    text = str(dtype)
    if text.startswith("datetime64"):
        return "TIMESTAMPTZ"
    if text.lower().startswith("int"):
        return "BIGINT"
    if text.startswith("float"):
        return "DOUBLE"
    return "VARCHAR"


def derived_calls_sql() -> str:
    """`calls` from the `events` view: one row per stored `tool_call_id`.

    Columns: tool_call_id, trace_id, session_id, tool, instance, first_ts, last_ts, events,
    sources, outcome (the first of OUTCOME_KINDS it shows, `rejected`/`flooded` before a
    result; `dispatched` for a request with no answer yet, else null), http_status and
    service_ms (the tool service's latency: the response's own duration, else response time
    minus request time).
    """
    outcome = " ".join(
        f"WHEN bool_or(kind = {_literal(k)}) THEN {_literal(name)}" for name, k in OUTCOME_KINDS
    )
    requests, responses = _sql_list(REQUEST_KINDS), _sql_list(RESPONSE_KINDS)
    rejections = _sql_list(REJECTION_KINDS)
    return f"""
SELECT
  tool_call_id,
  min(trace_id) AS trace_id,
  min(session_id) AS session_id,
  min(tool) AS tool,
  min(instance) AS instance,
  min(ts) AS first_ts,
  max(ts) AS last_ts,
  count(*) AS events,
  string_agg(DISTINCT source, ',' ORDER BY source) AS sources,
  CASE {outcome}
       WHEN bool_or(kind IN ({requests})) THEN 'dispatched' END AS outcome,
  max(http_status) FILTER (WHERE kind IN ({responses})) AS http_status,
  coalesce(
    max(duration_ms) FILTER (WHERE kind IN ({responses})),
    date_diff('millisecond',
              min(ts) FILTER (WHERE kind IN ({requests})),
              max(ts) FILTER (WHERE kind IN ({responses})))
  ) AS service_ms,
  bool_or(kind IN ({rejections})) AS rejected
FROM events
WHERE tool_call_id IS NOT NULL
GROUP BY tool_call_id
"""


#: DuckDB's spelling of the Arrow types of the columns the stored calls table gained after
#: stores were written without them (store_results.CANCEL_COLUMNS, the one list of them)
_SQL_TYPES: dict[str, str] = {
    "large_string": "VARCHAR",
    "timestamp[ns, tz=UTC]": "TIMESTAMPTZ",
}


def calls_sql(files: tuple[Path, ...]) -> str:
    """The `calls` view: the store's own table when it has one (the columns a file written
    before them lacks come out null, last), else derived from events."""
    if not files:
        return derived_calls_sql()
    from toolcall_cli.store.results import CANCEL_COLUMNS  # pyarrow: only for a store

    added = ", ".join(f"CAST(NULL AS {_SQL_TYPES[str(t)]}) AS {c}" for c, t in CANCEL_COLUMNS)
    return f"SELECT * FROM {_scan(files)} UNION ALL BY NAME SELECT {added} WHERE false"


def findings_sql(files: tuple[Path, ...]) -> str:
    """The `findings` view: the store's findings, or none with the documented columns."""
    if files:
        return f"SELECT * FROM {_scan(files)}"
    cols = ", ".join(f"CAST(NULL AS {t}) AS {c}" for c, t in FINDING_COLUMNS.items())
    return f"SELECT {cols} WHERE false"
