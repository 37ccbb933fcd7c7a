"""Metaschema validators, compiled once per draft, with a flattened 2020-12 metaschema.

The published 2020-12 metaschema is seven vocabulary schemas joined by ``allOf`` and
``$dynamicRef``; jsonschema resolves those dynamically on every subschema, which made linting
BFCL's 4,178-tool file take tens of seconds. The vocabularies declare disjoint keywords, so
they merge into one schema whose recursion is a plain ``$ref: "#"`` — same verdicts, without
the dynamic scope walk. Other drafts use their published metaschema as is.

jsonschema is imported by the functions that validate, so listing the rules (`toolcall
rules`) does not load it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_BASE = "https://json-schema.org/draft/2020-12/"
_VOCABS = (
    "core",
    "applicator",
    "unevaluated",
    "validation",
    "meta-data",
    "format-annotation",
    "content",
)
_DROP = frozenset(
    {"$schema", "$id", "$dynamicAnchor", "$vocabulary", "$defs", "allOf", "title", "$comment"}
)


def _fix_ref(ref: str, vocab: str) -> str:
    if ref == "#meta":
        return "#"
    if ref.startswith("#/$defs/"):
        return f"#/$defs/{vocab}_{ref[8:]}"
    m = re.match(r"meta/([a-z-]+)#/\$defs/(.*)$", ref)
    if m:
        return f"#/$defs/{m.group(1)}_{m.group(2)}"
    raise ValueError(f"unexpected reference {ref!r} in the 2020-12 metaschema")


def _rewrite(obj: Any, vocab: str, top: bool = False) -> Any:
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            if top and k in _DROP:
                continue
            if k in ("$ref", "$dynamicRef") and isinstance(v, str):
                out["$ref"] = _fix_ref(v, vocab)
            else:
                out[k] = _rewrite(v, vocab)
        return out
    if isinstance(obj, list):
        return [_rewrite(x, vocab) for x in obj]
    return obj


@lru_cache(maxsize=1)
def flat_2020_12() -> dict[str, Any]:
    """The 2020-12 metaschema with its vocabularies merged into one schema."""
    from jsonschema_specifications import REGISTRY

    defs: dict[str, Any] = {}
    props: dict[str, Any] = {}
    for v in _VOCABS:
        contents = REGISTRY.contents(_BASE + "meta/" + v)
        for name, d in (contents.get("$defs") or {}).items():
            defs[f"{v}_{name}"] = _rewrite(d, v)
        props.update(_rewrite(contents, v, top=True).get("properties", {}))
    root = REGISTRY.contents(_BASE + "schema")
    props.update(_rewrite(root, "root", top=True).get("properties", {}))
    return {"type": ["object", "boolean"], "properties": props, "$defs": defs}


def schema_class(schema: dict[str, Any]) -> type:
    """The validator class for *schema*'s ``$schema`` (default 2020-12)."""
    import jsonschema
    from jsonschema.validators import validator_for

    cls: type = validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls


@lru_cache(maxsize=8)
def meta_validator(cls: Any) -> Any:
    """One metaschema validator per draft (format-checked, like ``check_schema``)."""
    import jsonschema

    if cls is jsonschema.Draft202012Validator:
        return jsonschema.Draft202012Validator(flat_2020_12(), format_checker=cls.FORMAT_CHECKER)
    return cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)
