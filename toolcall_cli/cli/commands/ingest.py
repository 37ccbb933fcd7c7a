"""`toolcall ingest`: detect, parse, store, summarise."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
from toolcall_cli.cli._inputs import NoRedactOpt, ingest, parse_options
from toolcall_cli.cli._options import (
    Format,
    FormatOpt,
    NginxFormatOpt,
    OutputOpt,
    SourceOpt,
    StoreOpt,
    TzOpt,
    check_format,
    emit,
)
from toolcall_cli.core.store import DEFAULT_STORE, write_files
from toolcall_cli.core.summary import FileSummary, IngestReport


def run(
    paths: Annotated[
        list[Path], typer.Argument(help="Files or directories of evidence.", show_default=False)
    ],
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
    source: SourceOpt = None,
    tz: TzOpt = None,
    nginx_format: NginxFormatOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    no_store: Annotated[bool, typer.Option("--no-store", help="Parse and summarise only.")] = False,
    no_redact: NoRedactOpt = False,
) -> None:
    """Detect each input's format, parse it into events and write them to the store."""
    check_format(fmt, ("table", "json", "jsonl", "markdown"), "ingest")
    opts = parse_options(tz=tz, nginx_format=nginx_format, no_redact=no_redact)
    result = ingest(paths, source=source.value if source else None, opts=opts)
    if not no_store:
        write_files(store, [(f.path, f.source, f.frame) for f in result.files])
    report = IngestReport(
        files=tuple(FileSummary(str(f.path), f.source, f.events, f.unparsed) for f in result.files),
        events=result.events,
        store=None if no_store else str(store),
        skipped=tuple((str(p), why) for p, why in result.skipped),
    )
    emit(report, fmt, output)
    if not _settings.current().quiet:
        bad = sum(f.unparsed for f in result.files)
        say(
            f"toolcall: {len(result.events) - bad} events from {len(result.files)} files, "
            f"{bad} unparsed records"
        )
