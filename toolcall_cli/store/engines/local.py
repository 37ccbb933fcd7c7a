"""The `local` engine: tasks in this process, or on a pool of worker processes."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import Any, TypeVar

from toolcall_cli.store.engines.base import in_directory

R = TypeVar("R")


class LocalEngine:
    """One worker runs tasks in-process (no pickling); more use a `ProcessPoolExecutor`."""

    name = "local"

    def __init__(self, *, workers: int = 1) -> None:
        self.workers = max(1, workers)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, fn: Callable[[Any], R], tasks: Sequence[Any]) -> list[R]:
        """`[fn(t) for t in tasks]`, on the pool when there is one and more than one task."""
        if self.workers == 1:
            return [fn(t) for t in tasks]
        if self._pool is None:
            # forkserver: a fork of a process that holds Arrow's threads can deadlock
            ctx = multiprocessing.get_context("forkserver")
            # a fresh process per task: the memory a bucket's read and diagnose leave in the
            # allocator's pools goes back with the process, so a worker's peak is one bucket's
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=ctx, max_tasks_per_child=1
            )
        return list(self._pool.map(partial(in_directory, os.getcwd(), fn), tasks))

    def close(self) -> None:
        """Shut the pool down (waiting for its workers)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
