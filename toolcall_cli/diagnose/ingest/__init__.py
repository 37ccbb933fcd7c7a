"""Ingest: records no format could parse (IN001) and clocks that disagree (IN002).

Each module declares, documents and registers one code; this package imports them by name.
"""

from __future__ import annotations

from toolcall_cli.diagnose.ingest import (  # noqa: F401  (each registers its code)
    clock_skew,
    unparsed_line,
)
