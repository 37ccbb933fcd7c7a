"""\
What it does
    Estimates the tokens the tool list costs in every request and reports a registry whose
    total exceeds ``--token-budget`` (default 8000; config ``[lint] token_budget``). The
    estimate is the length of each tool's compact JSON in OpenAI form (name, description,
    parameters) divided by 4, rounded up: the usual characters-per-token rule of thumb for
    English and JSON with BPE tokenizers. It is an estimate, not a tokenizer count.

Why it matters
    Tool definitions are sent with every request: they crowd out conversation history (earlier
    tool results roll out, TR004), add latency and cost, and large lists degrade tool choice.

Example
    150 tools averaging 300 characters each ≈ 11,250 tokens, over the default 8,000.

Fix
    Split the registry by task, load tools on demand, or shorten descriptions and enums; the
    message names the largest tools."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from toolcall_cli.lint.base import LintContext, finding, registry_groups, registry_rule
from toolcall_cli.lint.walk import safe_canonical
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.words import plural
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC013",
    "token-budget",
    Severity.warning,
    "the tool list is larger than the token budget",
    doc=__doc__,
)
CHARS_PER_TOKEN = 4


def estimate_tokens(tool: ToolDef) -> int:
    """ceil(len(compact OpenAI-form JSON) / 4)."""
    text = safe_canonical(
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description or "",
                "parameters": tool.schema_raw or {},
            },
        }
    )
    return -(-len(text) // CHARS_PER_TOKEN)


@registry_rule(RULE)
def check(tools: Sequence[ToolDef], ctx: LintContext) -> Iterator[Finding]:
    """One finding per registry over budget, at the tool that crosses it."""
    budget = ctx.token_budget
    for group in registry_groups(tools).values():
        sizes = [(estimate_tokens(t), t) for t in group]
        total = sum(n for n, _ in sizes)
        if total <= budget:
            continue
        running = 0
        crossing = group[-1]
        for n, t in sizes:
            running += n
            if running > budget:
                crossing = t
                break
        top = sorted(sizes, key=lambda p: -p[0])[:3]
        largest = ", ".join(f"{t.name} ≈{n}" for n, t in top)
        yield finding(
            RULE,
            crossing,
            crossing.pointer,
            f"{plural(len(group), 'tool')} ≈{plural(total, 'token', spec=',')} exceed "
            f"the budget of {budget:,} "
            f"(chars/4 estimate; largest: {largest})",
            fix="split the registry, load tools on demand, or shorten descriptions and enums",
        )
