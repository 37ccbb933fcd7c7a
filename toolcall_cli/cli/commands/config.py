"""`toolcall config show|init`: the effective configuration, or a commented toolcall.toml."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
from toolcall_cli.cli._options import FormatOpt, emit


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
        emit(_settings.config_report(), fmt, output)
        return
    from toolcall_cli.model.config_show import init_text, write_init

    target = output or Path("toolcall.toml")
    if str(target) == "-":
        typer.echo(init_text(), nl=False)
        return
    write_init(target, force=force)
    say(f"toolcall: wrote {target}: every key commented out with its default")
