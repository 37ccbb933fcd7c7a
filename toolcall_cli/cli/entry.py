"""The `toolcall` console script: the typer app, then a quick exit.

Once a command has run, CPython's finalisation tears down every module one by one. With
pandas, numpy and pyarrow loaded that is a sizeable share of a short `diagnose`'s start-up
budget, spent on nothing the user sees. So when the app returns, the standard
streams are flushed, the atexit handlers run (logging, multiprocessing, tempfile and Dask
clean-ups register there) and the process leaves with `os._exit`. Every file toolcall writes
is closed by then (`-o` output and store parts are written whole, under `with`). If another
thread is still alive, or the exit status is not a number, the interpreter exits the usual way.

Before anything imports numpy or pyarrow, Arrow's memory pool is set to jemalloc (see
`prefer_jemalloc`) and OpenBLAS to one thread (see `one_blas_thread`).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading


def prefer_jemalloc() -> None:
    """Arrow allocates from jemalloc in this process, unless the user chose a pool.

    pyarrow's default on Linux is mimalloc, which hands the pages of a freed block back and
    takes fresh ones for the next, so a block-by-block ingest spends its system time zeroing
    pages; jemalloc keeps them at about the same peak (the system allocator's peak is higher
    on wide lines). Linux only: there every pyarrow wheel is built with jemalloc, and naming a
    pool Arrow was built without prints a warning.
    """
    if sys.platform == "linux":
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")


def one_blas_thread() -> None:
    """numpy's OpenBLAS runs on the calling thread only, unless the user set its thread count.

    Importing numpy starts an OpenBLAS thread server with a worker per further core; toolcall
    does no linear algebra, yet those workers cost CPU time (a large OTLP ingest uses more
    with them).
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main() -> None:
    prefer_jemalloc()
    one_blas_thread()
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
