"""Provider error bodies, read alike by every source that carries LLM API traffic.

OpenAI-compatible servers answer a failed request in several shapes: `{"error": {...}}`
(OpenAI, Anthropic, vLLM's inference errors), `{"error": "..."}` (llama.cpp, Ollama), vLLM's
`{"object": "error", "message", "code"}` and FastAPI's `{"detail": ...}` (a string, or a list
of validation errors). Conversations (messages adapter) and the wire (pcap bodies) both use
:func:`is_error_body` and :func:`error_parts`, so a body means the same wherever it was seen.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson


def is_error_body(body: Mapping[str, Any]) -> bool:
    """A provider error body (and not a completion that merely mentions an error)."""
    if body.get("error") and not body.get("choices"):
        return True
    if body.get("object") == "error" and "message" in body:
        return True
    return set(body) == {"detail"} and bool(body["detail"])


def _dump(value: Any) -> str:
    try:
        return orjson.dumps(value, default=str).decode()
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)[:2000]


def error_parts(body: Any) -> tuple[str, dict[str, Any]]:
    """(the provider's message, {"error_type", "error_code", "error_metadata"} when given)."""
    err = body.get("error") if isinstance(body, Mapping) else body
    if isinstance(body, Mapping) and not err:
        err = body if body.get("object") == "error" else body.get("detail", body)
    if (
        isinstance(err, Mapping)
        and "message" not in err
        and isinstance(err.get("error"), dict | str)
    ):
        err = err["error"]  # a wrapped body: {"error": {"error": {...}}} as a session field
    if isinstance(err, list) and err and all(isinstance(e, Mapping) for e in err):
        # FastAPI validation errors: [{"loc": [...], "msg": "...", "type": "..."}]
        err = {"message": "; ".join(str(e.get("msg", _dump(e))) for e in err)}
    facts: dict[str, Any] = {}
    if not isinstance(err, Mapping):
        return (err if isinstance(err, str) else _dump(err)), facts
    m = err.get("message")
    message = m if isinstance(m, str) else _dump(m) if m is not None else _dump(err)
    if isinstance(err.get("type"), str):
        facts["error_type"] = err["type"]
    code = err.get("code")
    if code is not None and not isinstance(code, dict | list | bool):
        facts["error_code"] = str(code)
    if isinstance(err.get("metadata"), dict):
        facts["error_metadata"] = err["metadata"]
    return message, facts
