"""`toolcall query`: one read-only SQL statement over the store, run by embedded DuckDB.

DuckDB reads the Parquet files in place and spills to a private temporary directory, so a
group-by over ten million events needs neither pandas nor the events in memory.

Read-only, and inside the store: the SQL must be one `SELECT` (or `EXPLAIN` of one); the
connection may read exactly the store files behind the views (`allowed_paths`), external
access is then switched off and the configuration locked, so `COPY … TO`, `ATTACH`,
`INSTALL`/`LOAD`, `SET` and `read_csv('/etc/passwd')` are refused with a usage error (exit 2).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolcall_cli.errors import InputError, UsageError
from toolcall_cli.store.query_tables import (
    TABLES,
    calls_sql,
    events_sql,
    find_tables,
    findings_sql,
)

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

#: Statement types a query may be; everything else (COPY, ATTACH, SET, CREATE, ...) is refused.
_READ_ONLY = ("SELECT", "EXPLAIN")
_HINT = "toolcall query runs one read-only SELECT over the tables " + ", ".join(TABLES)


@dataclass(frozen=True, slots=True)
class QueryResult:
    """The rows a query returned, as Arrow, with DuckDB's name for each column's type."""

    sql: str
    columns: tuple[str, ...]
    types: tuple[str, ...]
    table: pa.Table


def run_query(store: Path, sql: str) -> QueryResult:
    """Run *sql* over the store's tables and return its rows."""
    statement = _check_statement(sql)
    with _connection(store, _views_named(statement)) as con:  # maps DuckDB's errors
        relation = con.sql(statement)
        types = tuple(str(t) for t in relation.types)
        table = relation.to_arrow_table()
    return QueryResult(sql=sql, columns=tuple(table.column_names), types=types, table=table)


def _check_statement(sql: str) -> str:
    """*sql* as one read-only statement, or a usage error saying what it is instead."""
    import duckdb

    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as e:
        raise UsageError(f"the SQL does not parse: {_first_line(e)}", hint=_HINT) from None
    if len(statements) != 1:
        raise UsageError(f"expected one SQL statement, got {len(statements)}", hint=_HINT)
    kind = statements[0].type.name
    if kind not in _READ_ONLY:
        word = (statements[0].query.split() or [kind])[0].upper()[:20]
        raise UsageError(f"refused: {word} is not allowed; queries are read-only", hint=_HINT)
    return statements[0].query


def _views_named(statement: str) -> frozenset[str]:
    """The views *statement* reads: a view's binding reads the footer of every file behind it
    (slow on a large store's many event files), so the others are not made.

    DuckDB names the tables a statement references (CTEs and subqueries included, a CTE's
    own name left out); a statement it cannot name them for gets every view.
    """
    import duckdb

    try:
        named = {name.lower() for name in duckdb.get_table_names(statement)}
    except duckdb.Error:
        return frozenset(TABLES)
    return frozenset(named & set(TABLES))


@contextmanager
def _connection(
    store: Path, views: frozenset[str] = frozenset(TABLES)
) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB with the store's *views*, locked down before any user SQL runs."""
    import duckdb

    root = store.resolve()
    if not root.is_dir():
        raise InputError(
            f"there is no store at {store}", hint="run `toolcall ingest PATH...` first, or --store"
        )
    from toolcall_cli.store.manifest import read_manifest

    read_manifest(root)  # a store of another layout is refused, not half-read
    tables = find_tables(root)
    if not tables.events:
        raise InputError(f"the store {store} is empty", hint="run `toolcall ingest PATH...` first")
    scratch = Path(tempfile.mkdtemp(prefix="toolcall-query-"))
    con = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )
    try:
        con.execute("SET TimeZone = 'UTC'")  # timestamps print the same on every machine
        con.execute("SET temp_directory = ?", [str(scratch)])
        con.execute("SET allowed_paths = ?", [[str(p) for p in tables.files()]])
        if "events" in views or ("calls" in views and not tables.calls):  # derived calls
            con.execute(f"CREATE TEMP VIEW events AS {events_sql(tables.events)}")
        if "calls" in views:
            con.execute(f"CREATE TEMP VIEW calls AS {calls_sql(tables.calls)}")
        if "findings" in views:
            con.execute(f"CREATE TEMP VIEW findings AS {findings_sql(tables.findings)}")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        yield con
    except duckdb.Error as e:
        raise _query_error(e, root) from None
    finally:
        con.close()
        shutil.rmtree(scratch, ignore_errors=True)


def _query_error(e: Exception, root: Path) -> UsageError | InputError:
    """DuckDB's error as toolcall's: a store file it cannot read is input (3), the rest is
    the SQL's (2), a refusal named as one.

    DuckDB calls a damaged Parquet file *invalid input*, as it does a bad argument: the
    error is the store's when its message names a file under the store.
    """
    import duckdb

    text = _first_line(e)
    if isinstance(e, duckdb.PermissionException):
        return UsageError(f"refused: {text}", hint=_HINT)
    if isinstance(e, duckdb.IOException) or f"{root}{os.sep}" in str(e):
        return InputError(f"cannot read the store: {text}", hint="re-ingest the evidence")
    return UsageError(f"the query failed: {text}", hint=_HINT)


def _first_line(e: Exception) -> str:
    lines = [line for line in str(e).splitlines() if line.strip()]
    return (lines[0] if lines else type(e).__name__)[:300]
