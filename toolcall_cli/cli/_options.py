"""Shared typer options as Annotated aliases, and the --format/-o plumbing."""

from __future__ import annotations

import io
import re
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.errors import UsageError
from toolcall_cli.model.atomic import atomic_write
from toolcall_cli.model.events import SOURCES
from toolcall_cli.model.findings import FailOn
from toolcall_cli.render import render

if TYPE_CHECKING:
    from toolcall_cli.store.engines import Engine


class EngineName(str, Enum):
    """--engine choices (toolcall_cli.store.engines)."""

    local = "local"
    dask = "dask"


class Color(str, Enum):
    """--color choices."""

    auto = "auto"
    always = "always"
    never = "never"


if TYPE_CHECKING:

    class SourceName(str, Enum):
        """--source choices: one member per registered source (built at run time)."""

else:
    # Built from the source traits, so a new source is a --source choice without an edit here
    # (tests/test_source_registry.py checks it against the adapter registry).
    SourceName = Enum("SourceName", {name: name for name in SOURCES}, type=str)


#: A command's choices are the formats that serve it (`render.RENDERERS`): `cli/_help.py`
#: narrows this option per command for help, completion and validation.
FormatOpt = Annotated[
    str,
    typer.Option(
        "--format", "-f", envvar="TOOLCALL_FORMAT", help="Output format.", case_sensitive=False
    ),
]
OutputOpt = Annotated[
    Path | None,
    typer.Option(
        "--output", "-o", help="Write results to this file instead of stdout.", dir_okay=False
    ),
]
FailOnOpt = Annotated[
    FailOn, typer.Option("--fail-on", help="Exit 1 when a finding is at or above this severity.")
]
SourceOpt = Annotated[
    SourceName | None,
    typer.Option("--source", "-s", help="Skip detection and parse every file as this source."),
]
SelectOpt = Annotated[
    list[str] | None,
    typer.Option("--select", help="Only these codes or prefixes (repeatable, comma-separated)."),
]
IgnoreOpt = Annotated[
    list[str] | None,
    typer.Option("--ignore", help="Skip these codes or prefixes (repeatable, comma-separated)."),
]
EngineOpt = Annotated[
    EngineName,
    typer.Option(
        "--engine",
        help="Where per-file parses and per-bucket diagnoses run: local (--workers processes) "
        "or dask (an existing cluster, --scheduler).",
    ),
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler", metavar="tcp://HOST:PORT", help="The Dask scheduler of --engine dask."
    ),
]
WorkersOpt = Annotated[
    int, typer.Option("--workers", min=1, help="Local worker processes (1: in this process).")
]


#: `scheme://…`: a URL, which `--store` does not take (a Windows drive `C:\…` has no `//`).
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


def _store_location(value: str | Path) -> Path:
    """`--store`: a directory; a URL is refused rather than made a directory named `s3:`."""
    if isinstance(value, Path):  # the default
        return value
    if _URL.match(value):
        raise typer.BadParameter(f"{value} is a URL; the store is a local directory")
    return Path(value)


StoreOpt = Annotated[
    Path,
    typer.Option(
        "--store",
        metavar="DIR",
        help="Store directory.",
        parser=_store_location,
    ),
]
TzOpt = Annotated[
    str | None,
    typer.Option("--tz", help="Time zone for naive timestamps (default: config, else UTC)."),
]
NginxFormatOpt = Annotated[
    str | None, typer.Option("--nginx-format", help="nginx log_format string for access logs.")
]
ConfigOpt = Annotated[
    Path | None, typer.Option("--config", help="Config file (toolcall.toml).", dir_okay=False)
]
PathsArg = Annotated[
    list[Path] | None,
    typer.Argument(help="Evidence files or directories (default: the store).", show_default=False),
]
FollowSymlinksOpt = Annotated[
    bool,
    typer.Option("--follow-symlinks", help="Read symlinks in a directory that lead outside it."),
]
NoRedactOpt = Annotated[
    bool,
    typer.Option("--no-redact", help="Do not redact secrets (tokens, keys, credential headers)."),
]
NoSkewOpt = Annotated[
    bool, typer.Option("--no-skew-correction", help="Keep each source's own clock.")
]


TraceIdOpt = Annotated[str | None, typer.Option("--trace-id", help="Only this trace.")]
SessionIdOpt = Annotated[
    str | None, typer.Option("--session-id", help="Only the traces of this session.")
]
ToolCallIdOpt = Annotated[
    str | None, typer.Option("--tool-call-id", help="Only the trace of this call.")
]
ToolNameOpt = Annotated[str | None, typer.Option("--tool", help="Only traces calling this tool.")]
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since",
        help="Only traces active at or after this time: ISO 8601, epoch seconds, or a duration "
        "back from the end of the evidence (15m, 2h).",
    ),
]
UntilOpt = Annotated[
    str | None,
    typer.Option(
        "--until",
        help="Only traces active at or before this time (same forms as --since).",
    ),
]


def split_codes(values: list[str] | None) -> tuple[str, ...]:
    """`--select A,B --select C` → ("A", "B", "C"), upper-cased."""
    out: list[str] = []
    for v in values or ():
        out.extend(p.strip().upper() for p in v.split(",") if p.strip())
    return tuple(out)


def engine_of(
    engine: EngineName, scheduler: str | None, workers: int, *, html: bool = False
) -> Engine | None:
    """The engine the flags ask for; None for the default (local, one worker: in-process).
    The HTML page draws the aligned timeline, which stays with the workers: refused (2)."""
    from toolcall_cli.store.engines import open_engine

    if engine == EngineName.local and workers == 1 and scheduler is None:
        return None
    if html:
        raise UsageError(
            "--format html draws the whole aligned timeline; it runs in one process",
            hint="drop --engine/--workers, or choose --format json",
        )
    return open_engine(engine.value, scheduler=scheduler, workers=workers)


def emit(report: object, fmt: str, output: Path | None) -> None:
    """Render to a buffer first, then write stdout or the -o file (opened only after success)."""
    to_terminal = output is None and sys.stdout.isatty()
    opts = _settings.render_options(to_terminal=to_terminal)
    buf = io.StringIO()
    render(fmt, report, buf, opts)
    text = buf.getvalue()
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        _write_atomically(output, text.encode("utf-8"))
    except OSError as e:
        raise UsageError(f"cannot write {output}: {e.strerror or e}") from None


def _write_atomically(output: Path, data: bytes) -> None:
    """*data* into *output* atomically (a full disk leaves the old file, never a truncated
    one); a FIFO or device (`-o /dev/stderr`) is written directly."""
    if output.exists() and not output.is_file():
        output.write_bytes(data)
        return
    atomic_write(output, data, ordinary_mode=True)
