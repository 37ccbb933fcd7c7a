"""The `toolcall` console script: the typer app, then a quick exit.

Once a command has run, CPython's finalisation tears down every module one by one. With
pandas, numpy and pyarrow loaded that is ~0.1 s of a short `diagnose` — a sixth of its
start-up budget — spent on nothing the user sees. So when the app returns, the standard
streams are flushed, the atexit handlers run (logging, multiprocessing, tempfile and Dask
clean-ups register there) and the process leaves with `os._exit`. Every file toolcall writes
is closed by then (`-o` output and store parts are written whole, under `with`). If another
thread is still alive, or the exit status is not a number, the interpreter exits the usual way.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading


def main() -> None:
    from toolcall_cli.cli.app import app

    code: int | str = 0
    try:
        app()  # typer's standalone mode: always leaves through SystemExit
    except SystemExit as e:
        code = 0 if e.code is None else e.code
    if isinstance(code, str) or threading.active_count() > 1:
        sys.exit(code)  # a str status is printed by the interpreter
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass  # the reader left (`| head`); nothing more can reach it, as in _guard
    except OSError:
        sys.exit(code)  # a full disk: let the interpreter report the unwritten output
    atexit._run_exitfuncs()
    os._exit(code)
