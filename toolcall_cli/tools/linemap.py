"""JSON-pointer → line maps, built while parsing, so every finding can name a 1-based line.

JSON: after orjson accepted the text, a regex tokenizer walks it once (per token, not per
character) and records the line where each value starts. JSONL: every pointer of a record maps
to the record's line. YAML: `yaml.compose` node marks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
import yaml

from toolcall_cli.core.yaml_safe import compose_all, safe_load_all

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')


def escape(token: str | int) -> str:
    """One JSON-pointer reference token (RFC 6901): ``~`` → ``~0``, ``/`` → ``~1``."""
    return str(token).replace("~", "~0").replace("/", "~1")


def join(pointer: str, *tokens: str | int) -> str:
    """*pointer* extended by *tokens*."""
    return pointer + "".join("/" + escape(t) for t in tokens)


@dataclass(frozen=True, slots=True)
class LineMap:
    """Lines of the values of one document; unknown pointers fall back to their nearest parent."""

    lines: Mapping[str, int] = field(default_factory=dict)
    default: int = 1

    def line(self, pointer: str) -> int:
        """The 1-based line where the value at *pointer* (or its closest known parent) starts."""
        p = pointer
        while True:
            hit = self.lines.get(p)
            if hit is not None:
                return hit
            if not p:
                return self.default
            p = p[: p.rfind("/")]


def json_lines(text: str, *, first_line: int = 1) -> dict[str, int]:
    """Pointer → line for every value of the (already validated) JSON *text*."""
    out: dict[str, int] = {}
    # stack frames: [is_object, pointer, index, expect_key, key]
    stack: list[list[Any]] = []
    line = first_line
    last = 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        c = tok[0]
        if c == ",":
            top = stack[-1]
            if top[0]:
                top[3] = True
            else:
                top[2] += 1
            continue
        if c == ":":
            continue
        if c in "}]":
            stack.pop()
            continue
        if stack and stack[-1][0] and stack[-1][3]:
            top = stack[-1]
            top[4] = tok[1:-1] if "\\" not in tok else orjson.loads(tok)
            top[3] = False
            continue
        start = m.start()
        line += text.count("\n", last, start)
        last = start
        if not stack:
            ptr = ""
        else:
            top = stack[-1]
            ptr = top[1] + "/" + escape(top[4] if top[0] else top[2])
        out[ptr] = line
        if c == "{":
            stack.append([True, ptr, 0, True, ""])
        elif c == "[":
            stack.append([False, ptr, 0, False, ""])
    return out


def yaml_load(text: str) -> tuple[Any, dict[str, int]]:
    """Parse one YAML document; return the value and its pointer → line map.

    Raises ``yaml.YAMLError`` on invalid YAML (the caller turns that into an input error).
    """
    docs = yaml_load_all(text)
    if len(docs) != 1:
        raise yaml.YAMLError(f"expected one YAML document, found {len(docs)}")
    return docs[0]


def yaml_load_all(text: str) -> list[tuple[Any, dict[str, int]]]:
    """Every document of a YAML stream with its pointer → line map (lines of the whole file)."""
    values = safe_load_all(text)  # aliases bounded: a billion-laughs file is refused
    nodes = compose_all(text)
    out = []
    for value, node in zip(values, nodes, strict=True):
        lines: dict[str, int] = {}
        if node is not None:
            _walk_yaml(node, "", lines)
        out.append((value, lines))
    return out


def _walk_yaml(node: yaml.Node, ptr: str, out: dict[str, int]) -> None:
    out[ptr] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _walk_yaml(v, ptr + "/" + escape(str(k.value)), out)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            _walk_yaml(v, f"{ptr}/{i}", out)
