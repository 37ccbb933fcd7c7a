"""The `dask` engine: tasks on an existing Dask distributed cluster.

The cluster is the user's (`dask scheduler` + `dask worker`, a `LocalCluster`, Kubernetes...):
toolcall connects a `Client` to its scheduler, submits one task per file or bucket and gathers
the results in order. Workers need toolcall importable and the inputs readable at the same
paths (a shared file system).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from toolcall_cli.errors import InputError, MissingDependencyError, UsageError
from toolcall_cli.store.engines.base import in_directory

R = TypeVar("R")

CONNECT_TIMEOUT = "10s"
#: What --scheduler takes: a Dask comm address (tcp://HOST:PORT, tls://HOST:PORT).
ADDRESS = re.compile(r"(tcp|tls)://[A-Za-z0-9.\-]+:\d{1,5}|(tcp|tls)://\[[0-9A-Fa-f:]+\]:\d{1,5}")


class DaskEngine:
    """Tasks submitted to the scheduler at *address*."""

    name = "dask"

    def __init__(self, address: str) -> None:
        if not ADDRESS.fullmatch(address):
            # checked first: a Client built on a malformed address fails noisily in __del__
            raise UsageError(
                f"--scheduler {address[:80]!r} is not a scheduler address",
                hint="pass tcp://HOST:PORT (what `dask scheduler` prints)",
            )
        try:
            from distributed import Client
        except ImportError:
            raise MissingDependencyError(
                "--engine dask needs Dask distributed, which this toolcall was installed without",
                hint="pip install 'toolcall[dask]'",
            ) from None
        try:
            self._client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise InputError(
                f"cannot reach the Dask scheduler at {address}: {str(e).splitlines()[0][:200]}",
                hint="check the address (tcp://HOST:PORT) and that the scheduler is running",
            ) from None
        self.workers = max(1, len(self._client.scheduler_info().get("workers", {})))

    def map(self, fn: Callable[[Any], R], tasks: Sequence[Any]) -> list[R]:
        """Scatter the tasks' data to the workers, run one task per item, gather in order."""
        if not tasks:
            return []
        data = self._client.scatter(list(tasks))  # data moves once, not inside the task graph
        futures = self._client.map(partial(in_directory, os.getcwd(), fn), data, pure=False)
        return list(self._client.gather(futures))

    def close(self) -> None:
        """Disconnect (the cluster keeps running)."""
        self._client.close()
