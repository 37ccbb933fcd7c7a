"""Loaders: every registry shape, files/dirs/globs, pointer → line maps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from toolcall_cli.errors import InputError
from toolcall_cli.model.linemap import LineMap, json_lines, yaml_load
from toolcall_cli.tools.loaders import load_all, load_tools, tools_from_objects

SCHEMAS = FIXTURES / "schemas"


@pytest.mark.parametrize(
    ("name", "shape", "names"),
    [
        ("openai_tools.json", "openai", ["get_weather", "get_time"]),
        ("openai_legacy.json", "openai-legacy", ["get_weather"]),
        (
            "anthropic_tools.json",
            "anthropic",
            ["get_weather"],
        ),  # the built-in web_search is skipped
        ("mcp_tools_list.json", "mcp", ["get_weather"]),
        ("mcp_tool.snap", "mcp", ["get_weather"]),
        ("bare_schema.json", "schema", ["bare_schema"]),
        ("bfcl_functions.jsonl", "bfcl", ["geometry.area_circle", "math.add"]),
        ("tools.yaml", "openai", ["get_weather"]),
    ],
)
def test_each_shape(name: str, shape: str, names: list[str]) -> None:
    tools = load_tools([SCHEMAS / name])
    assert [t.name for t in tools] == names
    assert {t.shape for t in tools} == {shape}
    for t in tools:
        assert t.line >= 1 and t.file.endswith(name)
        assert isinstance(t.parameters, dict) and t.parameters


def test_openai_pointers_and_lines() -> None:
    text = (SCHEMAS / "openai_tools.json").read_text()
    lines = text.splitlines()
    t = load_tools([SCHEMAS / "openai_tools.json"])[1]
    assert t.pointer == "/tools/1"
    assert t.schema_pointer == "/tools/1/function/parameters"
    assert t.raw["function"]["strict"] is True
    # the tool object starts on the line of its opening brace
    assert lines[t.line - 1].strip() == "{"
    assert '"name": "get_time"' in lines[t.line_of("/tools/1/function/name") - 1]
    assert '"city": {' in lines[t.line_of(t.schema_pointer + "/properties/city") - 1]
    # an absent pointer falls back to its closest known parent
    assert t.line_of(t.schema_pointer + "/properties/city/nope") == t.line_of(
        t.schema_pointer + "/properties/city"
    )


def test_mcp_output_schema_and_jsonrpc() -> None:
    (t,) = load_tools([SCHEMAS / "mcp_tools_list.json"])
    assert t.pointer == "/result/tools/0"
    assert t.output_schema is not None and t.output_pointer == "/result/tools/0/outputSchema"


def test_bfcl_dialect_kept_raw_and_jsonl_lines() -> None:
    tools = load_tools([SCHEMAS / "bfcl_functions.jsonl"])
    assert [t.line for t in tools] == [1, 2]
    assert tools[0].parameters["type"] == "dict"
    assert tools[1].parameters["properties"]["numbers"]["type"] == "tuple"
    assert tools[1].pointer == "/function/0"


def test_yaml_lines() -> None:
    (t,) = load_tools([SCHEMAS / "tools.yaml"])
    assert t.line == 3  # "- type: function"
    assert t.line_of(t.schema_pointer + "/required") == 13


def test_bad_jsonl_line_is_counted_not_fatal() -> None:
    res = load_all([SCHEMAS / "bfcl_bad_line.jsonl"])
    assert [t.name for t in res.tools] == ["geometry.area_circle", "math.add"]
    assert [(b.line) for _, b in res.bad] == [2]


def test_directory_walk_and_glob() -> None:
    res = load_all([SCHEMAS])
    names = {Path(f.path).name for f in res.files}
    assert "not_a_schema.txt" not in names  # not a tool-file extension
    assert {"a.json", "b.json", "mcp_tool.snap", "tools.yaml"} <= names
    globbed = load_all([SCHEMAS / "registry" / "*.json"])
    assert [Path(f.path).name for f in globbed.files] == ["a.json", "b.json"]
    # the same file named twice is read once
    assert len(load_all([SCHEMAS / "registry", SCHEMAS / "registry" / "a.json"]).files) == 2


def test_explicit_non_json_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        load_all([SCHEMAS / "not_a_schema.txt"])
    with pytest.raises(InputError):
        load_all([tmp_path / "missing.json"])
    with pytest.raises(InputError):
        load_all([tmp_path / "*.json"])


def test_non_tool_json_gives_no_tools(tmp_path: Path) -> None:
    f = tmp_path / "package.json"
    f.write_text('{"name": {"first": "x"}, "version": "1.0.0"}')
    res = load_all([f])
    assert res.tools == () and res.files[0].status == "no-tools"


def test_tools_from_objects() -> None:
    objs = [
        {"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}},
        {"name": "b", "input_schema": {"type": "object"}},
    ]
    tools = tools_from_objects(objs)
    assert [(t.name, t.shape, t.file, t.line) for t in tools] == [
        ("a", "openai", "<session>", 1),
        ("b", "anthropic", "<session>", 1),
    ]
    assert tools_from_objects({"tools": objs}, file="s.json", line=7)[0].line == 7


def test_json_line_map_handles_escapes_and_nesting() -> None:
    text = '{\n "a\\"b": [\n  1,\n  {"c/d": "x,y:{"}\n ],\n "e": {}\n}'
    m = json_lines(text)
    assert m == {"": 1, '/a"b': 2, '/a"b/0': 3, '/a"b/1': 4, '/a"b/1/c~1d': 4, "/e": 6}
    assert LineMap(m).line('/a"b/1/c~1d/zz') == 4


def test_yaml_line_map() -> None:
    value, m = yaml_load("a:\n  - x\n  - b: 1\n")
    assert value == {"a": ["x", {"b": 1}]}
    assert m["/a/1/b"] == 3 and m["/a/0"] == 2


def test_multi_document_yaml(tmp_path: Path) -> None:
    f = tmp_path / "m.yaml"
    f.write_text(
        "tools:\n  - name: a\n    input_schema: {type: object}\n---\n"
        "tools:\n  - name: b\n    input_schema: {type: object}\n"
    )
    assert [(t.name, t.line) for t in load_tools([f])] == [("a", 2), ("b", 6)]
