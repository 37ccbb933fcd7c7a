"""Renderers: every command's output goes through one chosen by `--format`.

`RENDERERS` is the one declaration of the output formats: each names itself, says what it is,
and lists the commands it serves (check-jsonschema's `reporter.py`). Everything else is derived
from it: each command's `--format` choices, its `--help`, shell completion, the man pages and
the usage error for a format a command does not serve (`formats_of`, `check_format`).

The drawing lives in view modules, one handler per format and report type
(`@renders("table", IngestReport)`), so a feature keeps all its views in one module. A handler
for a format that does not declare the report's command is refused at import.

View modules import rich, pandas and the analysis they draw, so they load on first use: `VIEWS`
names, per report type, its command and the modules that draw it, and `render` imports them
when it meets that type (`toolcall --help` and `toolcall rules` never pay for the timeline's
pandas). A meta-test imports every view and checks each command draws exactly the formats
that declare it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar

from toolcall_cli.errors import UsageError
from toolcall_cli.model.registry import Registry


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """Presentation knobs decided by the CLI."""

    width: int | None = None
    color: bool = False
    quiet: bool = False


@dataclass(frozen=True, slots=True)
class Renderer:
    """An output format and the commands (or command modes) it serves."""

    name: str
    description: str
    commands: tuple[str, ...]


_EVERY = ("ingest", "timeline", "diagnose", "replay", "lint", "rules", "config", "query")
_STATISTICS = "diagnose --statistics"

#: In the order `--help` lists them.
_DECLARED = (
    Renderer("table", "rich tables for a terminal (default)", (*_EVERY, _STATISTICS)),
    Renderer("json", "one JSON document (schema_version 1)", (*_EVERY, _STATISTICS)),
    Renderer("jsonl", "one JSON object per line where rows stream", ("ingest", "query")),
    Renderer("csv", "CSV with a header row, for spreadsheets and other tools", ("query",)),
    Renderer("markdown", "Markdown for tickets and PR comments", (*_EVERY, _STATISTICS)),
    Renderer("sarif", "SARIF 2.1.0 for code-scanning UIs", ("diagnose", "lint")),
    Renderer("github", "GitHub Actions workflow annotations", ("lint",)),
    Renderer("html", "a self-contained HTML page", ("timeline", "diagnose")),
    Renderer(
        "otlp", "OTLP/JSON lines (file-exporter format) for tracing tools", ("timeline", "diagnose")
    ),
    Renderer(
        "openmetrics",
        "OpenMetrics text for Prometheus textfile collectors and Pushgateway",
        ("diagnose",),
    ),
)

RENDERERS: Registry[Renderer] = Registry("format")
for _renderer in _DECLARED:
    RENDERERS.add(_renderer.name, _renderer)


def formats_of(command: str) -> tuple[str, ...]:
    """The formats that serve *command* (or a mode such as `diagnose --statistics`)."""
    return tuple(r.name for r in _DECLARED if command in r.commands)


def check_format(fmt: str, command: str) -> None:
    """Refuse a format that does not serve *command* (exit 2)."""
    allowed = formats_of(command)
    if fmt not in allowed:
        raise UsageError(
            f"{command} does not support --format {fmt}",
            hint=f"choose one of: {', '.join(allowed)}",
        )


@dataclass(frozen=True, slots=True)
class Views:
    """The command a report type answers and the view modules that draw it."""

    command: str
    modules: tuple[str, ...]


#: Report type (class name) → its command and view modules, imported on first render.
VIEWS: dict[str, Views] = {
    "IngestReport": Views("ingest", ("ingest_view",)),
    "TimelineReport": Views("timeline", ("timeline_view", "html_view", "otlp_view")),
    "DiagnoseReport": Views(
        "diagnose",
        ("diagnose_view", "diagnose_markdown_view", "html_view", "otlp_view", "openmetrics_view"),
    ),
    "ReplayReport": Views("replay", ("replay_view",)),
    "LintReport": Views("lint", ("lint_view",)),
    "RulesReport": Views("rules", ("rules_view",)),
    "ConfigReport": Views("config", ("config_view",)),
    "QueryResult": Views("query", ("query_view",)),
}

R = TypeVar("R")
Handler = Callable[[Any, TextIO, RenderOptions], None]
_HANDLERS: dict[tuple[str, type], Handler] = {}


def renders(
    fmt: str, report_type: type[R]
) -> Callable[
    [Callable[[R, TextIO, RenderOptions], None]], Callable[[R, TextIO, RenderOptions], None]
]:
    """Register a handler drawing *report_type* in format *fmt*, a format that declares the
    report's command."""
    command = VIEWS[report_type.__name__].command
    if command not in RENDERERS.get(fmt).commands:
        raise ValueError(f"format {fmt} does not declare the command {command}")

    def deco(
        fn: Callable[[R, TextIO, RenderOptions], None],
    ) -> Callable[[R, TextIO, RenderOptions], None]:
        key = (fmt, report_type)
        if key in _HANDLERS:
            raise ValueError(f"duplicate renderer {fmt} for {report_type.__name__}")
        _HANDLERS[key] = fn
        return fn

    return deco


def load_views(report_type: type | None = None) -> None:
    """Import the view modules of *report_type* (every view module when None)."""
    if report_type is None:
        names = tuple(n for views in VIEWS.values() for n in views.modules)
    else:
        names = VIEWS[report_type.__name__].modules
    for name in dict.fromkeys(names):
        importlib.import_module(f"{__name__}.{name}")


def render(fmt: str, report: object, out: TextIO, opts: RenderOptions) -> None:
    """Draw *report* in format *fmt* onto *out*; a format that does not serve the report's
    command is a usage error (2)."""
    views = VIEWS[type(report).__name__]
    check_format(fmt, views.command)
    # view modules load one by one until one draws *fmt*: a table never pays for the HTML view
    for name in views.modules:
        if (fmt, type(report)) in _HANDLERS:
            break
        importlib.import_module(f"{__name__}.{name}")
    _HANDLERS[(fmt, type(report))](report, out, opts)
