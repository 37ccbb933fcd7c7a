"""Orphans: calls without results and results without calls (OR001–OR004).

Each module declares, documents and registers one code; this package imports them by name.
"""

from __future__ import annotations

from toolcall_cli.diagnose.rules.orphans import (  # noqa: F401  (each registers its code)
    call_id_mismatch,
    call_without_result,
    result_out_of_order,
    result_without_call,
)
