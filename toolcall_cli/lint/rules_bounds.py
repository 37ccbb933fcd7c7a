"""Shape rules: SC005 unbounded-string, SC006 unbounded-number, SC007 open-object,
SC008 required-not-defined.

SC005 unbounded-string
----------------------
What it does
    Reports a required string parameter with no ``minLength`` (and no ``enum``, ``const``,
    ``pattern`` or ``format`` to bound it). Skipped under profiles that reject ``minLength``
    (``openai-strict-finetuned``).

Why it matters
    ``""`` satisfies the schema, so a model that has nothing to say passes an empty string and
    the tool receives a call that validates but means nothing.

Example
    ``{"properties": {"query": {"type": "string"}}, "required": ["query"]}``

Fix
    Add ``"minLength": 1`` (and a ``maxLength`` that fits the tool).

SC006 unbounded-number
----------------------
What it does
    Reports a ``number``/``integer`` with neither a lower nor an upper bound (``minimum``,
    ``maximum`` or their exclusive forms) and no ``enum``/``const``. Skipped under profiles
    that reject ``minimum``/``maximum``.

Why it matters
    Counts, limits and amounts arrive negative or absurdly large; the tool has to defend itself
    against arguments the schema could have refused.

Example
    ``{"limit": {"type": "integer"}}``

Fix
    Add the real range, e.g. ``"minimum": 1, "maximum": 100``.

SC007 open-object
-----------------
What it does
    Reports an object schema whose ``additionalProperties`` is absent or ``true``. (A schema
    value is an intentional map; strict profiles report that under SC011.) An error under
    strict profiles, which require ``false`` on every object.

Why it matters
    Misspelled or invented arguments pass validation and are silently ignored by the tool, so
    the call "works" with the wrong behaviour.

Example
    ``{"type": "object", "properties": {"city": {"type": "string"}}}``

Fix
    Add ``"additionalProperties": false`` (``toolcall lint --fix`` does it for JSON files).

SC008 required-not-defined
--------------------------
What it does
    Reports a ``required`` entry that is not among the object's ``properties`` (nor those of its
    direct ``allOf``/``anyOf``/``oneOf`` branches).

Why it matters
    With ``additionalProperties: false`` no value can satisfy the schema; without it, the model
    is told to send a field it has no description or type for.

Example
    ``{"properties": {"city": {}}, "required": ["ctiy"]}``

Fix
    Fix the spelling, add the property, or remove it from ``required``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolcall_cli.lint.base import LintContext, finding, section, tool_rule
from toolcall_cli.lint.walk import Node, is_object, types_of
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.linemap import join
from toolcall_cli.tools.dialect import json_type
from toolcall_cli.tools.loaders import ToolDef

SC005 = rule(
    "SC005",
    "unbounded-string",
    Severity.info,
    "a required string without minLength",
    doc=section(__doc__, "SC005"),
)
SC006 = rule(
    "SC006",
    "unbounded-number",
    Severity.info,
    "a number without minimum or maximum",
    doc=section(__doc__, "SC006"),
)
SC007 = rule(
    "SC007",
    "open-object",
    Severity.warning,
    "an object whose additionalProperties is not false",
    doc=section(__doc__, "SC007"),
)
SC008 = rule(
    "SC008",
    "required-not-defined",
    Severity.error,
    "a required entry missing from properties",
    doc=section(__doc__, "SC008"),
)

_BOUNDED = ("enum", "const")
_BRANCHES = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"})
_NUM_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _types(schema: dict[str, Any]) -> set[str]:
    return {json_type(t) or t for t in types_of(schema)}


def _label(tool: ToolDef, node: Node) -> str:
    """`"name"` for a named property, else its pointer below `parameters` (or `parameters`)."""
    return f'"{node.name or node.pointer[len(tool.schema_pointer) :] or "parameters"}"'


@tool_rule(SC005)
def check_strings(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Required strings that accept ""."""
    if ctx.profile_for(tool).forbids("minLength"):
        return
    for node in ctx.nodes(tool):
        s = node.schema
        if not node.required or "string" not in _types(s):
            continue
        if "minLength" in s or any(k in s for k in (*_BOUNDED, "pattern", "format")):
            continue
        yield finding(
            SC005,
            tool,
            node.pointer,
            f'required string "{node.name}" has no minLength ("" is valid)',
            fix='add "minLength": 1',
        )


@tool_rule(SC006)
def check_numbers(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Numbers with no bound at all."""
    prof = ctx.profile_for(tool)
    if prof.forbids("minimum") and prof.forbids("maximum"):
        return
    for node in ctx.nodes(tool):
        s = node.schema
        if not _types(s) & {"number", "integer"} or any(k in s for k in (*_NUM_BOUNDS, *_BOUNDED)):
            continue
        yield finding(
            SC006,
            tool,
            node.pointer,
            f"number {_label(tool, node)} has no minimum or maximum",
            fix='add the real range, e.g. "minimum": 0, "maximum": 1000',
        )


def open_objects(tool: ToolDef, ctx: LintContext) -> Iterator[Node]:
    """Object subschemas with `additionalProperties` absent or true (SC007 and --fix share this)."""
    for node in ctx.nodes(tool):
        s = node.schema
        if not is_object(s) or "$ref" in s or s.get("unevaluatedProperties") is False:
            continue
        if s.get("additionalProperties", True) is True:
            yield node


@tool_rule(SC007)
def check_open(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """Objects that accept unknown keys."""
    strict = ctx.profile_for(tool).strict
    for node in open_objects(tool, ctx):
        state = "true" if "additionalProperties" in node.schema else "absent"
        yield finding(
            SC007,
            tool,
            node.pointer,
            f"object {_label(tool, node)} accepts unknown properties (additionalProperties {state})"
            + (" — strict mode requires false" if strict else ""),
            fix='add "additionalProperties": false',
            severity=Severity.error if strict else None,
        )


def _declared(s: dict[str, Any]) -> set[str]:
    names = set(s["properties"]) if isinstance(s.get("properties"), dict) else set()
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in s.get(key) or ():
            if isinstance(branch, dict) and isinstance(branch.get("properties"), dict):
                names |= set(branch["properties"])
    return names


@tool_rule(SC008)
def check_required(tool: ToolDef, ctx: LintContext) -> Iterator[Finding]:
    """required entries with no property."""
    for node in ctx.nodes(tool):
        req = node.schema.get("required")
        if not isinstance(req, list) or node.via in _BRANCHES:
            continue  # a combinator branch may require its parent's properties
        declared = _declared(node.schema)
        for i, name in enumerate(req):
            if isinstance(name, str) and name not in declared:
                yield finding(
                    SC008,
                    tool,
                    join(node.pointer, "required", i),
                    f'"{name}" is required but not defined in properties',
                    fix="fix the spelling, add the property, or drop it from required",
                )
