"""Chat-template tokens: the control tokens of the formats open models write tool calls in.

When the serving stack's tool parser mis-reads the model's raw output, these tokens leak into
a call's name (`cat<|channel|>commentary`, gpt-oss Harmony on vLLM) or its arguments. PR009
reports them; PR002 strips them before it looks for the tool that was meant.
"""

from __future__ import annotations

import re

#: `<|channel|>`, `<|im_end|>`, `<|eot_id|>`, `<|python_tag|>` (Harmony, ChatML, Llama, Phi);
#: Mistral `[TOOL_CALLS]`, `[ARGS]`, `[INST]`; DeepSeek's full-width `<｜tool▁call▁begin｜>`;
#: Hermes/Qwen `<tool_call>`; Gemma `<start_of_turn>`; sentence markers `</s>`.
TEMPLATE_TOKEN = re.compile(
    r"<\|[A-Za-z_][\w.]{0,30}\|>"
    r"|\[/?(?:TOOL_CALLS|ARGS|INST|TOOL_RESULTS|AVAILABLE_TOOLS|CALL_ID|THINK)\]"
    r"|<｜[^｜<>]{1,40}｜>"
    r"|</?(?:tool_call|tool_response|start_of_turn|end_of_turn|function_call)>"
    r"|</s>"
)
#: In a name, a Harmony channel word left after its token (`<|channel|>commentary`).
_CHANNEL_TAIL = re.compile(r"\A\s*(?:commentary|analysis|final)\b", re.I)
#: Harmony recipients are `functions.NAME`; a leaked one keeps the namespace.
_NAMESPACE = re.compile(r"\A(?:to=)?(?:functions|tools?)\.")


def template_tokens(value: str | None) -> list[str]:
    """The chat-template tokens in *value*, in order (repeats kept once)."""
    if not value:
        return []
    return list(dict.fromkeys(m.group() for m in TEMPLATE_TOKEN.finditer(value)))


def strip_template_tokens(name: str) -> str:
    """The tool name with leaked template tokens removed: the text before the first token
    (what the parser should have stopped at), else what follows it without a channel word."""
    m = TEMPLATE_TOKEN.search(name)
    if m is None:
        return _NAMESPACE.sub("", name.strip())
    head = name[: m.start()].strip()
    if head:
        return _NAMESPACE.sub("", head)
    rest = TEMPLATE_TOKEN.sub(" ", name[m.end() :])
    rest = _CHANNEL_TAIL.sub("", rest).strip()
    rest = rest.split()[0] if rest.split() else ""
    return _NAMESPACE.sub("", rest)
