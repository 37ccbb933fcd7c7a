"""Tool-definition loaders: every shape a tool registry takes, each tool with file, line, pointer.

Shapes (`ToolDef.shape`):

- ``openai``: ``{"type": "function", "function": {name, description, parameters, strict}}``
  (also the flat Responses-API form ``{"type": "function", "name", "parameters"}``), in a list
  or under ``{"tools": [...]}``.
- ``openai-legacy``: ``{name, description, parameters}`` items, e.g. under ``{"functions": [...]}``.
- ``anthropic``: ``{name, description, input_schema}``.
- ``mcp``: ``{name, description, inputSchema, outputSchema}``, in a ``tools/list`` JSON-RPC
  response (``{"result": {"tools": [...]}}``), a ``{"tools": [...]}`` result, a bare list, or a
  single Tool object (github-mcp-server's ``*.snap`` files).
- ``bfcl``: BFCL function docs, one JSON line each: ``{"id", "question", "function": [...]}``, or
  a bare ``{name, description, parameters}`` whose root ``type`` is BFCL's ``"dict"``. The
  parameters keep BFCL's dialect (``dict``, ``float``, ``tuple``, ``any``, Java/JS types) raw.
- ``schema``: a file that is itself a JSON Schema for an object (root ``type: object`` or
  ``properties``) becomes one tool named after the file stem. A schema holding only
  ``definitions``/``$defs`` (a definitions library, like the MCP protocol schema) is not a tool.

Provider built-in tools (``{"type": "web_search_20250305", ...}``: a ``type`` other than
``function`` and no schema) are not user-defined schemas and are skipped.
"""

from __future__ import annotations

import glob
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolcall_cli.errors import InputError
from toolcall_cli.model.linemap import LineMap, join
from toolcall_cli.tools.documents import TOOL_EXTS, BadRecord, read_documents


@dataclass(frozen=True, slots=True)
class ToolDef:
    """One tool definition and where it is."""

    name: str
    description: str | None
    parameters: dict[str, Any]  # JSON Schema (BFCL dialect kept raw); {} when absent/not an object
    file: str
    pointer: str  # JSON pointer of the tool object in its document
    line: int  # 1-based line of the tool object
    shape: str
    raw: dict[str, Any]
    schema_pointer: str = ""  # JSON pointer of `parameters` (even when absent)
    schema_raw: Any = None  # the parameters value exactly as written (None when absent)
    output_schema: dict[str, Any] | None = None  # MCP outputSchema
    output_pointer: str | None = None
    lines: LineMap = field(default_factory=LineMap, repr=False, compare=False)

    def line_of(self, pointer: str) -> int:
        """1-based line of any pointer inside this tool's document."""
        return self.lines.line(pointer)

    def column_of(self, pointer: str) -> int | None:
        """1-based column of that pointer's value (None: the document kept no columns)."""
        return self.lines.column(pointer)


@dataclass(frozen=True, slots=True)
class FileLoad:
    """What one file gave: its tools count, and whether it was a tool file at all."""

    path: str
    tools: int
    status: str  # "tools" | "no-tools" | "unparsed" | "unreadable"
    detail: str = ""  # why an unreadable file could not be read


@dataclass(frozen=True, slots=True)
class LoadResult:
    """All tools from all inputs, per-file outcomes and unparseable records."""

    tools: tuple[ToolDef, ...]
    files: tuple[FileLoad, ...]
    bad: tuple[tuple[str, BadRecord], ...] = ()


def load_tools(paths: Sequence[Path]) -> list[ToolDef]:
    """Tool definitions from files, directories (walked) and globs, in input order."""
    return list(load_all(paths).tools)


def load_all(paths: Sequence[Path]) -> LoadResult:
    """Like `load_tools`, with per-file outcomes (for summaries) and bad JSONL records.

    An explicitly named file that is not JSON/JSONL/YAML, or cannot be read, raises InputError
    (exit 3); inside a directory walk such files are skipped as ``unparsed`` or
    ``unreadable``.
    """
    tools: list[ToolDef] = []
    files: list[FileLoad] = []
    bad: list[tuple[str, BadRecord]] = []
    for path, explicit in _expand(paths):
        name = str(path)
        try:
            parsed = read_documents(path)
        except InputError as e:
            if explicit:
                raise
            # one file of a walk that cannot be read (permissions, size) does not hide the rest
            why = e.message.replace(f"{name}: ", "").replace(f" {name}", "")  # named apart
            files.append(FileLoad(name, 0, "unreadable", why))
            continue
        if parsed is None:
            if explicit:
                raise InputError(
                    f"{path}: not JSON, JSON lines or YAML", hint="lint takes tool definition files"
                )
            files.append(FileLoad(name, 0, "unparsed"))
            continue
        found = [
            t for doc in parsed.documents for t in _extract(doc.value, doc.lines, name, path.stem)
        ]
        tools.extend(found)
        bad.extend((name, b) for b in parsed.bad)
        files.append(FileLoad(name, len(found), "tools" if found else "no-tools"))
    return LoadResult(tuple(tools), tuple(files), tuple(bad))


def tools_from_objects(objs: Any, file: str = "<session>", *, line: int = 1) -> list[ToolDef]:
    """Tool definitions from already-parsed objects (e.g. a session's declared `tools`).

    *objs* is a list of tool objects or any wrapper the file loaders accept; every tool gets
    *line* (the objects carry no positions of their own).
    """
    lines = LineMap({}, default=line)
    if isinstance(objs, list):  # a declared tool list: name-only entries count as tools too
        return list(_items(objs, "", lines, file, None, listed=True))
    return list(_extract(objs, lines, file, Path(file).stem))


def _expand(paths: Sequence[Path]) -> Iterator[tuple[Path, bool]]:
    seen: set[Path] = set()
    for p in paths:
        if p.is_file():
            items: list[tuple[Path, bool]] = [(p, True)]
        elif p.is_dir():
            items = [(f, False) for f in _walk(p)]
        elif any(ch in str(p) for ch in "*?["):
            hits = sorted(Path(h) for h in glob.glob(str(p), recursive=True))
            if not hits:
                raise InputError(f"no files match {p}")
            items = [(f, True) for f in hits if f.is_file()]
            for d in (h for h in hits if h.is_dir()):
                items.extend((f, False) for f in _walk(d))
        elif p.exists():  # /dev/null, a FIFO, a socket: exists, but holds no definitions
            raise InputError(f"{p}: not a regular file", hint="lint takes tool definition files")
        else:
            raise InputError(f"no such file or directory: {p}")
        for f, explicit in items:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                yield f, explicit


def _walk(d: Path) -> list[Path]:
    out = []
    for f in sorted(d.rglob("*")):
        rel = f.relative_to(d).parts
        if any(part.startswith(".") for part in rel[:-1]) or not f.is_file():
            continue
        if f.suffix.lower() in TOOL_EXTS:
            out.append(f)
    return out


def _extract(doc: Any, lines: LineMap, file: str, stem: str) -> Iterator[ToolDef]:
    """Every tool in one document, by container shape."""
    if isinstance(doc, list):
        yield from _items(doc, "", lines, file, None, listed=False)
        return
    if not isinstance(doc, dict):
        return
    result = doc.get("result")
    if isinstance(result, dict) and isinstance(result.get("tools"), list):
        yield from _items(result["tools"], "/result/tools", lines, file, "mcp")
        return
    for key, hint in (("tools", None), ("functions", "openai-legacy")):
        if isinstance(doc.get(key), list):
            yield from _items(doc[key], "/" + key, lines, file, hint)
            return
    if isinstance(doc.get("function"), list) and ("question" in doc or "id" in doc):
        yield from _items(doc["function"], "/function", lines, file, "bfcl")
        return
    tool = _item(doc, "", lines, file, None)
    if tool is not None:
        yield tool
        return
    if _is_object_schema(doc):
        yield _tool(doc, stem, doc.get("description"), doc, "", "", lines, file, "schema")


def _items(
    items: list[Any],
    base: str,
    lines: LineMap,
    file: str,
    hint: str | None,
    *,
    listed: bool = True,
) -> Iterator[ToolDef]:
    """Tools of a list; *listed* when the list is a declared tool list (`tools`, `functions`)."""
    for i, it in enumerate(items):
        if isinstance(it, dict):
            tool = _item(it, f"{base}/{i}", lines, file, hint, listed=listed)
            if tool is not None:
                yield tool


def _item(
    it: dict[str, Any],
    ptr: str,
    lines: LineMap,
    file: str,
    hint: str | None,
    *,
    listed: bool = False,
) -> ToolDef | None:
    """One tool object, or None when *it* is not a (user-defined) tool."""
    fn = it.get("function")
    if it.get("type") == "function" and isinstance(fn, dict) and "name" in fn:
        return _tool(
            it,
            fn.get("name"),
            fn.get("description"),
            fn.get("parameters"),
            ptr,
            join(ptr, "function", "parameters"),
            lines,
            file,
            "openai",
        )
    name = it.get("name")
    if not isinstance(name, str | int | float) or isinstance(name, bool):
        return None
    desc = it.get("description")
    if "input_schema" in it:
        return _tool(
            it,
            name,
            desc,
            it["input_schema"],
            ptr,
            join(ptr, "input_schema"),
            lines,
            file,
            "anthropic",
        )
    if "inputSchema" in it:
        return _tool(
            it, name, desc, it["inputSchema"], ptr, join(ptr, "inputSchema"), lines, file, "mcp"
        )
    params = it.get("parameters")
    if "parameters" in it:
        if it.get("type") == "function":
            shape = "openai"
        elif hint == "bfcl" or (isinstance(params, dict) and params.get("type") == "dict"):
            shape = "bfcl"
        else:
            shape = hint or "openai-legacy"
        return _tool(it, name, desc, params, ptr, join(ptr, "parameters"), lines, file, shape)
    if it.get("type") not in (None, "function") or not listed:
        return None  # a provider built-in tool, or an object that merely has a name
    shape = "openai" if it.get("type") == "function" else (hint or "openai-legacy")
    return _tool(it, name, desc, None, ptr, join(ptr, "parameters"), lines, file, shape)


def _tool(
    raw: dict[str, Any],
    name: Any,
    desc: Any,
    params: Any,
    ptr: str,
    sptr: str,
    lines: LineMap,
    file: str,
    shape: str,
) -> ToolDef:
    out = raw.get("outputSchema") if shape == "mcp" else None
    return ToolDef(
        name=str(name) if name is not None else "",
        description=desc if isinstance(desc, str) else None,
        parameters=params if isinstance(params, dict) else {},
        file=file,
        pointer=ptr,
        line=lines.line(ptr),
        shape=shape,
        raw=raw,
        schema_pointer=sptr,
        schema_raw=params,
        output_schema=out if isinstance(out, dict) else None,
        output_pointer=join(ptr, "outputSchema") if isinstance(out, dict) else None,
        lines=lines,
    )


def _is_object_schema(doc: dict[str, Any]) -> bool:
    if "name" in doc and not isinstance(doc.get("name"), dict):
        return False
    return doc.get("type") == "object" or isinstance(doc.get("properties"), dict)
