"""The adapter registry's entries: a source's name and the package that holds its adapter.

An adapter package imports pandas, pyarrow and its own readers (slow to import together), so the
registry names each package and imports it on first use (a sniff or a parse): importing
`toolcall_cli.sources` costs nothing, a run that forces ``--source`` loads one adapter, and
the pcap adapter can start tshark before pandas loads (:mod:`.pcap.early`).
`tests/test_source_registry.py` ties the names to the adapters, the traits in `model/events.py`,
the ``--source`` choices, the HTML lane colours and the man pages.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from toolcall_cli.sources.base import Adapter, ParseOptions


class LazyAdapter:
    """The adapter named *name*, found as ``ADAPTER`` in *module*, imported on first use."""

    __slots__ = ("_adapter", "module", "name")

    def __init__(self, name: str, module: str) -> None:
        self.name = name
        self.module = module
        self._adapter: Adapter | None = None

    def load(self) -> Adapter:
        """The adapter itself (its package is imported the first time)."""
        if self._adapter is None:
            adapter: Adapter = import_module(self.module).ADAPTER
            if adapter.name != self.name:  # a registration naming the wrong package
                raise ValueError(f"{self.module}.ADAPTER is {adapter.name!r}, not {self.name!r}")
            self._adapter = adapter
        return self._adapter

    @property
    def samples(self) -> tuple[str, ...]:
        """Fixture paths (repo-relative) the adapter must claim."""
        return self.load().samples

    def sniff(self, head: bytes, path: Path) -> int:
        """The adapter's score 0–100 for *head* (≤64 KiB of *path*)."""
        return self.load().sniff(head, path)

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """The adapter's event table of *path*."""
        return self.load().parse(path, opts)
