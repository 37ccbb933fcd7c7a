"""Engines: where ingest's per-file parses and diagnose's per-bucket tasks run (DESIGN §6b).

An engine maps a picklable, module-level function over a list of tasks and returns the
results in task order. `local` runs them in this process (one worker) or on a process pool
(`--workers N`); `dask` sends them to an existing Dask distributed cluster (`--scheduler
tcp://HOST:PORT`). Scheduling is the pool's or Dask's own: toolcall only splits the work.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from toolcall_cli.errors import UsageError

T = TypeVar("T")
R = TypeVar("R")

ENGINES = ("local", "dask")


class Engine(Protocol):
    """Runs tasks; `close()` releases its workers or its connection."""

    name: str
    workers: int

    def map(self, fn: Callable[[Any], R], tasks: Sequence[Any]) -> list[R]:
        """`[fn(t) for t in tasks]`, computed wherever the engine runs tasks."""
        ...

    def close(self) -> None:
        """Release what the engine holds."""
        ...


#: One task at a time per worker process works in the driver's directory (os.chdir is global).
_IN_DIRECTORY = threading.Lock()


def in_directory(cwd: str, fn: Callable[[T], R], task: T) -> R:
    """`fn(task)` run in *cwd*, the driver's working directory (in a worker).

    Inputs, origins and the store's recorded paths are relative to where the command runs,
    so a worker parses and quotes from there: workers must see the inputs at the same paths
    (this machine, or a shared file system).
    """
    with _IN_DIRECTORY:
        before = os.getcwd()
        os.chdir(cwd)
        try:
            return fn(task)
        finally:
            os.chdir(before)


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
