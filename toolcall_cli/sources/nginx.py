"""nginx adapter (being built)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from toolcall_cli.errors import InputError
from toolcall_cli.sources.base import ParseOptions


class _Placeholder:
    name = "nginx"
    samples: tuple[str, ...] = ()

    def sniff(self, head: bytes, path: Path) -> int:
        return 0

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        raise InputError("nginx adapter not built yet")


ADAPTER = _Placeholder()
