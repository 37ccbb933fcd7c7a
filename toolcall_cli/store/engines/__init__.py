"""Engines: where ingest's per-file parses and diagnose's per-bucket tasks run (DESIGN §6b).

An engine maps a picklable, module-level function over a list of tasks and returns the
results in task order. `local` runs them in this process (one worker) or on a process pool
(`--workers N`); `dask` sends them to an existing Dask distributed cluster (`--scheduler
tcp://HOST:PORT`). Scheduling is the pool's or Dask's own: toolcall only splits the work.
"""

from __future__ import annotations

from toolcall_cli.errors import UsageError
from toolcall_cli.store.engines.base import Engine

ENGINES = ("local", "dask")


def open_engine(name: str, *, scheduler: str | None = None, workers: int = 1) -> Engine:
    """The engine *name* (`local` or `dask`); a bad combination is a usage error (exit 2)."""
    if name == "local":
        if scheduler:
            raise UsageError("--scheduler needs --engine dask", hint="pass --engine dask")
        from toolcall_cli.store.engines.local import LocalEngine

        return LocalEngine(workers=workers)
    if name == "dask":
        if not scheduler:
            raise UsageError(
                "--engine dask needs --scheduler tcp://HOST:PORT",
                hint="start one with `dask scheduler` and `dask worker tcp://HOST:PORT`",
            )
        from toolcall_cli.store.engines.dask_engine import DaskEngine

        return DaskEngine(scheduler)
    raise UsageError(f"unknown engine {name!r}", hint=f"choose one of: {', '.join(ENGINES)}")
