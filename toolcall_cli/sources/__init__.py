"""Source adapters and format detection: every input file becomes event-table rows.

Each adapter package is registered here by name, one line per source; the package (and
pandas with it) is imported when the adapter is first used (:mod:`.registry`), so importing
this module is cheap (start-up).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolcall_cli.errors import InputError, UnknownSourceError, UsageError
from toolcall_cli.model.events import (
    TRAITS,
    UNPARSED,
    EventChunk,
    concat_frames,
    validate_frame,
)
from toolcall_cli.model.registry import Registry
from toolcall_cli.sources._shared.files import read_head, regular_file_problem, require_regular
from toolcall_cli.sources._shared.walk import escapes_tree, walk_tree
from toolcall_cli.sources.base import HEAD_BYTES, ParseOptions
from toolcall_cli.sources.registry import LazyAdapter

if TYPE_CHECKING:
    import pandas as pd

    from toolcall_cli.sources.otel.dedupe import Redeliveries as Redeliveries  # for cli

SOURCES: Registry[LazyAdapter] = Registry("source")

# Each source is declared once, with its traits (model/events.py); its adapter is the ADAPTER
# of the package of that name (LazyAdapter.load checks the adapter says the same name).
for _name in TRAITS:
    SOURCES.add(_name, LazyAdapter(_name, f"{__name__}.{_name}"))


def __getattr__(name: str) -> Any:
    """`Redeliveries` for the cli, loaded with the otel package when it is asked for."""
    if name == "Redeliveries":
        from toolcall_cli.sources.otel.dedupe import Redeliveries

        return Redeliveries
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def start_early(
    paths: Iterable[Path] | None, *, source: str | None, follow_symlinks: bool = False
) -> None:
    """Let adapters begin what can run beside the heavy imports, as soon as a command knows
    its PATHs: the pcap adapter starts tshark on the first captures (:mod:`.pcap.early`)."""
    from toolcall_cli.sources.pcap import early

    early.start(list(paths or ()), source=source, follow_symlinks=follow_symlinks)


@dataclass(frozen=True, slots=True)
class FileResult:
    """What one input file produced."""

    path: Path
    source: str
    frame: pd.DataFrame

    @property
    def unparsed(self) -> int:
        """Records of this file no format could parse."""
        return int((self.frame["kind"] == UNPARSED).sum())

    @property
    def events(self) -> int:
        """Parsed events of this file."""
        return len(self.frame) - self.unparsed


@dataclass(frozen=True, slots=True)
class IngestResult:
    """The event table of all inputs plus per-file accounting."""

    events: pd.DataFrame
    files: tuple[FileResult, ...]
    skipped: tuple[
        tuple[Path, str], ...
    ] = ()  # files inside directories that were not ingested, and why


def scores(path: Path) -> dict[str, int]:
    """Every adapter's sniff score for *path*."""
    head = read_head(path, HEAD_BYTES)
    return {name: int(ad.sniff(head, path)) for name, ad in SOURCES.items()}


def detect(path: Path) -> str:
    """The adapter with the highest score; ties and all-zero are an UnknownSourceError."""
    sc = scores(path)
    best = max(sc.values(), default=0)
    winners = [n for n, s in sc.items() if s == best]
    if best <= 0:
        from toolcall_cli.sources.transcripts import unknown_json_hint

        shape = unknown_json_hint(read_head(path, HEAD_BYTES), path)
        raise UnknownSourceError(
            f"cannot detect the source format of '{path}'",
            hint=(f"{shape}; " if shape else "") + f"pass --source {'|'.join(SOURCES.names())}",
        )
    if len(winners) > 1:
        raise UnknownSourceError(
            f"'{path}' looks like {' and '.join(winners)} equally (score {best})",
            hint=f"pass --source {'|'.join(winners)}",
        )
    return winners[0]


def walk(paths: Iterable[Path], *, follow_symlinks: bool = False) -> Iterator[Path]:
    """Files named, and files under directories named (sorted, hidden entries skipped)."""
    for path, _ in walk_tree(paths, follow_symlinks=follow_symlinks):
        yield path


def parse_file(
    path: Path, *, source: str | None = None, opts: ParseOptions | None = None
) -> pd.DataFrame:
    """Parse one file with the named or detected adapter."""
    opts = opts or ParseOptions()
    require_regular(path)  # a FIFO or device would block the adapter's open()
    name = source or detect(path)
    if name not in SOURCES:
        raise UsageError(
            f"unknown source {name!r}", hint=f"choose one of: {', '.join(SOURCES.names())}"
        )
    try:
        frame = validate_frame(SOURCES.get(name).parse(path, opts))
        return opts.redactor.frame(frame)
    except PermissionError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None


def parse_file_chunks(
    path: Path, *, source: str | None = None, opts: ParseOptions | None = None
) -> tuple[str, Iterator[EventChunk]]:
    """The detected (or named) source of *path* and its events as chunks, redacted: an
    adapter that streams (`StreamingAdapter`) hands them over one by one, any other gives
    its whole table as one chunk. The file is opened and its first chunk parsed at once, so
    an unreadable file fails here, not while the chunks are read."""
    opts = opts or ParseOptions()
    require_regular(path)
    name = source or detect(path)
    entry = SOURCES.get(name) if name in SOURCES else None
    adapter = entry.load() if entry is not None else None  # the registry's entry is lazy
    if adapter is None or not hasattr(adapter, "parse_chunks"):
        return name, iter([EventChunk(parse_file(path, source=name, opts=opts))])

    def redacted(chunks: Iterator[EventChunk]) -> Iterator[EventChunk]:
        for chunk in chunks:
            yield EventChunk(opts.redactor.frame(validate_frame(chunk.frame)), chunk.at)

    try:
        chunks = redacted(adapter.parse_chunks(path, opts))
        first = next(chunks, None)
    except PermissionError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
    return name, itertools.chain([] if first is None else [first], chunks)


@dataclass(frozen=True, slots=True)
class StreamedFile:
    """What one input file produces when it is streamed: its chunks, read once, in order."""

    path: Path
    source: str
    chunks: Iterator[EventChunk]


@dataclass(frozen=True, slots=True)
class FileTask:
    """One file of a walk to parse: whether it was found inside a directory, and how."""

    path: Path
    inside_dir: bool
    source: str | None
    opts: ParseOptions | None
    skip_unknown_in_dirs: bool
    stream: bool = False  # hand a streaming adapter's chunks over as they come (StreamedFile)


def ingest_file(task: FileTask) -> FileResult | StreamedFile | tuple[Path, str]:
    """Parse one file of a walk: its `FileResult` (a `StreamedFile` when *task* streams), or
    ``(path, reason)`` when a file inside a directory is skipped (module-level, so an engine
    can run it in another process)."""
    path, inside_dir = task.path, task.inside_dir
    try:
        if task.stream:
            name, chunks = parse_file_chunks(path, source=task.source, opts=task.opts)
            return StreamedFile(path, name, chunks)
        name = task.source or detect(path)
        df = parse_file(path, source=name, opts=task.opts)
    except UnknownSourceError as e:
        if task.skip_unknown_in_dirs and inside_dir:
            return (path, "format not recognised")
        raise e
    except InputError as e:
        # One unreadable file in a directory must not hide the others (check-jsonschema).
        if inside_dir and type(e) is InputError:
            return (path, e.message)
        raise
    return FileResult(path=path, source=name, frame=df)


#: Parses a batch of files (`map(ingest_file, tasks)`, in order): in-process by default, or an
#: engine's map (toolcall_cli.store.engines) that runs them on worker processes or a cluster.
BatchParse = Callable[
    [Callable[[FileTask], "FileResult | StreamedFile | tuple[Path, str]"], list[FileTask]],
    list[Any],
]


def iter_ingest(
    paths: Iterable[Path],
    *,
    source: str | None = None,
    opts: ParseOptions | None = None,
    skip_unknown_in_dirs: bool = True,
    parse_batch: BatchParse | None = None,
    batch: int = 1,
    stream: bool = False,
) -> Iterator[FileResult | StreamedFile | tuple[Path, str]]:
    """Parse every file under *paths*, one at a time: a `FileResult` per file, or
    ``(path, reason)`` for a file inside a directory that was skipped. Consumers that write
    each file before parsing the next hold one file's events at a time (`toolcall ingest`);
    with *stream* they get a `StreamedFile` and hold one chunk at a time, reading each file's
    chunks before they ask for the next file. With *parse_batch*, *batch* files at a time are
    parsed by it (an engine's workers; they never stream)."""
    paths = list(paths)
    explicit = {p for p in paths if not p.is_dir()}
    follow = opts.follow_symlinks if opts is not None else False
    pending: list[FileTask] = []
    for path, top in walk_tree(paths, follow_symlinks=follow):
        inside_dir = path not in explicit
        problem = regular_file_problem(path) if inside_dir else None
        if problem is None and top is not None and not follow and escapes_tree(path, top):
            problem = f"symlink to a file outside {top} (pass --follow-symlinks to read it)"
        if problem:  # FIFOs, sockets, dangling symlinks inside a directory: never opened
            yield (path, problem)
            continue
        task = FileTask(path, inside_dir, source, opts, skip_unknown_in_dirs, stream=stream)
        if parse_batch is None:
            yield ingest_file(task)
            continue
        pending.append(replace(task, stream=False))
        if len(pending) >= batch:
            yield from parse_batch(ingest_file, pending)
            pending = []
    if pending and parse_batch is not None:
        yield from parse_batch(ingest_file, pending)


def ingest_paths(
    paths: Iterable[Path],
    *,
    source: str | None = None,
    opts: ParseOptions | None = None,
    skip_unknown_in_dirs: bool = True,
) -> IngestResult:
    """Parse every file under *paths*; inside directories, unrecognised files are skipped."""
    files: list[FileResult] = []
    skipped: list[tuple[Path, str]] = []
    for item in iter_ingest(
        paths, source=source, opts=opts, skip_unknown_in_dirs=skip_unknown_in_dirs
    ):
        if isinstance(item, FileResult):
            files.append(item)
        elif isinstance(item, tuple):
            skipped.append(item)
    from toolcall_cli.sources.otel.dedupe import drop_redelivered

    events = drop_redelivered(concat_frames([f.frame for f in files]))  # one span, many files
    return IngestResult(events=events, files=tuple(files), skipped=tuple(skipped))
