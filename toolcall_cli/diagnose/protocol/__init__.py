"""Protocol: calls, names and responses that break the tool-call contract (PR001–PR008, PR010).

Each module declares, documents and registers one code; this package imports them by name.
"""

from __future__ import annotations

from toolcall_cli.diagnose.protocol import (  # noqa: F401  (each registers its code)
    arguments_not_json,
    arguments_not_string,
    provider_error,
    raw_json_result,
    response_contract,
    stale_tool_list,
    timestamp_skew,
    tool_name_case_mismatch,
    unknown_tool,
)
