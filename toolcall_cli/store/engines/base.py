"""What an engine is (`Engine`), and how a worker runs a task where the driver runs."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


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
