"""`toolcall lint` (being built)."""

from __future__ import annotations

from toolcall_cli.errors import UsageError


def run() -> None:
    """Not available yet."""
    raise UsageError("lint is not available yet")
