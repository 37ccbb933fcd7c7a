"""One JSON tool call, or a list of them, inside a tagged block of assistant text: the
call's name and its arguments cut out of the original text verbatim, leniently when the block
is not valid JSON (a Python dict literal, a name and an argument value found by key)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from toolcall_cli.model.jsonscan import value_end

_NAME_RE = re.compile(r'"(?:name|function|action|tool)"\s*:\s*"((?:[^"\\]|\\.)*)"')
_NAME_KEYS = ("name", "function", "action", "tool", "tool_name")
_ARG_KEYS = ("arguments", "parameters", "action_input", "args", "input")

#: Every `TextCall.protocol`: ReAct and tagged blocks here, and the open-weight forms of
#: open_model_calls (`<function=>`, Harmony, Mistral `[ARGS]`, python_tag, bare JSON).
PROTOCOLS = frozenset(
    {"react", "tagged", "function-tag", "harmony", "mistral", "python_tag", "bare-json"}
)


@dataclass(frozen=True, slots=True)
class TextCall:
    """A tool call found in message text."""

    tool: str | None
    args: str | None
    call_id: str | None
    protocol: str  # one of PROTOCOLS
    span: tuple[int, int]
    observation: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict)


def calls_in_block(body: str, start: int, end: int, *, tag: str) -> list[TextCall]:
    try:
        parsed = orjson.loads(body.strip())
        error = None
    except orjson.JSONDecodeError as e:
        parsed, error = None, e
    objs = parsed if isinstance(parsed, list) else [parsed] if isinstance(parsed, dict) else None
    if objs is None:
        return [_lenient_call(body, start, end, tag=tag, error=error)]
    out: list[TextCall] = []
    cursor = 0
    for obj in objs:
        if not isinstance(obj, dict):
            out.append(
                TextCall(
                    None,
                    None,
                    None,
                    "tagged",
                    (start, end),
                    attrs={"tag": tag, "block_invalid": True},
                )
            )
            continue
        fn: dict[str, Any] = obj["function"] if isinstance(obj.get("function"), dict) else obj
        name = next((fn[k] for k in _NAME_KEYS if isinstance(fn.get(k), str)), None)
        args: str | None = None
        raw = _raw_value_after_key(body, _ARG_KEYS, cursor)
        if raw is not None:
            text, cursor = raw
            val = fn.get(next((k for k in _ARG_KEYS if k in fn), ""))
            args = val if isinstance(val, str) else text
        cid = obj.get("id") if isinstance(obj.get("id"), str) else None
        out.append(
            TextCall(
                tool=name,
                args=args,
                call_id=cid,
                protocol="tagged",
                span=(start, end),
                attrs={"tag": tag},
            )
        )
    return out


def _lenient_call(
    body: str, start: int, end: int, *, tag: str, error: orjson.JSONDecodeError | None
) -> TextCall:
    """A block that is not JSON, read for what it plainly says: the name after a name key and
    the verbatim value after an arguments key (or a Python-literal dict's two entries). Nothing
    is invented: without an arguments key the call has no arguments, never the whole block."""
    attrs: dict[str, Any] = {"tag": tag, "block_invalid": True}
    attrs["block_error"] = _decoder_error(body, error)
    literal = _python_dict(body)
    if literal is not None:
        name = next((literal[k] for k in _NAME_KEYS if isinstance(literal.get(k), str)), None)
        key = next((k for k in _ARG_KEYS if k in literal), None)
        value = literal.get(key) if key else None
        args = value if isinstance(value, str) or value is None else _dumps(value)
        attrs["block_repair"] = "read as a Python literal"
        return TextCall(name, args, None, "tagged", (start, end), attrs=attrs)
    m = _NAME_RE.search(body)
    raw = _raw_value_after_key(body, _ARG_KEYS, 0)
    attrs["block_repair"] = "read leniently"
    return TextCall(
        tool=m.group(1) if m else None,
        args=raw[0] if raw else None,
        call_id=None,
        protocol="tagged",
        span=(start, end),
        attrs=attrs,
    )


def _decoder_error(body: str, error: orjson.JSONDecodeError | None) -> str:
    """Where the block stops being JSON, in words (the decoder's position, 1-based)."""
    if error is None:
        return "not a call object"
    pos, body = error.pos, body.strip()  # the decoder read the stripped block
    ch = body[pos] if 0 <= pos < len(body) else ""
    return f"unexpected {ch!r} at character {pos + 1}" if ch else "it ends before it closes"


def _python_dict(body: str) -> dict[str, Any] | None:
    """The block as a Python dict literal (single quotes, True/None), when it is one."""
    import ast

    s = body.strip()
    if not s.startswith("{") or "'" not in s:
        return None
    try:
        lit = ast.literal_eval(s)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return lit if isinstance(lit, dict) else None


def _dumps(value: Any) -> str | None:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return None


def _raw_value_after_key(body: str, keys: tuple[str, ...], cursor: int) -> tuple[str, int] | None:
    """The verbatim JSON text of the first `"key": value` at or after *cursor*."""
    pat = re.compile(r'"(?:' + "|".join(keys) + r')"\s*:\s*')
    m = pat.search(body, cursor)
    if not m:
        return None
    i = m.end()
    j = value_end(body, i)
    return body[i:j], j
