"""Tool calls open-weight models write as text, when the serving stack did not parse them.

- `<function=NAME><parameter=K>V</parameter></function>` (Qwen3-Coder, OpenHands' prompt
  format, llama.cpp), bare or inside `<tool_call>…</tool_call>`;
- gpt-oss Harmony: `<|start|>assistant<|channel|>commentary to=functions.NAME
  <|constrain|>json<|message|>{…}<|call|>` (the recipient may sit in the role header);
- Mistral `[TOOL_CALLS]NAME[ARGS]{…}` (the `[TOOL_CALLS][{…}]` list is in text_protocols);
- Llama 3.x `<|python_tag|>{"name": …, "parameters": …}` or `<|python_tag|>tool.call(k=v)`;
- bare JSON: a whole message that is `{"name": …, "parameters"|"arguments": …}` (or a list).

Names and arguments are kept as seen: a Harmony analysis channel leaking into the recipient
or the message stays in the name or the arguments (PR009 reads it). A block that ends before
its closing tag (`</function>`, `</parameter>`, `<|call|>`) is a call whose arguments are
cut: its arguments text stops where the block stopped (an unclosed JSON object, so TR003
sees the cut), and attrs say `truncated`, and `cut_before` names the closing tag missing.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from toolcall_cli.sources._shared.pycalls import parse_python_calls
from toolcall_cli.sources.messages.call_blocks import TextCall, calls_in_block

_FUNCTION_RE = re.compile(
    r"<function=(?P<name>[^>\n]*)>(?P<body>.*?)(?P<end></function>|(?=<function=)|\Z)", re.S
)
_PARAM_RE = re.compile(
    r"<parameter=(?P<key>[^>\n]*)>\n?(?P<val>.*?)(?P<end>\n?</parameter>|(?=<parameter=)|\Z)", re.S
)
_HARMONY_RE = re.compile(
    r"to=(?:functions\.)?(?P<name>.*?)(?=\s|<\|constrain\|>|<\|message\|>|\Z)"
    r"(?P<head>.*?)<\|message\|>(?P<body>.*?)"
    r"(?P<end><\|call\|>|<\|end\|>|<\|return\|>|(?=<\|start\|>)|\Z)",
    re.S,
)
_MISTRAL_ARGS_RE = re.compile(
    r"\[TOOL_CALLS\]\s*(?P<name>[^\[\]{\s]+)\s*\[ARGS\](?P<body>.*?)(?=\[TOOL_CALLS\]|</s>|\Z)",
    re.S,
)
_PYTHON_TAG_RE = re.compile(
    r"<\|python_tag\|>(?P<body>.*?)(?P<end><\|eom_id\|>|<\|eot_id\|>|(?=<\|python_tag\|>)|\Z)",
    re.S,
)
_ARG_KEYS = ("parameters", "arguments")
_NAME_RE = re.compile(r"[\w.\-]+")
_BARE_CUT_RE = re.compile(
    r'\A\{\s*"name"\s*:\s*"(?P<name>[^"\\]+)"\s*,\s*"(?:parameters|arguments)"\s*:\s*(?P<args>.*)\Z',
    re.S,
)


def extract_open_calls(text: str) -> list[TextCall]:
    """Every call of the formats above in *text*, in textual order."""
    found: list[TextCall] = []
    if "<function=" in text:
        found.extend(_function_calls(text))
    if "to=" in text and "<|message|>" in text:
        found.extend(_harmony_calls(text))
    if "[ARGS]" in text:
        for m in _MISTRAL_ARGS_RE.finditer(text):
            body = m.group("body").strip()
            found.append(_json_call(m.group("name"), body, m.span(), "mistral", "[ARGS]"))
    if "<|python_tag|>" in text:
        found.extend(_python_tag_calls(text))
    if not found:
        found.extend(_bare_json(text))
    return found


def _function_calls(text: str) -> list[TextCall]:
    out: list[TextCall] = []
    for m in _FUNCTION_RE.finditer(text):
        if not _NAME_RE.fullmatch(m.group("name")) or not (
            m.group("end") or "<parameter=" in m.group("body")
        ):
            continue  # prose that mentions the syntax
        args: dict[str, Any] = {}
        cut: str | None = None if m.group("end") else "</function>"
        open_value: str | None = None
        for p in _PARAM_RE.finditer(m.group("body")):
            if p.group("end") or p.end() < len(m.group("body")):
                args[p.group("key")] = _typed(p.group("val"))
            else:
                open_value, cut = p.group("val"), "</parameter>"
                args[p.group("key")] = None
        args_text = orjson.dumps(args).decode()
        if cut:  # the arguments stop where the block stopped
            args_text = args_text[:-1]
            if open_value is not None:
                args_text = args_text[: -len("null")] + orjson.dumps(open_value).decode()[:-1]
        attrs: dict[str, Any] = {"tag": "function="}
        if cut:
            attrs.update(truncated=True, cut_before=cut)
        name = m.group("name")
        out.append(TextCall(name, args_text, None, "function-tag", m.span(), None, attrs))
    return out


def _typed(value: str) -> Any:
    """A parameter value: JSON when it is a JSON number, literal, object or array; else text
    (llama.cpp and Qwen's parser read it the same way)."""
    v = value.strip()
    if v[:1] in "{[-0123456789" or v in ("true", "false", "null"):
        try:
            return orjson.loads(v)
        except orjson.JSONDecodeError:
            pass
    return value


def _harmony_calls(text: str) -> list[TextCall]:
    out: list[TextCall] = []
    for m in _HARMONY_RE.finditer(text):
        body = m.group("body")
        attrs: dict[str, Any] = {"tag": "harmony"}
        if "<|constrain|>" in m.group("head"):
            attrs["constrain"] = m.group("head").split("<|constrain|>", 1)[1].strip()
        if not m.group("end"):
            attrs.update(truncated=True, cut_before="<|call|>")
        elif m.group("end") != "<|call|>":
            attrs["ended_by"] = m.group("end")
        out.append(TextCall(m.group("name"), body.strip(), None, "harmony", m.span(), None, attrs))
    return out


def _json_call(
    name: str | None, body: str, span: tuple[int, int], protocol: str, tag: str
) -> TextCall:
    attrs: dict[str, Any] = {"tag": tag}
    try:
        orjson.loads(body)
    except orjson.JSONDecodeError:
        attrs.update(truncated=True, cut_before="end of JSON")
    return TextCall(name, body, None, protocol, span, None, attrs)


def _python_tag_calls(text: str) -> list[TextCall]:
    out: list[TextCall] = []
    for m in _PYTHON_TAG_RE.finditer(text):
        body = m.group("body").strip()
        if body.startswith("{"):
            for part in (p for p in re.split(r"(?<=\})\s*;\s*(?=\{)", body) if p.strip()):
                found = calls_in_block(part, m.start(), m.end(), tag="|python_tag|")
                out.extend(_retag(c, "python_tag") for c in found)
            continue
        if not _NAME_RE.match(body) or "(" not in body:
            continue  # the tag quoted in prose
        parsed = parse_python_calls(body.replace(".call(", "("), {})
        for name, args, extra in parsed or [(None, body, {"block_invalid": True})]:
            attrs = {"tag": "|python_tag|", **extra}
            out.append(TextCall(name, args, None, "python_tag", m.span(), None, attrs))
    return out


def _retag(call: TextCall, protocol: str) -> TextCall:
    attrs = dict(call.attrs)
    if attrs.get("block_invalid"):
        attrs.update(truncated=True, cut_before="end of JSON")
    return TextCall(call.tool, call.args, call.call_id, protocol, call.span, None, attrs)


def _bare_json(text: str) -> list[TextCall]:
    """A message that is nothing but a call object (or a list of them)."""
    s = text.strip()
    if not s.startswith(("{", "[")) or '"name"' not in s:
        return []
    try:
        doc = orjson.loads(s)
    except orjson.JSONDecodeError:
        cut = _BARE_CUT_RE.match(s)
        if not cut:
            return []
        start = text.index(s[0])
        attrs = {"tag": "bare-json", "truncated": True, "cut_before": "end of JSON"}
        span = (start, start + len(s))
        name, args = cut.group("name"), cut.group("args")
        return [TextCall(name, args, None, "bare-json", span, None, attrs)]
    objs = doc if isinstance(doc, list) else [doc]
    if not objs or not all(
        isinstance(o, dict)
        and isinstance(o.get("name"), str)
        and any(k in o for k in _ARG_KEYS)
        and set(o) <= {"name", "parameters", "arguments", "type", "id"}
        for o in objs
    ):
        return []
    start = text.index(s[0])
    calls = calls_in_block(s, start, start + len(s), tag="bare-json")
    return [_retag(c, "bare-json") for c in calls]
