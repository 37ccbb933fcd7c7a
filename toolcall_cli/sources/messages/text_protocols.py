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
from typing import Any

from toolcall_cli.sources.messages.call_blocks import TextCall, calls_in_block
from toolcall_cli.sources.messages.open_model_calls import extract_open_calls

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
_TRANSCRIPT_RE = re.compile(r"(?m)^(user|assistant|tool|system|function|observation): ?")
#: How prompt-based function calling (OpenHands, llama.cpp without a tool parser) hands a
#: text-protocol call's result back: as a user message.
_EXEC_RESULT_RE = re.compile(r"\A\s*EXECUTION RESULT of \[(?P<tool>[^\]\n]+)\]:\n?")


def extract_calls(text: str) -> list[TextCall]:
    """Every tagged or ReAct call in *text*, in textual order."""
    plain = "<" not in text and "Action" not in text and "[TOOL_CALLS]" not in text
    if plain and not text.lstrip().startswith(("{", "[")):
        return []
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
