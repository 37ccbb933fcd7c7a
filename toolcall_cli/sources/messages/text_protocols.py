"""Text protocols inside assistant content: ReAct and tagged tool-call blocks; transcripts.

Open-weight formats (`<function=…>`, Harmony, Mistral `[ARGS]`, `<|python_tag|>`, bare JSON)
are in :mod:`.open_model_calls`. Tagged blocks: `<tool_call>{...}</tool_call>`,
`<function_call>...</function_call>`,
`<|tool_call|>...<|/tool_call|>` and `[TOOL_CALLS][...]`, each holding one JSON call or a list.
The arguments are cut out of the original text verbatim (a JSON string value is decoded,
as for OpenAI `arguments`). ReAct: `Action:` / `Action Input:` / `Observation:` lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from toolcall_cli.model.jsonscan import value_end

_TAG_RE = re.compile(r"<(tool_call|function_call|functioncall)>(.*?)(?:</\1>|\Z)", re.S)
_PIPE_RE = re.compile(
    r"<\|tool_call\|>(.*?)"
    r"(?:<\|/tool_call\|>|<\|eot_id\|>|<\|im_end\|>|(?=<\|tool_call\|>)|\Z)",
    re.S,
)
_MISTRAL_RE = re.compile(r"\[TOOL_CALLS\]\s*(\[.*)\Z", re.S)
_REACT_RE = re.compile(
    r"(?m)^[ \t]*Action:[ \t]*(?P<tool>[^\n]*)\n[ \t]*Action Input:[ \t]*(?P<args>.*?)"
    r"(?=\n[ \t]*(?:Observation:|Thought:|Action:|Final Answer:)|\Z)",
    re.S,
)
_OBS_RE = re.compile(
    r"\s*Observation:[ \t]*(?P<obs>.*?)(?=\n[ \t]*(?:Thought:|Action:|Final Answer:)|\Z)", re.S
)
_NAME_RE = re.compile(r'"(?:name|function|action|tool)"\s*:\s*"((?:[^"\\]|\\.)*)"')
_TRANSCRIPT_RE = re.compile(r"(?m)^(user|assistant|tool|system|function|observation): ?")
#: How prompt-based function calling (OpenHands, llama.cpp without a tool parser) hands a
#: text-protocol call's result back: as a user message.
_EXEC_RESULT_RE = re.compile(r"\A\s*EXECUTION RESULT of \[(?P<tool>[^\]\n]+)\]:\n?")
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


def extract_calls(text: str) -> list[TextCall]:
    """Every tagged or ReAct call in *text*, in textual order."""
    plain = "<" not in text and "Action" not in text and "[TOOL_CALLS]" not in text
    if plain and not text.lstrip().startswith(("{", "[")):
        return []
    from toolcall_cli.sources.messages.open_model_calls import extract_open_calls

    found: list[TextCall] = extract_open_calls(text)
    for m in _TAG_RE.finditer(text):
        if "<function=" in m.group(2):  # Qwen3-Coder wraps its <function=…> blocks: read there
            continue
        got = calls_in_block(m.group(2), m.start(), m.end(), tag=m.group(1))
        if not m.group(0).endswith(f"</{m.group(1)}>"):  # the text ends inside the block
            got = [_cut(c, f"</{m.group(1)}>") for c in got]
        found.extend(got)
    for m in _PIPE_RE.finditer(text):
        found.extend(calls_in_block(m.group(1), m.start(), m.end(), tag="|tool_call|"))
    mm = _MISTRAL_RE.search(text) if "[ARGS]" not in text else None
    if mm:
        found.extend(calls_in_block(mm.group(1), mm.start(), mm.end(), tag="TOOL_CALLS"))
    for m in _REACT_RE.finditer(text):
        tool = m.group("tool").strip().strip("`").strip() or None
        obs = _OBS_RE.match(text, m.end())
        found.append(
            TextCall(
                tool=tool,
                args=m.group("args").strip(),
                call_id=None,
                protocol="react",
                span=(m.start(), m.end()),
                observation=obs.group("obs").strip() if obs else None,
            )
        )
    return sorted(found, key=lambda c: c.span)


def _cut(call: TextCall, closing: str) -> TextCall:
    """The call of a block the text ends inside: its arguments are cut (TR003's evidence)."""
    attrs = {**call.attrs, "truncated": True, "cut_before": closing}
    return TextCall(call.tool, call.args, call.call_id, call.protocol, call.span, None, attrs)


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


def parse_transcript(text: str) -> list[tuple[str, str, int]]:
    """`role: text` transcript lines → (role, text, 0-based line number) per message."""
    out: list[tuple[str, str, int]] = []
    marks = list(_TRANSCRIPT_RE.finditer(text))
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        body = text[m.end() : end]
        body = body[:-1] if body.endswith("\n") else body
        out.append((m.group(1), body, text.count("\n", 0, m.start())))
    return out


def emit_text_result(
    sink: Any, conv: Any, msg: dict[str, Any], origin: str, idx: int, ts: Any
) -> bool:
    """A user message `EXECUTION RESULT of [NAME]:` right after a text-protocol call of NAME is
    that call's result (prompt-based function calling); True when it was emitted as one."""
    from toolcall_cli.sources.messages.rows import content_text

    text = content_text(msg.get("content")) or ""
    m = _EXEC_RESULT_RE.match(text)
    if not m or not conv.follows(None, m.group("tool")):
        return False
    body = text[m.end() :]
    sink.add(
        conv,
        "tool_result",
        origin,
        ts=ts,
        tool=m.group("tool"),
        detail=body,
        size=len(body),
        attrs={"msg_index": idx, "follows_call": True, "role": "user", "protocol": "text-result"},
    )
    return True


def stop_word(stops: tuple[str, ...], closing: Any) -> str:
    """The stop sequence that cut a block: the one its missing closing tag starts with, else
    the first (the server removes the stop text, so only the request says which)."""
    tag = closing if isinstance(closing, str) else ""
    return next((s for s in stops if tag and tag.startswith(s)), stops[0])
