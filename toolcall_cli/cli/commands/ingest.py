"""`toolcall ingest`: detect, parse, store, summarise."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.cli._options import (
    EngineName,
    EngineOpt,
    FollowSymlinksOpt,
    FormatOpt,
    NginxFormatOpt,
    NoRedactOpt,
    OutputOpt,
    SchedulerOpt,
    SourceOpt,
    StoreOpt,
    TzOpt,
    WorkersOpt,
    emit,
    engine_of,
)
from toolcall_cli.cli._summary import say_summary
from toolcall_cli.model.config import DEFAULT_STORE
from toolcall_cli.model.words import plural

NoStoreOpt = Annotated[bool, typer.Option("--no-store", help="Parse and summarise only.")]
PathsArg = Annotated[
    list[Path], typer.Argument(help="Files or directories of evidence.", show_default=False)
]


def run(
    paths: PathsArg, fmt: FormatOpt = "table", output: OutputOpt = None,
    source: SourceOpt = None, tz: TzOpt = None, nginx_format: NginxFormatOpt = None,
    store: StoreOpt = DEFAULT_STORE, no_store: NoStoreOpt = False,
    no_redact: NoRedactOpt = False, follow_symlinks: FollowSymlinksOpt = False,
    engine: EngineOpt = EngineName.local, scheduler: SchedulerOpt = None,
    workers: WorkersOpt = 1,
) -> None:  # fmt: skip
    """Detect each input's format, parse it into events and write them to the store."""
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.cli._inputs import IngestStream, parse_options
    from toolcall_cli.cli._summary import say_skipped
    from toolcall_cli.store.ingest import ingest_into

    opts = parse_options(
        tz=tz, nginx_format=nginx_format, no_redact=no_redact, follow_symlinks=follow_symlinks
    )
    stream = IngestStream(
        list(paths), source=source.value if source else None, opts=opts,
        keep=fmt == "jsonl",  # the only view that prints the events themselves
        engine=engine_of(engine, scheduler, workers),
    )  # fmt: skip
    into = None if no_store else store
    # each file is parsed, summarised and written before the next one is read
    ingest_into(stream.parts(), store=into, engine=stream.engine)
    emit(stream.report(into), fmt, output)
    say_skipped(stream.skipped)
    d = stream.digest
    say_summary(f"{plural(d.events, 'event')} from {plural(len(stream.files), 'file')}, "
                f"{d.unparsed} unparsed record{'s' if d.unparsed != 1 else ''}")  # fmt: skip
