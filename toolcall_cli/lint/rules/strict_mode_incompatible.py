"""\
What it does
    Reports keywords and shapes the selected profile rejects. Every provider profile: the
    parameters must be a ``type: object`` schema; OpenAI also refuses ``oneOf``/``anyOf``/
    ``allOf``/``enum``/``not`` at the top level. Strict mode (``openai-strict``,
    ``openai-strict-finetuned``, or any OpenAI tool declaring ``"strict": true``): every
    property listed in ``required``, no schema-valued ``additionalProperties``, no ``allOf``,
    ``not``, ``if``/``then``/``else``, ``dependentRequired``, ``dependentSchemas``; at most
    5,000 properties, 10 levels of nesting, 1,000 enum values and 120,000 characters of names
    and enum values. Fine-tuned models also reject ``minLength``, ``maxLength``, ``pattern``,
    ``format``, ``minimum``, ``maximum``, ``multipleOf``, ``patternProperties``, ``minItems``,
    ``maxItems``. (``additionalProperties`` absent/true is SC007.)

Why it matters
    The provider answers 400 for the whole request, or (for tools that silently drop strict)
    the model may produce arguments the schema forbids.

Example
    ``{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
    "required": ["a"], "additionalProperties": false}`` under ``--profile openai-strict``:
    ``b`` is not in ``required``.

Fix
    List every property in ``required`` and make optional ones nullable
    (``"type": ["string", "null"]``); replace rejected keywords by plain object/enum shapes;
    split schemas that exceed the limits. ``toolcall lint --fix`` completes ``required``."""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.lint.base import LintContext, finding, tool_rule
from toolcall_cli.lint.profiles import Profile
from toolcall_cli.lint.walk import is_object, missing_required, types_of
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.linemap import join
from toolcall_cli.tools.loaders import ToolDef

RULE = rule(
    "SC011",
    "strict-mode-incompatible",
    Severity.error,
    "a keyword or shape the provider profile rejects",
    doc=__doc__,
)


@tool_rule(RULE)
def check(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Root shape, rejected keywords, required completeness and size limits."""
    prof = ctx.profile_for(tool)
    s = tool.schema_raw
    if not isinstance(s, dict):
        return
    ptr = tool.schema_pointer
    tag = f"({prof.name}{' strict' if prof.strict and not ctx.profile.strict else ''})"
    if prof.root_object and not ({"object", "dict"} & set(types_of(s))):
        got = s.get("type", "none")
        yield finding(
            RULE,
            tool,
            ptr,
            f'parameters must be "type": "object", got {got!r} {tag}',
            fix='make the root an object schema: {"type": "object", "properties": {...}}',
        )
    for kw in prof.root_rejected:
        if kw in s:
            yield finding(
                RULE,
                tool,
                join(ptr, kw),
                f'"{kw}" is not allowed at the top level {tag}',
                fix="wrap the alternatives in a property, or split the tool",
            )
    if prof.strict:
        yield from _strict(tool, ctx, prof, tag)


def _strict(tool: ToolDef, ctx: LintContext, prof: Profile, tag: str) -> Iterator[Finding]:
    n_props = n_enum = chars = depth = 0
    for node in ctx.nodes(tool):
        s = node.schema
        depth = max(depth, node.depth)
        at_root = node.pointer == tool.schema_pointer
        for kw in prof.rejected:
            if kw in s and not (at_root and kw in prof.root_rejected):
                yield finding(
                    RULE,
                    tool,
                    join(node.pointer, kw),
                    f'"{kw}" is not supported {tag}',
                    fix=f'remove "{kw}" (express the constraint in the description)',
                )
        if is_object(s):
            missing = missing_required(s)
            if missing:
                yield finding(
                    RULE,
                    tool,
                    node.pointer,
                    f"strict mode needs every property in required; "
                    f"missing {', '.join(missing)} {tag}",
                    fix='add them to required and make optional ones nullable (type [..., "null"])',
                )
            if isinstance(s.get("additionalProperties"), dict):
                yield finding(
                    RULE,
                    tool,
                    join(node.pointer, "additionalProperties"),
                    f"additionalProperties must be false, not a schema {tag}",
                    fix="replace the map by an array of {key, value} objects",
                )
        props = s.get("properties")
        if isinstance(props, dict):
            n_props += len(props)
            chars += sum(len(str(k)) for k in props)
        for key in ("$defs", "definitions"):
            if isinstance(s.get(key), dict):
                chars += sum(len(str(k)) for k in s[key])
        enum = s.get("enum")
        if isinstance(enum, list):
            n_enum += len(enum)
            chars += sum(len(v) for v in enum if isinstance(v, str))
        if isinstance(s.get("const"), str):
            chars += len(s["const"])
    lim = prof.limits
    if lim is None:
        return
    for value, limit, what in (
        (n_props, lim.properties, "object properties"),
        (depth, lim.nesting, "levels of nesting"),
        (n_enum, lim.enum_values, "enum values"),
        (chars, lim.chars, "characters of names and enum values"),
    ):
        if value > limit:
            yield finding(
                RULE,
                tool,
                tool.schema_pointer,
                f"{value} {what} exceeds the limit of {limit:,} {tag}",
                fix="split the tool or move large enums into the description",
            )
