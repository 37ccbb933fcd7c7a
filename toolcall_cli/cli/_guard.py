"""The one place where exceptions become exit codes (STYLE §5)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import debug_enabled, print_bug, print_error
from toolcall_cli.errors import ExitCode, ToolcallError

P = ParamSpec("P")
R = TypeVar("R")


def guarded(fn: Callable[P, R]) -> Callable[P, R]:
    """Run a command, mapping ToolcallError → its exit code and anything else → 70."""

    @functools.wraps(fn)  # typer still sees the params and help
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise  # typer.Exit subclasses Exception
        except ToolcallError as e:
            if e.exit_code == ExitCode.INTERNAL and (debug_enabled() or _settings.current().debug):
                raise
            print_error(e)
            raise typer.Exit(int(e.exit_code)) from e
        except KeyboardInterrupt:
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        except BrokenPipeError:
            raise typer.Exit(int(ExitCode.OK)) from None
        except Exception as e:
            if debug_enabled() or _settings.current().debug:
                raise
            print_bug(e)
            raise typer.Exit(int(ExitCode.INTERNAL)) from e

    return wrapper
