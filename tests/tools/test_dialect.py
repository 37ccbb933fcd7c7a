"""The one BFCL type table: pinned, and lint and replay read every corpus type the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from toolcall_cli.lint import LintOptions, lint_paths
from toolcall_cli.lint.walk import json_types, types_of, walk
from toolcall_cli.tools.dialect import DIALECT_TYPES, json_type, normalise
from toolcall_cli.tools.loaders import load_tools, tools_from_objects
from toolcall_cli.tools.registry import registry_from_defs

#: Every type name in ../shared/corpus/bfcl (BFCL v4), with the JSON Schema type it means.
CORPUS_TYPES: dict[str, str | None] = {
    "string": "string", "integer": "integer", "boolean": "boolean", "array": "array",
    "dict": "object", "float": "number", "tuple": "array", "any": None, "": None,
    "String": "string", "Array": "array", "HashMap": "object", "long": "integer",
    "ArrayList": "array", "Boolean": "boolean", "double": "number", "char": "string",
}  # fmt: skip


def test_table_is_pinned() -> None:
    assert DIALECT_TYPES == {
        "dict": "object", "hashmap": "object", "hashtable": "object", "map": "object",
        "tuple": "array", "list": "array", "arraylist": "array", "queue": "array",
        "stack": "array", "float": "number", "double": "number", "int": "integer",
        "long": "integer", "short": "integer", "byte": "integer", "bigint": "integer",
        "str": "string", "char": "string", "bool": "boolean", "any": None, "": None,
    }  # fmt: skip
    assert json_type("NoSuchType") is None  # unknown: no constraint, as a validator treats it


def test_normalise_maps_every_level_and_keeps_the_input() -> None:
    raw = {
        "type": "dict",
        "properties": {
            "a": {"type": "float"},
            "b": {"type": "tuple", "items": {"type": "dict"}},
            "c": {"type": "any"},
            "d": {"type": "String", "default": {"type": "dict"}},
            "e": {"type": ["integer", "float", "number"]},
            "f": {"type": "HashMap"},
            "g": {"type": ["string", "any"]},
            "type": {"type": "str"},
        },
    }
    out = normalise(raw)
    assert out == {
        "type": "object",
        "properties": {
            "a": {"type": "number"},
            "b": {"type": "array", "items": {"type": "object"}},
            "c": {},
            "d": {"type": "string", "default": {"type": "dict"}},
            "e": {"type": ["integer", "number"]},
            "f": {"type": "object"},
            "g": {},
            "type": {"type": "string"},
        },
    }
    assert raw["type"] == "dict"  # the input is not mutated


@pytest.mark.corpus
def test_lint_and_replay_agree_on_every_corpus_bfcl_type(corpus: Path) -> None:
    tools = load_tools([corpus / "bfcl"])
    seen = {t for tool in tools for n in walk(tool.schema_raw, "") for t in types_of(n.schema)}
    assert seen == set(CORPUS_TYPES)
    for name, want in CORPUS_TYPES.items():
        defs = tools_from_objects(
            [{"name": "f", "parameters": {"properties": {"p": {"type": name}}}}]
        )
        replayed = registry_from_defs(defs).tools["f"].schema["properties"]["p"].get("type")
        assert replayed == want, name
        assert json_types({"type": name}) == {want or name}, name


def test_a_java_string_parameter_is_a_string_to_lint_and_to_replay(tmp_path: Path) -> None:
    doc = {
        "name": "f",
        "description": "Java-typed BFCL doc.",
        "parameters": {
            "type": "dict",
            "properties": {"s": {"type": "String", "description": "text"}},
            "required": ["s"],
        },
    }
    path = tmp_path / "java.json"
    path.write_text(json.dumps(doc))
    report = lint_paths([path], options=LintOptions(select=("SC005", "SC010")))
    got = sorted((f.code, f.location.pointer) for f in report.findings)
    assert got == [
        ("SC005", "/parameters/properties/s"),
        ("SC010", "/parameters/properties/s/type"),
        ("SC010", "/parameters/type"),
    ]
    assert sorted(f.fix or "" for f in report.findings if f.code == "SC010") == [
        'use "object"',
        'use "string"',
    ]
    schema = registry_from_defs(load_tools([path])).tools["f"].schema
    assert not Draft202012Validator(schema).is_valid({"s": 5})
    assert Draft202012Validator(schema).is_valid({"s": "x"})
