"""`toolcall query`: one read-only SQL statement over the store's tables (DuckDB)."""

from __future__ import annotations

from typing import Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
from toolcall_cli.cli._options import Format, FormatOpt, OutputOpt, StoreOpt, check_format, emit
from toolcall_cli.core.config import DEFAULT_STORE


def run(
    sql: Annotated[str, typer.Argument(help="One SELECT statement.", show_default=False)],
    store: StoreOpt = DEFAULT_STORE,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
) -> None:
    """Run one read-only SQL query over the store's events, calls and findings.

    DuckDB reads the store's Parquet in place (out of core). Tables: events (the columns of
    `toolcall ingest --format jsonl`), calls (one row per tool_call_id: tool, instance,
    first_ts, last_ts, outcome, http_status, service_ms, ...) and findings (code, name,
    severity, message, trace_id, session_id, ...). Only SELECT and EXPLAIN run: COPY, ATTACH,
    INSTALL, SET and reading files outside the store are refused (exit 2).

    \b
    Examples:
      # flooding causes per middleware instance
      toolcall query "SELECT instance, detail AS cause, count(*) AS n FROM events
                      WHERE kind = 'mw_flooded' GROUP BY ALL ORDER BY n DESC"
      # p95 tool-service latency per tool
      toolcall query "SELECT tool, count(*) AS calls,
                      quantile_cont(service_ms, 0.95) AS p95_ms FROM calls
                      WHERE service_ms IS NOT NULL GROUP BY tool ORDER BY p95_ms DESC"
      # sessions with FL002 in the last hour (of the evidence)
      toolcall query "SELECT DISTINCT session_id FROM findings WHERE code = 'FL002'
                      AND trace_id IN (SELECT trace_id FROM events WHERE ts >=
                      (SELECT max(ts) FROM events) - INTERVAL 1 HOUR)" -f csv
    """
    check_format(fmt, ("table", "json", "jsonl", "csv", "markdown"), "query")
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.core.query import run_query

    result = run_query(store, sql)
    emit(result, fmt, output)
    if not _settings.current().quiet:
        n = result.table.num_rows
        say(f"toolcall: {n} row{'' if n == 1 else 's'}")
