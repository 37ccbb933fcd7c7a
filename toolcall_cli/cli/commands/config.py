"""`toolcall config show|init`: the effective configuration, or a commented toolcall.toml."""

from __future__ import annotations

import os
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
from toolcall_cli.cli._options import FormatOpt, emit
from toolcall_cli.errors import UsageError

if TYPE_CHECKING:
    from toolcall_cli.model.config_show import ConfigReport


class ConfigAction(str, Enum):
    """What `toolcall config` does."""

    show = "show"
    init = "init"


def run(
    action: Annotated[
        ConfigAction,
        typer.Argument(
            metavar="show|init",
            help="show: every key's effective value and where it came from; init: write a "
            "commented toolcall.toml with every key and its default.",
            show_default=False,
        ),
    ],
    fmt: FormatOpt = "table",
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", metavar="FILE", dir_okay=False,
            help="show: write here instead of stdout; init: the file to write (default: "
            "toolcall.toml; - for stdout).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="init: overwrite an existing file.")]
    = False,
) -> None:  # fmt: skip
    """Show the effective configuration with each value's source, or write a commented one."""
    if action is ConfigAction.show:
        emit(_report(), fmt, output)
        return
    from toolcall_cli.model.config_show import init_text

    target = output or Path("toolcall.toml")
    if str(target) == "-":
        typer.echo(init_text(), nl=False)
        return
    if target.exists() and not force:
        raise UsageError(f"{target} exists", hint="pass --force to overwrite it, or -o FILE")
    target.write_text(init_text(), encoding="utf-8")
    say(f"toolcall: wrote {target}: every key commented out with its default")


def _report() -> ConfigReport:
    """The config keys' rows, with the environment override and the global options added."""
    from toolcall_cli.cli._inputs import MAX_DECOMPRESSED_ENV, max_decompressed
    from toolcall_cli.model.config_show import Setting, effective, file_source

    cfg = _settings.config()
    s = _settings.current()
    report = effective(cfg)
    rows = list(report.settings)
    if os.environ.get(MAX_DECOMPRESSED_ENV, "").strip():
        i = next(i for i, r in enumerate(rows) if r.key == "limits.max_decompressed")
        rows[i] = replace(rows[i], value=max_decompressed(cfg.max_decompressed),
                          source=f"env {MAX_DECOMPRESSED_ENV}")  # fmt: skip
    env_fmt = os.environ.get("TOOLCALL_FORMAT", "")
    env_debug = os.environ.get("TOOLCALL_DEBUG", "") not in ("", "0")
    color_src = "flag --color" if s.color != "auto" else "default"
    if s.color == "auto" and os.environ.get("NO_COLOR"):
        color_src = "env NO_COLOR (no colour)"
    rows += [
        Setting("--config", str(cfg.path) if cfg.path else None,
                file_source(cfg).split(" ", 1)[0] if cfg.path else "default",
                "the config file: --config FILE, else toolcall.toml or pyproject.toml "
                "[tool.toolcall] found from the working directory"),
        Setting("--format", env_fmt or "table", "env TOOLCALL_FORMAT" if env_fmt else "default",
                "output format of every command"),
        Setting("--color", s.color, color_src, "colour output: auto, always or never"),
        Setting("--debug", s.debug or env_debug,
                "flag --debug" if s.debug else "env TOOLCALL_DEBUG" if env_debug else "default",
                "show tracebacks of internal errors"),
        Setting("--quiet", s.quiet, "flag --quiet" if s.quiet else "default",
                "no summary lines on stderr"),
    ]  # fmt: skip
    return replace(report, settings=tuple(rows))
