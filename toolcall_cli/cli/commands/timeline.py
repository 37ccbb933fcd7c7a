"""`toolcall timeline` (being built)."""

from __future__ import annotations

from toolcall_cli.errors import UsageError


def run() -> None:
    """Not available yet."""
    raise UsageError("timeline is not available yet")
