"""\
What it does
  Flags tool calls whose name or arguments carry chat-template tokens: Harmony `<|channel|>`,
  `<|message|>`, `<|call|>`; ChatML `<|im_end|>`; Llama `<|eot_id|>`, `<|python_tag|>`;
  Mistral `[TOOL_CALLS]`, `[ARGS]`; DeepSeek `<｜tool▁call▁begin｜>`; `<tool_call>` tags. It
  names the tokens and, for a name, the tool name left once they are stripped.

Why it matters
  The serving stack's tool parser did not understand the model's raw format (a chat template
  or reasoning parser that does not match the model, a tokenizer missing special tokens) and
  passed part of it on as the call. The name matches no tool, or the arguments carry
  template text the tool then runs on; every such call fails for a reason the model cannot
  see.

Example
  gpt-oss on vLLM calls `cat<|channel|>commentary` with `{"path": "notes.txt"}`: the analysis
  channel marker leaked into the name; the tool is `cat`.

Fix
  Serve the model with its own chat template and tool parser (vLLM `--tool-call-parser`
  matching the model, e.g. `openai` for gpt-oss with `--reasoning-parser`), keep special
  tokens in the tokenizer, and strip nothing by hand: fix the parser so the call arrives
  clean.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.diagnose.kit.call_label import call_label
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import objects
from toolcall_cli.diagnose.rules.protocol.call_rows import call_rows, per_call
from toolcall_cli.diagnose.rules.protocol.template_tokens import (
    TEMPLATE_TOKEN,
    strip_template_tokens,
    template_tokens,
)
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim

RULE = rule(
    "PR009",
    "leaked-template-token",
    Severity.error,
    "a tool name or arguments carrying chat-template tokens (<|channel|>, <|im_end|>, "
    "[TOOL_CALLS]…)",
    doc=__doc__,
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR009: one finding per call whose name or arguments hold a template token."""
    calls = call_rows(ctx)
    if not len(calls):
        return
    pattern = TEMPLATE_TOKEN.pattern  # column-wise: most calls hold no token at all
    hit = calls["tool"].str.contains(pattern, regex=True).fillna(False) | calls[
        "args"
    ].str.contains(pattern, regex=True).fillna(False)
    leaked = calls[hit.to_numpy(dtype=bool)]
    name_of = dict(zip(leaked.index.tolist(), objects(leaked, "tool"), strict=True))
    args_of = dict(zip(leaked.index.tolist(), objects(leaked, "args"), strict=True))
    for cid, labels in per_call(leaked):
        name = text(name_of[labels[0]]) or ""
        in_name = template_tokens(name)
        in_args = template_tokens(text(args_of[labels[0]]))
        parts = []
        if in_name:
            meant = strip_template_tokens(name)
            parts.append(
                f"its name {name!r} carries {_listed(in_name)}"
                + (f" (the tool meant is probably {meant!r})" if meant and meant != name else "")
            )
        if in_args:
            parts.append(f"its arguments carry {_listed(in_args)}")
        yield make(
            RULE,
            ctx,
            f"{call_label(cid, None)}: {'; '.join(parts)}: the serving stack's tool parser "
            "leaked the model's raw format",
            labels,
            call_ids=[cid or None],
            extra={"tokens": [*in_name, *in_args], "in_name": bool(in_name)},
            aim=Aim(needle=(in_name or in_args)[0]),
        )


def _listed(tokens: list[str]) -> str:
    return ", ".join(repr(t) for t in tokens[:4]) + (" …" if len(tokens) > 4 else "")
