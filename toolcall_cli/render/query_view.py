"""Views of a query's rows (`toolcall query`): table, json, jsonl, csv, markdown.

Values are converted column-wise from Arrow: times become ISO 8601 UTC (as `ingest --format
jsonl` writes them), lists stay lists, and text from the evidence is neutralised for the
medium (controls escaped in a table, CSV or Markdown; JSON escapes them itself).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import Any, TextIO

import orjson
import pyarrow as pa
from rich.table import Table

from toolcall_cli.model.jsonio import pretty
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render._rich import cell, console
from toolcall_cli.render.safe import clean, md
from toolcall_cli.store.query import QueryResult

#: Rows a table shows; the caption says how many more there are (csv/jsonl print them all).
TABLE_ROWS = 1_000


def _column_values(col: pa.ChunkedArray) -> list[Any]:
    """One column as JSON-ready Python values."""
    if pa.types.is_timestamp(col.type):
        series = col.to_pandas()
        if series.dt.tz is None:
            series = series.dt.tz_localize("UTC")
        text = series.dt.tz_convert("UTC").dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return [None if v != v else v for v in text.astype(object)]  # NaT → None
    if pa.types.is_date(col.type) or pa.types.is_time(col.type) or pa.types.is_duration(col.type):
        return [None if v is None else str(v) for v in col.to_pylist()]
    if pa.types.is_decimal(col.type):
        return [None if v is None else float(v) for v in col.to_pylist()]
    if pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type):
        return [None if v is None else v.hex() for v in col.to_pylist()]
    return col.to_pylist()


def _rows(result: QueryResult, limit: int | None = None) -> Iterator[list[Any]]:
    table = result.table if limit is None else result.table.slice(0, limit)
    columns = [_column_values(table.column(i)) for i in range(table.num_columns)]
    return (list(row) for row in zip(*columns, strict=True))


def _records(result: QueryResult) -> Iterator[dict[str, Any]]:
    names = result.columns
    return (dict(zip(names, row, strict=True)) for row in _rows(result))


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return orjson.dumps(value, default=str).decode()
    return str(value)


@renders("json", QueryResult)
def to_json(result: QueryResult, out: TextIO, opts: RenderOptions) -> None:
    """`{"schema_version": 1, "columns": [{"name", "type"}], "rows": [{...}]}`."""
    doc = {
        "schema_version": 1,
        "columns": [
            {"name": n, "type": t} for n, t in zip(result.columns, result.types, strict=True)
        ],
        "rows": list(_records(result)),
    }
    out.write(pretty(doc) + "\n")


@renders("jsonl", QueryResult)
def to_jsonl(result: QueryResult, out: TextIO, opts: RenderOptions) -> None:
    """One JSON object per row, keys in the query's column order."""
    for record in _records(result):
        out.write(orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE, default=str).decode())


@renders("csv", QueryResult)
def to_csv(result: QueryResult, out: TextIO, opts: RenderOptions) -> None:
    """RFC 4180 CSV with a header row; lists as JSON text, nulls empty."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([clean(c) for c in result.columns])
    for row in _rows(result):
        writer.writerow([clean(_text(v)) for v in row])


@renders("markdown", QueryResult)
def to_markdown(result: QueryResult, out: TextIO, opts: RenderOptions) -> None:
    """A Markdown table of every row."""
    out.write("| " + " | ".join(md(c) for c in result.columns) + " |\n")
    out.write("|" + "---|" * len(result.columns) + "\n")
    for row in _rows(result):
        out.write("| " + " | ".join(md(_text(v)) for v in row) + " |\n")


@renders("table", QueryResult)
def to_table(result: QueryResult, out: TextIO, opts: RenderOptions) -> None:
    """A rich table of the first TABLE_ROWS rows."""
    n = result.table.num_rows
    more = n - TABLE_ROWS if n > TABLE_ROWS else 0
    caption = f"{more} more rows: use --format csv or jsonl for all of them" if more else None
    t = Table(caption=caption, caption_justify="left")
    for name, col in zip(result.columns, result.table.columns, strict=True):
        is_number = pa.types.is_integer(col.type) or pa.types.is_floating(col.type)
        t.add_column(cell(name), justify="right" if is_number else "left")
    for row in _rows(result, TABLE_ROWS):
        t.add_row(*(cell(_text(v)) for v in row))
    console(out, opts).print(t)
