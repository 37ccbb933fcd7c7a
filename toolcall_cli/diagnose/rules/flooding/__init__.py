"""Flooding: why a middleware cancelled calls as tool-call flooding (FL001–FL007).

A "tool call cancelled because tool-call flooding was detected" is a symptom. The model
looping (FL001) or repeating a call inside one turn (FL007), a broken id generator (FL003), a
double submit (FL002), a retry that reuses the call (FL004) or a rate-limit window split
across instances (FL005) explain it; FL006 reports a cancellation none of them explains.

Each module declares, documents and registers one code; this package imports them by name.
"""

from __future__ import annotations

from toolcall_cli.diagnose.rules.flooding import (  # noqa: F401  (each registers its code)
    double_submit,
    duplicate_call_id,
    flood_unexplained,
    model_loop,
    parallel_duplicate,
    retry_duplicate,
    session_state_loss,
)
