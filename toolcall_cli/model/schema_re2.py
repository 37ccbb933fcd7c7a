"""jsonschema validators whose regex keywords run in RE2 (`model.re2`), never in Python's `re`.

A tool schema comes with the evidence (a `tools` list in a messages file) or from a file in the
bundle; its `pattern` and `patternProperties` are untrusted. jsonschema evaluates them with
`re.search`, so `"pattern": "^(a+)+$"` hung replay and lint. These classes override
`pattern`, `patternProperties` and `additionalProperties` (which consults the pattern keys)
with RE2 versions; a pattern RE2 cannot run raises `model.re2.PatternError`, which callers
report. `unevaluatedProperties` consults `patternProperties` through jsonschema internals,
so a schema holding both is refused up front (`unsafe_pattern`).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from jsonschema import validators
from jsonschema.exceptions import ValidationError

from toolcall_cli.model import re2


def schema_patterns(schema: Any) -> Iterator[str]:
    """Every regex in *schema*: `pattern` values and `patternProperties` keys, at any depth."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                yield node["pattern"]
            props = node.get("patternProperties")
            if isinstance(props, dict):
                yield from (k for k in props if isinstance(k, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def unsafe_pattern(schema: Any) -> re2.PatternError | None:
    """The first reason *schema*'s regexes cannot be checked safely, or None."""
    for pattern in schema_patterns(schema):
        reason = re2.re2_error(pattern)
        if reason is not None:
            return re2.PatternError(pattern, reason)
    if _has_key(schema, "patternProperties") and _has_key(schema, "unevaluatedProperties"):
        return re2.PatternError(
            "patternProperties", "combined with unevaluatedProperties (evaluated by `re`)"
        )
    return None


def _has_key(schema: Any, key: str) -> bool:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if key in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


@lru_cache(maxsize=8)
def re2_class(cls: type) -> type:
    """*cls* (a jsonschema validator class) with its regex keywords evaluated in RE2."""
    return validators.extend(
        cls,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    )


def _pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not re2.search(patrn, instance):
        yield ValidationError(f"{instance!r} does not match {patrn!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    keys = list(instance)
    for pattern, subschema in patterns.items():
        for key, hit in zip(keys, re2.search_many(pattern, keys), strict=True):
            if hit:
                yield from validator.descend(
                    instance[key], subschema, path=key, schema_path=pattern
                )


def _additional_properties(
    validator: Any, ap: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = _additional(instance, schema)
    if validator.is_type(ap, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], ap, path=extra)
    elif not ap and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            shown = ", ".join(repr(e) for e in sorted(extras, key=str))
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(
                f"Additional properties are not allowed ({shown} {verb} unexpected)"
            )


def _additional(instance: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The keys of *instance* that neither `properties` nor `patternProperties` cover."""
    props = schema.get("properties", {})
    rest = [k for k in instance if k not in props]
    patterns = list(schema.get("patternProperties", {}))
    if not patterns or not rest:
        return rest
    covered = [False] * len(rest)
    for pattern in patterns:
        covered = [c or h for c, h in zip(covered, re2.search_many(pattern, rest), strict=True)]
    return [k for k, c in zip(rest, covered, strict=True) if not c]
