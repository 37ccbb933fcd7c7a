"""Ingest: records no format could parse (IN001), clocks that disagree (IN002) and call ids
several conversations share (IN003).

Each module declares, documents and registers one code; this package imports them by name.
"""

from __future__ import annotations

from toolcall_cli.diagnose.rules.ingest import (  # noqa: F401  (each registers its code)
    ambiguous_call_id,
    clock_skew,
    unparsed_line,
)
