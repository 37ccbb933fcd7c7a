"""Timeouts and latency: what the model was told when a tool ran out of time (TM001), and
which phases of a round trip broke their SLA (TM002).

Each module declares, documents and registers one code; this package imports them by name.
"""

from __future__ import annotations

from toolcall_cli.diagnose.rules.timeouts import (  # noqa: F401  (each registers its code)
    sla_breach,
    timeout_without_partial,
)
