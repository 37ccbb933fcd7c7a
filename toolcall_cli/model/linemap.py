"""JSON-pointer → line:column maps, built while parsing, so every finding names its place.

JSON: after orjson accepted the text, a regex tokenizer walks it once (per token, not per
character) and records the line and column where each value starts (so a one-line JSON file
still tells its findings apart). JSONL: the same per record, on the record's line. YAML:
`yaml.compose` node marks. Lines and columns are 1-based.

This tokenizer is not `model.jsonscan`'s bracket scanner: that one asks what a possibly cut or
malformed text leaves open; this one positions every value of a document already known valid.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:  # PyYAML loads with the first YAML document (start-up: `toolcall rules`)
    import yaml

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
    columns: Mapping[str, int] = field(default_factory=dict)

    def line(self, pointer: str) -> int:
        """The 1-based line where the value at *pointer* (or its closest known parent) starts."""
        return _nearest(self.lines, pointer, self.default)

    def column(self, pointer: str) -> int | None:
        """The 1-based column where that value starts; None when the parser kept none."""
        return _nearest(self.columns, pointer, None) if self.columns else None


def _nearest(table: Mapping[str, int], pointer: str, default: int | None) -> Any:
    p = pointer
    while True:
        hit = table.get(p)
        if hit is not None:
            return hit
        if not p:
            return default
        p = p[: p.rfind("/")]


def json_lines(text: str, *, first_line: int = 1) -> dict[str, int]:
    """Pointer → line for every value of the (already validated) JSON *text*."""
    return dict(json_linemap(text, first_line=first_line).lines)


def json_linemap(text: str, *, first_line: int = 1) -> LineMap:
    """Pointer → line and column for every value of the (already validated) JSON *text*."""
    out: dict[str, int] = {}
    cols: dict[str, int] = {}
    line_start = 0  # offset of the current line's first character
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
        newlines = text.count("\n", last, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", last, start) + 1
        last = start
        if not stack:
            ptr = ""
        else:
            top = stack[-1]
            ptr = top[1] + "/" + escape(top[4] if top[0] else top[2])
        out[ptr] = line
        cols[ptr] = start - line_start + 1
        if c == "{":
            stack.append([True, ptr, 0, True, ""])
        elif c == "[":
            stack.append([False, ptr, 0, False, ""])
    return LineMap(out, default=first_line, columns=cols)


def yaml_load(text: str) -> tuple[Any, dict[str, int]]:
    """Parse one YAML document; return the value and its pointer → line map.

    Raises ``yaml.YAMLError`` on invalid YAML (the caller turns that into an input error).
    """
    import yaml

    docs = yaml_load_all(text)
    if len(docs) != 1:
        raise yaml.YAMLError(f"expected one YAML document, found {len(docs)}")
    return docs[0]


def yaml_load_all(text: str) -> list[tuple[Any, dict[str, int]]]:
    """Every document of a YAML stream with its pointer → line map (lines of the whole file)."""
    return [(value, dict(lines.lines)) for value, lines in yaml_linemaps(text)]


def yaml_linemaps(text: str) -> list[tuple[Any, LineMap]]:
    """Every document of a YAML stream with its pointer → line and column map."""
    from toolcall_cli.model.yaml_safe import compose_all, safe_load_all

    values = safe_load_all(text)  # aliases bounded, as in yaml_load_all
    out = []
    for value, node in zip(values, compose_all(text), strict=True):
        lines: dict[str, int] = {}
        cols: dict[str, int] = {}
        if node is not None:
            _walk_yaml(node, "", lines, cols)
        out.append((value, LineMap(lines, columns=cols)))
    return out


def _walk_yaml(
    node: yaml.Node, ptr: str, out: dict[str, int], cols: dict[str, int] | None = None
) -> None:
    import yaml  # loaded by then (yaml_linemaps): a lookup in sys.modules

    out[ptr] = node.start_mark.line + 1
    if cols is not None:
        cols[ptr] = node.start_mark.column + 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _walk_yaml(v, ptr + "/" + escape(str(k.value)), out, cols)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value):
            _walk_yaml(v, f"{ptr}/{i}", out, cols)
