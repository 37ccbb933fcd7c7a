"""`toolcall ingest`: detect, parse, store, summarise."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
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
from toolcall_cli.model.config import DEFAULT_STORE
from toolcall_cli.model.words import plural


def run(
    paths: Annotated[
        list[Path], typer.Argument(help="Files or directories of evidence.", show_default=False)
    ],
    fmt: FormatOpt = "table",
    output: OutputOpt = None,
    source: SourceOpt = None,
    tz: TzOpt = None,
    nginx_format: NginxFormatOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    no_store: Annotated[bool, typer.Option("--no-store", help="Parse and summarise only.")] = False,
    no_redact: NoRedactOpt = False,
    follow_symlinks: FollowSymlinksOpt = False,
    engine: EngineOpt = EngineName.local,
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = 1,
) -> None:
    """Detect each input's format, parse it into events and write them to the store."""
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.cli._console import say_skipped
    from toolcall_cli.cli._inputs import IngestStream, parse_options
    from toolcall_cli.model.events import concat_frames
    from toolcall_cli.model.summary import IngestReport

    opts = parse_options(
        tz=tz, nginx_format=nginx_format, no_redact=no_redact, follow_symlinks=follow_symlinks
    )
    stream = IngestStream(
        list(paths),
        source=source.value if source else None,
        opts=opts,
        keep=fmt == "jsonl",  # the only view that prints the events themselves
        engine=engine_of(engine, scheduler, workers),
    )
    # each file is parsed, summarised and written before the next one is read
    with closing(stream.parts()) as parts:  # the progress bar ends with the parts, on error too
        if no_store:
            for _ in parts:
                pass
        else:  # the store's writer (and parquet) load only for a run that writes one
            from toolcall_cli.store.write import write_files

            _say_migration(store)
            write_files(store, parts)
    if stream.engine is not None:
        stream.engine.close()
    if not no_store:
        from toolcall_cli.store.compact import compact

        compact(store)  # many small parts (one per input) become a few large ones
    report = IngestReport(
        files=tuple(stream.files),
        events=concat_frames(stream.kept),
        store=None if no_store else str(store),
        skipped=tuple((str(p), why) for p, why in stream.skipped),
        digest=stream.digest,
    )
    emit(report, fmt, output)
    say_skipped(stream.skipped)
    if not _settings.current().quiet:
        say(
            f"toolcall: {plural(stream.digest.events, 'event')} from "
            f"{plural(len(stream.files), 'file')}, {stream.digest.unparsed} unparsed "
            f"record{'s' if stream.digest.unparsed != 1 else ''}"
        )


def _say_migration(store: Path) -> None:
    """An older store's events move into correlation buckets with this ingest: say so."""
    from toolcall_cli.store.manifest import is_bucketed, read_manifest

    manifest = read_manifest(store)
    if not is_bucketed(manifest):
        n = len(manifest["files"])
        say(f"toolcall: migrating the store {store} ({n} inputs) to correlation buckets")
