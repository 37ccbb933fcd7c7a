"""Silent truncation: dropped calls, cut results, cut arguments, rolled-out history (TR001–TR004).

Each of these breaks the tool contract without an error anywhere: the model reasons on
incomplete facts.

Each module declares, documents and registers one code; this package imports them by name.
"""

from __future__ import annotations

from toolcall_cli.diagnose.rules.truncation import (  # noqa: F401  (each registers its code)
    arguments_truncated,
    context_rolled,
    result_truncated,
    silent_validation_drop,
)
