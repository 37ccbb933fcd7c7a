"""Views of `toolcall config show`: every key's effective value, its source and meaning."""

from __future__ import annotations

from typing import TextIO

from rich import box
from rich.table import Table

from toolcall_cli.model.config_show import ConfigReport, toml_value
from toolcall_cli.model.jsonio import pretty
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render._rich import cell, console
from toolcall_cli.render.safe import md


@renders("json", ConfigReport)
def to_json(report: ConfigReport, out: TextIO, opts: RenderOptions) -> None:
    """`{"schema_version": 1, "config_file", "settings": [{key, value, source, meaning}]}`."""
    doc = {
        "schema_version": 1,
        "config_file": report.config_file,
        "settings": [
            {"key": s.key, "value": s.value, "source": s.source, "meaning": s.meaning}
            for s in report.settings
        ],
        "notes": list(report.notes),
    }
    out.write(pretty(doc) + "\n")


@renders("table", ConfigReport)
def to_table(report: ConfigReport, out: TextIO, opts: RenderOptions) -> None:
    """One row per key: the value as TOML, where it came from, what it means."""
    con = console(out, opts)
    con.print(cell(f"config file: {report.config_file or 'none (built-in defaults)'}", limit=None))
    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    grid.add_column("key", no_wrap=True)
    grid.add_column("value", overflow="fold")
    grid.add_column("source", overflow="fold")
    grid.add_column("meaning", overflow="fold", ratio=1)
    for s in report.settings:
        grid.add_row(cell(s.key), cell(toml_value(s.value), limit=400), cell(s.source),
                     cell(s.meaning, limit=None))  # fmt: skip
    con.print(grid)
    for note in report.notes:
        con.print(cell(f"warning: {note}", limit=None))


@renders("markdown", ConfigReport)
def to_markdown(report: ConfigReport, out: TextIO, opts: RenderOptions) -> None:
    """The same rows as a Markdown table."""
    out.write(f"**toolcall config**: {md(report.config_file or 'built-in defaults')}\n\n")
    out.write("| key | value | source | meaning |\n|---|---|---|---|\n")
    for s in report.settings:
        out.write(
            f"| {md(s.key)} | {md(toml_value(s.value), limit=400)} | {md(s.source)} | "
            f"{md(s.meaning)} |\n"
        )
