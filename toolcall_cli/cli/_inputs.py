"""Shared input plumbing for commands: ingest PATHs on the fly, or read the store."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import progress_bar, say
from toolcall_cli.cli._summary import say_skipped
from toolcall_cli.model.summary import Digest, FileSummary

if TYPE_CHECKING:  # the adapters load only when PATHs are parsed: a store read never needs them
    import pandas as pd

    from toolcall_cli.model.events import EventChunk
    from toolcall_cli.model.summary import IngestReport
    from toolcall_cli.sources import IngestResult, Redeliveries, StreamedFile
    from toolcall_cli.sources.base import ParseOptions
    from toolcall_cli.store.bucket_writer import InputPart
    from toolcall_cli.store.engines import Engine


def parse_options(
    *, tz: str | None, nginx_format: str | None, no_redact: bool, follow_symlinks: bool = False
) -> ParseOptions:
    """ParseOptions from the config and flags; warns on stderr when redaction is off."""
    from toolcall_cli.model.redact import Redactor
    from toolcall_cli.sources.base import ParseOptions

    cfg = _settings.config()
    if no_redact:
        say("toolcall: warning: --no-redact: secrets in the inputs will appear in the output")
    elif not cfg.redact.enabled:  # only an explicit --config can get here (see load_config)
        say(
            f"toolcall: warning: redaction is off ([redact] enabled = false in {cfg.path}): "
            "secrets in the inputs will appear in the output"
        )
    return ParseOptions(
        tz=tz or cfg.tz,
        nginx_format=nginx_format,
        formats=cfg.formats,
        max_decompressed=_settings.max_decompressed(cfg.max_decompressed),
        redactor=Redactor.from_config(cfg.redact, enabled=False if no_redact else None),
        follow_symlinks=follow_symlinks,
    )


def ingest(paths: list[Path], *, source: str | None, opts: ParseOptions) -> IngestResult:
    """Parse PATHs with a progress bar on a terminal."""
    from toolcall_cli.sources import ingest_paths
    from toolcall_cli.sources.evidence import require_evidence

    with progress_bar("ingesting", enabled=not _settings.current().quiet) as prog:
        result = ingest_paths(paths, source=source, opts=replace(opts, progress=prog))
    require_evidence(result, paths, source=source)
    say_skipped(result.skipped)
    return result


@dataclass
class IngestStream:
    """PATHs parsed one file at a time (a progress bar on a terminal), each summarised as it
    passes, so that `toolcall ingest` writes a file's events before it reads the next."""

    paths: list[Path]
    source: str | None
    opts: ParseOptions
    keep: bool = False  # keep every file's events (for views that print them)
    engine: Engine | None = None  # parse files on its workers (toolcall_cli.store.engines)
    digest: Digest = field(default_factory=Digest)
    files: list[FileSummary] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    kept: list[pd.DataFrame] = field(default_factory=list)

    def parts(self) -> Generator[InputPart, None, None]:
        """(path, source, events) per file, for `store.write.write_files`: a streaming
        adapter's events come as chunks, each summarised as it passes."""
        from toolcall_cli.sources import FileResult, StreamedFile, iter_ingest

        with progress_bar("ingesting", enabled=not _settings.current().quiet) as prog:
            # a span two files delivered is stored once (one plain file: no later file, and
            # the otel package that remembers spans is not even loaded)
            one_file = len(self.paths) == 1 and not self.paths[0].is_dir()
            repeats: Redeliveries | None = None
            if not one_file:
                from toolcall_cli.sources import Redeliveries

                repeats = Redeliveries()
            if self.engine is None:
                items = iter_ingest(
                    self.paths, source=self.source, opts=replace(self.opts, progress=prog),
                    stream=not self.keep,  # the jsonl view prints the events in file order
                )  # fmt: skip
            else:  # a worker's progress cannot reach this terminal; files arrive per batch
                items = iter_ingest(
                    self.paths, source=self.source, opts=self.opts,
                    parse_batch=self.engine.map, batch=self.engine.workers,
                )  # fmt: skip
            for item in items:
                if isinstance(item, StreamedFile):
                    chunks = self._summarised(item, repeats)
                    yield item.path, item.source, chunks
                    for _ in chunks:  # what the consumer left unread is still summarised
                        pass
                    continue
                if not isinstance(item, FileResult):
                    self.skipped.append(item)
                    continue
                if repeats is not None:
                    item = replace(item, frame=repeats.drop(item.frame))
                self.digest.add(item.frame)
                self.files.append(
                    FileSummary(str(item.path), item.source, item.events, item.unparsed)
                )
                if self.keep:
                    self.kept.append(item.frame)
                yield item.path, item.source, item.frame
                del item  # not alive while the next file is parsed

    def report(self, store: Path | None) -> IngestReport:
        """What was ingested, once the parts have been read: each file's summary, the events
        kept, the *store* written (None: none) and the files skipped."""
        from toolcall_cli.model.events import concat_frames
        from toolcall_cli.model.summary import IngestReport

        return IngestReport(
            files=tuple(self.files),
            events=concat_frames(self.kept),
            store=None if store is None else str(store),
            skipped=tuple((str(p), why) for p, why in self.skipped),
            digest=self.digest,
        )

    def _summarised(self, item: StreamedFile, repeats: Redeliveries | None) -> Iterator[EventChunk]:
        """*item*'s chunks, each counted into the digest as it passes; the file's summary
        line once the last has passed."""
        from toolcall_cli.model.events import UNPARSED, EventChunk

        events = unparsed = 0
        for chunk in item.chunks:
            frame = chunk.frame if repeats is None else repeats.drop(chunk.frame)
            if len(frame) != len(chunk.frame):  # repeated spans dropped; the rest keep their
                # order from the first position on (held-back chunks hold no spans: never here)
                at = chunk.at if isinstance(chunk.at, int) else chunk.at[: len(frame)]
                chunk = EventChunk(frame, at)
            self.digest.add(frame)
            bad = int((frame["kind"] == UNPARSED).sum())
            events, unparsed = events + len(frame) - bad, unparsed + bad
            yield chunk
            del chunk, frame
        self.files.append(FileSummary(str(item.path), item.source, events, unparsed))


@dataclass(frozen=True, slots=True)
class Evidence:
    """What an analysis command reads: the event table, where it came from, the files
    evidence may be quoted from, and the files a directory walk skipped (path, reason)."""

    events: pd.DataFrame
    inputs: tuple[str, ...]
    quotable: tuple[str, ...]
    skipped: tuple[tuple[Path, str], ...] = ()


def evidence_for(
    paths: list[Path] | None,
    *,
    store: Path,
    source: str | None,
    opts: ParseOptions | None,
    ids: Mapping[str, str | None] | None = None,
    whole_sessions: bool = False,
) -> Evidence:
    """PATHs ingested on the fly (the files read are also the quotable ones; no evidence at
    all is an input error), or the store when no PATH is given: only the traces of *ids*
    (through its id index) when one is set, and the files its manifest records as quotable —
    never a path only an event's origin names. With *whole_sessions* the store gives every
    event of the selection's sessions (for replay's rate limiter). *opts* matter only when
    PATHs are parsed (a store read needs none, so it never loads the adapters)."""
    if paths:
        from toolcall_cli.sources.base import ParseOptions

        result = ingest(paths, source=source, opts=opts or ParseOptions())
        files = tuple(str(f.path) for f in result.files)
        return Evidence(result.events, files, files, result.skipped)
    from toolcall_cli.store.manifest import read_manifest
    from toolcall_cli.store.read_selection import (  # all when no id is set
        load_selected,
        load_sessions,
    )

    recorded = tuple(str(e["path"]) for e in read_manifest(store)["files"].values())
    load = load_sessions if whole_sessions and ids and any(ids.values()) else load_selected
    return Evidence(load(store, **(ids or {})), (str(store),), recorded)


def reader(
    paths: list[Path] | None,
    *,
    store: Path,
    source: str | None = None,
    tz: str | None = None,
    nginx_format: str | None = None,
    no_redact: bool = False,
    follow_symlinks: bool = False,
    whole_sessions: bool = False,
) -> Callable[[Mapping[str, str | None]], Evidence]:
    """`evidence_for` of a selection's ids, for a core that checks its request first: the
    parse options (and their --no-redact warning) are made when the read begins, and only
    when PATHs are parsed."""

    def read(ids: Mapping[str, str | None]) -> Evidence:
        opts = (
            parse_options(
                tz=tz, nginx_format=nginx_format, no_redact=no_redact,
                follow_symlinks=follow_symlinks,
            )
            if paths
            else None
        )  # fmt: skip
        return evidence_for(
            paths, store=store, source=source, opts=opts, ids=ids, whole_sessions=whole_sessions
        )

    return read
