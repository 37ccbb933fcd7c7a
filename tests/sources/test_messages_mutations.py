"""messages adapter: any value of the fixtures replaced by a wrong type still parses.

Every mutant is collected into one sink and the event table is built once at the end, so a
wrong type that slipped into a column is caught by validate_frame without paying for one
DataFrame per mutant.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import FIXTURES
from toolcall_cli.model.events import validate_frame
from toolcall_cli.sources.messages import emit_text
from toolcall_cli.sources.messages.rows import Sink

FX = FIXTURES / "messages"
FILES = [
    "anthropic.json",
    "openai_request_response.json",
    "openai_wrapped.json",
    "tagged.json",
    "legacy_functions.json",
    "react.json",
    "broken_types.json",
]
WRONG: list[Any] = [5, "nope", None, {"k": [1]}, [{"role": 1}], True]


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if prefix:
        yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, (*prefix, i))


def mutants(doc: Any, wrong: list[Any] = WRONG) -> Iterator[Any]:
    for path in paths(doc):
        for value in wrong:
            copy = json.loads(json.dumps(doc))
            node = copy
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
            yield copy


def check(sink: Sink, n: int) -> None:
    df = validate_frame(sink.frame())
    assert n > 50
    assert list(df["seq"]) == list(range(len(df)))


@pytest.mark.parametrize("name", FILES)
def test_wrong_type_anywhere_never_raises(name: str) -> None:
    sink = Sink(Path(name))
    n = 0
    for n, doc in enumerate(mutants(json.loads((FX / name).read_text())), start=1):
        emit_text(sink, json.dumps(doc), f"{name}~{n}")
        emit_text(sink, json.dumps(doc) + "\n" + json.dumps(doc), f"{name}~{n}.jsonl")
    check(sink, n)


def test_wrong_types_in_a_cassette() -> None:
    sink = Sink(Path("c.yaml"))
    n = 0
    doc0 = yaml.safe_load((FX / "cassette.yaml").read_text())
    for n, doc in enumerate(mutants(doc0, WRONG[:3]), start=1):
        emit_text(sink, json.dumps(doc), f"c~{n}", yaml_ok=True)  # JSON is YAML
    check(sink, n)


@pytest.mark.parametrize("name", ["stream_openai.sse", "stream_anthropic.sse"])
def test_wrong_types_in_stream_chunks(name: str) -> None:
    lines = (FX / name).read_text().splitlines()
    sink = Sink(Path(name))
    n = 0
    for i, line in enumerate(lines):
        if line.startswith("data: {"):
            for doc in mutants(json.loads(line[6:])):
                n += 1
                bad = [*lines[:i], "data: " + json.dumps(doc), *lines[i + 1 :]]
                emit_text(sink, "\n".join(bad), f"{name}~{n}")
    check(sink, n)
