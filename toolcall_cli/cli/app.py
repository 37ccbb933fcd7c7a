"""The typer app: global options and the only command registration site.

Start-up: registering a command imports only its `cli/commands/<name>.py`, which declares the
options (`cli/_options.py`: enums and typer aliases, nothing heavy); each `run()` imports the
core and views it calls, and `render` loads a view on first use. So `toolcall --help` costs
what typer costs, and pandas, pyarrow, jsonschema and numpy load only for a command that uses
them (`tests/test_startup_imports.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli import __version__
from toolcall_cli.cli import _settings
from toolcall_cli.cli._guard import guarded
from toolcall_cli.cli._help import ToolcallCommand, ToolcallGroup
from toolcall_cli.cli._options import Color, ConfigOpt
from toolcall_cli.cli.commands import (
    config,
    diagnose,
    ingest,
    lint,
    query,
    replay,
    rules,
    timeline,
)

app = typer.Typer(
    name="toolcall",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=ToolcallGroup,
    rich_markup_mode=None,
    help="Diagnose and replay LLM tool-call round trips.",
)

COMMANDS = {
    "ingest": ingest.run,
    "timeline": timeline.run,
    "diagnose": diagnose.run,
    "replay": replay.run,
    "lint": lint.run,
    "rules": rules.run,
    "config": config.run,
    "query": query.run,
}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"toolcall {__version__}")
        raise typer.Exit(0)


@app.callback()
def main(
    config_file: ConfigOpt = None,
    color: Annotated[Color, typer.Option("--color", help="Colour output.")] = Color.auto,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks for internal errors.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No summary lines on stderr.")
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Diagnose and replay LLM tool-call round trips."""
    _settings.set_current(
        _settings.Settings(
            config_path=Path(config_file) if config_file else None,
            color=color.value,
            debug=debug,
            quiet=quiet,
        )
    )


for _name, _fn in COMMANDS.items():
    app.command(_name, cls=ToolcallCommand)(guarded(_fn))  # type: ignore[arg-type]
