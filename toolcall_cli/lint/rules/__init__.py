"""The SC rules of `toolcall lint`, one module per code, named after its concept.

Each module declares its rule (`RULE`), documents it in its docstring (What it does / Why it
matters / Example / Fix: `toolcall rules SC008` prints it) and registers its check in
`LINT_RULES`. This package imports them by name; nothing is discovered by scanning.

Per-tool rules look at one definition at a time. Whole-registry rules (SC002, SC004, SC012,
SC013) look at every file given, together; BFCL test entries are each their own registry,
since each is a separate request.
"""

from __future__ import annotations

from toolcall_cli.lint.rules import (  # noqa: F401  (each registers its code)
    duplicate_tool_name,
    invalid_default,
    invalid_json_schema,
    invalid_tool_name,
    missing_description,
    nonstandard_type,
    open_object,
    required_not_defined,
    schema_drift,
    similar_tool_names,
    strict_mode_incompatible,
    token_budget,
    unbounded_number,
    unbounded_string,
)
