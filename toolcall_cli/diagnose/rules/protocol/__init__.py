"""Protocol: calls, names and responses that break the tool-call contract (PR001–PR011).

Each module declares, documents and registers one code; this package imports them by name.
"""

from __future__ import annotations

from toolcall_cli.diagnose.rules.protocol import (  # noqa: F401  (each registers its code)
    arguments_not_json,
    arguments_not_string,
    leaked_template_token,
    provider_error,
    raw_json_result,
    response_contract,
    stale_tool_list,
    timestamp_skew,
    tool_execution_error,
    tool_name_case_mismatch,
    unknown_tool,
)
