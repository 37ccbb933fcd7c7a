"""`toolcall query`: one read-only SQL statement over the store's tables (DuckDB)."""

from __future__ import annotations

from typing import Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
from toolcall_cli.cli._options import FormatOpt, OutputOpt, StoreOpt, emit
from toolcall_cli.model.config import DEFAULT_STORE


def run(
    sql: Annotated[
        str, typer.Argument(help="One SELECT statement.", show_default=False, metavar="SQL")
    ],
    store: StoreOpt = DEFAULT_STORE,
    fmt: FormatOpt = "table",
    output: OutputOpt = None,
) -> None:
    """Run one read-only SQL query over the store's events, calls and findings.

    DuckDB reads the store's Parquet in place (out of core). Tables: events (the columns of
    `toolcall ingest --format jsonl`), calls (one row per tool_call_id: tool, instance,
    first_ts, last_ts, outcome, http_status, service_ms, ...) and findings (code, name,
    severity, message, trace_id, session_id, ...). Only SELECT and EXPLAIN run: COPY, ATTACH,
    INSTALL, SET and reading files outside the store are refused (exit 2).
    """
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.store.query import run_query

    result = run_query(store, sql)
    emit(result, fmt, output)
    if not _settings.current().quiet:
        n = result.table.num_rows
        say(f"toolcall: {n} row{'' if n == 1 else 's'}")
