"""Every diagnose rule, one module per code, by family.

Each family's package imports its rule modules by name; each rule module declares, documents
and registers one code (explicit list, no scanning).
"""

from __future__ import annotations

from toolcall_cli.diagnose.rules import flooding, ingest, orphans, protocol, timeouts, truncation

__all__ = ["flooding", "ingest", "orphans", "protocol", "timeouts", "truncation"]
