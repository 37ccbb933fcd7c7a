"""stderr output: errors, summaries and progress (never built at import time: NO_COLOR)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console

from toolcall_cli.errors import ToolcallError
from toolcall_cli.render.safe import clean

if TYPE_CHECKING:
    from toolcall_cli.sources.base import ProgressFn


def err_console() -> Console:
    """A fresh stderr console honouring NO_COLOR and the terminal state."""
    return Console(stderr=True, highlight=False, soft_wrap=True)


def say(text: str) -> None:
    """One summary/progress line on stderr, taken literally (no markup)."""
    err_console().print(clean(text), markup=False, highlight=False)


def print_error(e: ToolcallError) -> None:
    """`toolcall: error: …` and an optional hint line."""
    con = err_console()
    con.print(
        f"toolcall: error: {clean(e.message, keep_newlines=False)}", markup=False, highlight=False
    )
    if e.hint:
        con.print(f"  hint: {clean(e.hint, keep_newlines=False)}", markup=False, highlight=False)


def print_bug(e: BaseException) -> None:
    """A one-line internal-error report, no traceback."""
    err_console().print(
        f"toolcall: internal error: {type(e).__name__}: "
        f"{clean(str(e), keep_newlines=False, limit=300)}\n"
        "  hint: re-run with --debug (or TOOLCALL_DEBUG=1) and report it",
        markup=False,
        highlight=False,
    )


def debug_enabled() -> bool:
    """--debug or TOOLCALL_DEBUG=1."""
    return os.environ.get("TOOLCALL_DEBUG", "") not in ("", "0") or "--debug" in sys.argv[1:2]


@contextmanager
def progress_bar(label: str, *, enabled: bool = True) -> Iterator[ProgressFn | None]:
    """A byte-progress callback drawing a bar on a terminal; None when piped or disabled."""
    con = err_console()
    if not enabled or not con.is_terminal:
        yield None
        return
    # rich.progress only for a bar that is drawn (start-up of every piped run)
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=con,
        transient=True,
    ) as prog:
        task = prog.add_task(clean(label, keep_newlines=False, limit=60), total=None)

        def update(done: int, total: int) -> None:
            prog.update(task, completed=done, total=total)

        yield update
