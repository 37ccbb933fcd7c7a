"""Provider built-in tools and free-text arguments: what diagnose (PR001, PR002) and replay
(prescreen, the session's registry) must agree on, written once.

A session may declare a provider's built-in tool by its type only (`{"type":
"code_interpreter"}`); calls to it carry the name the provider gives it. Some calls take free
text by design instead of a JSON object: a custom tool's free-form input (OpenAI
`custom_tool_call`, Codex's `apply_patch`), a ReAct action input written as prose, raw code
for the code interpreter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolcall_cli.model.jsonscan import looks_json

#: Built-in tools declared by type only, and the name calls to them carry (functionary and
#: the Assistants API call the code interpreter `python`, with raw code as arguments).
BUILTIN_TOOLS: Final = {"code_interpreter": "python"}
#: Tools whose arguments are raw code.
CODE_TOOLS: Final = frozenset(BUILTIN_TOOLS.values())


def builtin_name(definition: Any) -> str | None:
    """The name calls to a built-in tool declared by type only carry, else None."""
    if not isinstance(definition, dict) or "name" in definition:
        return None
    return BUILTIN_TOOLS.get(str(definition.get("type")))


def free_text_reason(attrs: Mapping[str, Any], tool: str | None, args: str | None) -> str | None:
    """Why a call's arguments are free text by design, or None when they are meant as JSON."""
    if attrs.get("input_format") == "freeform":
        return "a custom tool's free-form input"
    if looks_json(args):
        return None
    if attrs.get("protocol") == "react":
        return "a ReAct action input in prose"
    if tool in CODE_TOOLS:
        return "raw code for the code interpreter"
    return None
