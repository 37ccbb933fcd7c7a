"""Renderers: every command's output goes through one chosen by `--format`.

A renderer is a format name; each report type registers one handler per format it supports
(`@renders("table", IngestSummary)`), so a feature keeps all its views in one module.

View modules import rich, pandas and the analysis they draw, so they load on first use: `VIEWS`
names, per report type, the modules that draw it, and `render` imports them when it meets that
type (`toolcall --help` and `toolcall rules` never pay for the timeline's pandas). A meta-test
imports every view and checks the table names each type a view registers.
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
    verbose: bool = False


@dataclass(frozen=True, slots=True)
class Renderer:
    """A named output format."""

    name: str
    description: str


RENDERERS: Registry[Renderer] = Registry("format")
for _name, _desc in (
    ("table", "rich tables for a terminal (default)"),
    ("json", "one JSON document (schema_version 1)"),
    ("jsonl", "one JSON object per line where rows stream"),
    ("csv", "CSV with a header row, for spreadsheets and other tools"),
    ("markdown", "Markdown for tickets and PR comments"),
    ("sarif", "SARIF 2.1.0 for code-scanning UIs"),
    ("github", "GitHub Actions workflow annotations"),
    ("html", "a self-contained HTML page"),
    ("otlp", "OTLP/JSON lines (file-exporter format) for tracing tools"),
    ("openmetrics", "OpenMetrics text for Prometheus textfile collectors and Pushgateway"),
):
    RENDERERS.add(_name, Renderer(_name, _desc))

#: Report type (class name) → the view modules that draw it, imported on first render.
VIEWS: dict[str, tuple[str, ...]] = {
    "IngestReport": ("ingest_view",),
    "TimelineReport": ("timeline_view", "html_view", "otlp_view"),
    "DiagnoseReport": (
        "diagnose_view",
        "diagnose_markdown_view",
        "html_view",
        "otlp_view",
        "openmetrics_view",
    ),
    "ReplayReport": ("replay_view",),
    "LintReport": ("lint_view",),
    "RulesReport": ("rules_view",),
    "ConfigReport": ("config_view",),
    "QueryResult": ("query_view",),
}

R = TypeVar("R")
Handler = Callable[[Any, TextIO, RenderOptions], None]
_HANDLERS: dict[tuple[str, type], Handler] = {}


def renders(
    fmt: str, report_type: type[R]
) -> Callable[
    [Callable[[R, TextIO, RenderOptions], None]], Callable[[R, TextIO, RenderOptions], None]
]:
    """Register a handler drawing *report_type* in format *fmt*."""
    RENDERERS.get(fmt)

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
        names = tuple(n for views in VIEWS.values() for n in views)
    else:
        names = VIEWS.get(report_type.__name__, ())
    for name in dict.fromkeys(names):
        importlib.import_module(f"{__name__}.{name}")


def formats_for(report_type: type) -> list[str]:
    """Formats available for a report type."""
    load_views(report_type)
    return sorted(f for f, t in _HANDLERS if t is report_type)


def render(fmt: str, report: object, out: TextIO, opts: RenderOptions) -> None:
    """Draw *report* in format *fmt* onto *out*."""
    # view modules load one by one until one draws *fmt*: a table never pays for the HTML view
    for name in VIEWS.get(type(report).__name__, ()):
        if (fmt, type(report)) in _HANDLERS:
            break
        importlib.import_module(f"{__name__}.{name}")
    handler = _HANDLERS.get((fmt, type(report)))
    if handler is None:
        raise UsageError(
            f"--format {fmt} is not available here",
            hint=f"choose one of: {', '.join(formats_for(type(report)))}",
        )
    handler(report, out, opts)
