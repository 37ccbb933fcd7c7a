"""`--fix`: the safe fixes, written back keeping key order and indentation.

Safe fixes: add ``"additionalProperties": false`` where it is absent (SC007; an explicit
``true`` is left alone), and under strict profiles complete ``required`` (SC011), making each
newly required property nullable when it has a plain ``type``. Only JSON files (``.json``,
``.snap``) are rewritten; JSON lines and YAML files are reported as not fixable, because a
rewrite would lose their layout and comments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcall_cli.errors import InputError
from toolcall_cli.lint.base import LintContext
from toolcall_cli.lint.walk import is_object, missing_required, walk
from toolcall_cli.tools.documents import read_documents, read_text
from toolcall_cli.tools.loaders import ToolDef


@dataclass(frozen=True, slots=True)
class FixResult:
    """How many edits went into which files, and the files that could not be fixed."""

    edits: int
    files: tuple[str, ...]
    unfixable: tuple[str, ...]


def apply_fixes(tools: Sequence[ToolDef], ctx: LintContext) -> FixResult:
    """Apply the safe fixes to the files *tools* came from."""
    by_file: dict[str, list[ToolDef]] = {}
    for t in tools:
        if not ctx.too_deep(t):
            by_file.setdefault(t.file, []).append(t)
    edits = 0
    changed: list[str] = []
    unfixable: list[str] = []
    for file, group in by_file.items():
        path = Path(file)
        text = read_text(path)
        parsed = read_documents(path, text)
        if parsed is None or len(parsed.documents) != 1 or parsed.documents[0].fmt != "json":
            unfixable.append(file)
            continue
        data = json.loads(text)
        n = sum(_fix_tool(data, t, ctx) for t in group)
        if n:
            _write(path, data, text)
            edits += n
            changed.append(file)
    return FixResult(edits, tuple(changed), tuple(unfixable))


def _resolve(data: Any, pointer: str) -> Any:
    node = data
    for raw in pointer.split("/")[1:]:
        tok = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(tok)] if tok.isdigit() and int(tok) < len(node) else None
        elif isinstance(node, dict):
            node = node.get(tok)
        else:
            return None
    return node


def _fix_tool(data: Any, tool: ToolDef, ctx: LintContext) -> int:
    schema = _resolve(data, tool.schema_pointer)
    strict = ctx.profile_for(tool).strict
    n = 0
    for node in list(walk(schema, tool.schema_pointer)):
        s = node.schema
        if not is_object(s) or "$ref" in s:
            continue
        if "additionalProperties" not in s and s.get("unevaluatedProperties") is not False:
            s["additionalProperties"] = False
            n += 1
        if strict:
            missing = missing_required(s)
            if missing:
                req = s.get("required")
                s["required"] = [*(req if isinstance(req, list) else []), *missing]
                for name in missing:
                    _nullable(s["properties"][name])
                n += 1
    return n


def _nullable(prop: Any) -> None:
    if not isinstance(prop, dict):
        return
    t = prop.get("type")
    if isinstance(t, str) and t != "null":
        prop["type"] = [t, "null"]
    elif isinstance(t, list) and "null" not in t:
        prop["type"] = [*t, "null"]


def _write(path: Path, data: Any, original: str) -> None:
    m = re.search(r"\n([ \t]+)\S", original)
    if m:
        indent: str | int = "\t" if m.group(1).startswith("\t") else len(m.group(1))
        out = json.dumps(data, indent=indent, ensure_ascii=False)
    else:
        sep = (", ", ": ") if ", " in original or ": " in original else (",", ":")
        out = json.dumps(data, separators=sep, ensure_ascii=False)
    if original.endswith("\n"):
        out += "\n"
    try:
        path.write_text(out, encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None
