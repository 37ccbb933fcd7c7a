"""Views of the ingest summary: table, json, jsonl (events), markdown."""

from __future__ import annotations

from typing import TextIO

import orjson
import pandas as pd
from rich.table import Table

from toolcall_cli.model.cells import attrs_of
from toolcall_cli.model.events import COLUMNS, UNPARSED
from toolcall_cli.model.jsonio import pretty
from toolcall_cli.model.summary import IngestReport
from toolcall_cli.model.words import plural
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render._rich import cell, console
from toolcall_cli.render.safe import md

SCHEMA_VERSION = 1


@renders("json", IngestReport)
def to_json(report: IngestReport, out: TextIO, opts: RenderOptions) -> None:
    """The summary as one JSON document."""
    out.write(pretty({"schema_version": SCHEMA_VERSION, "summary": report.summary()}) + "\n")


@renders("jsonl", IngestReport)
def to_jsonl(report: IngestReport, out: TextIO, opts: RenderOptions) -> None:
    """One event per line; keys are the event columns, ts as ISO 8601 UTC."""
    write_events_jsonl(report.events[report.events["kind"] != UNPARSED], out)


def write_events_jsonl(events: pd.DataFrame, out: TextIO) -> None:
    """Events as JSON lines, column-wise: pyarrow does the conversion, orjson the encoding."""
    df = events.copy()
    df["ts"] = (
        df["ts"].dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ").astype(object).where(df["ts"].notna(), None)
    )
    records = df.astype(object).where(df.notna(), None).to_dict(orient="records")
    opt = orjson.OPT_APPEND_NEWLINE
    for rec in records:
        rec["attrs"] = attrs_of(rec["attrs"])
        out.write(orjson.dumps({k: rec[k] for k in COLUMNS}, option=opt, default=str).decode())


@renders("table", IngestReport)
def to_table(report: IngestReport, out: TextIO, opts: RenderOptions) -> None:
    """Per-file and per-kind counts, plus the first unparsed samples."""
    s = report.summary()
    con = console(out, opts)
    files = Table(title="Inputs", title_justify="left")
    for col in ("file", "source", "events", "unparsed"):
        files.add_column(col, justify="right" if col in ("events", "unparsed") else "left")
    for f in s["files"]:
        files.add_row(cell(f["path"]), cell(f["source"]), str(f["events"]), str(f["unparsed"]))
    con.print(files)
    kinds = Table(title="Events by source and kind", title_justify="left")
    kinds.add_column("source")
    kinds.add_column("kind")
    kinds.add_column("events", justify="right")
    for src, ks in sorted(s["by_source"].items()):
        for kind, n in sorted(ks.items()):
            kinds.add_row(cell(src), cell(kind), str(n))
    con.print(kinds)
    span = s["time_span"]
    con.print(
        cell(
            f"{plural(s['events'], 'event')} · {plural(s['tool_calls'], 'tool call')} · "
            f"{plural(s['traces'], 'trace')} · {plural(s['sessions'], 'session')} · "
            f"span {span['start'] or '-'} → {span['end'] or '-'}"
        )
    )
    if s["skipped"]:
        skipped = Table(title=f"Skipped files: {len(s['skipped'])}", title_justify="left")
        skipped.add_column("file")
        skipped.add_column("reason")
        for sk in s["skipped"]:
            skipped.add_row(cell(sk["path"]), cell(sk["reason"]))
        con.print(skipped)
    if s["unparsed"]["count"]:
        bad = Table(
            title=f"Unparsed records (IN001): {s['unparsed']['count']}", title_justify="left"
        )
        bad.add_column("origin")
        bad.add_column("text")
        for smp in s["unparsed"]["samples"]:
            bad.add_row(cell(smp["origin"]), cell(smp["text"], limit=120))
        con.print(bad)


@renders("markdown", IngestReport)
def to_markdown(report: IngestReport, out: TextIO, opts: RenderOptions) -> None:
    """A summary line and a per-file table."""
    s = report.summary()
    out.write(
        f"**toolcall ingest**: {plural(s['events'], 'event')}, "
        f"{plural(s['unparsed']['count'], 'unparsed record')}\n\n"
    )
    out.write("| file | source | events | unparsed |\n|---|---|---:|---:|\n")
    for f in s["files"]:
        out.write(f"| {md(f['path'])} | {md(f['source'])} | {f['events']} | {f['unparsed']} |\n")
