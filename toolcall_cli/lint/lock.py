"""The lock file (`toolcall.lock`): a fingerprint and a schema copy per tool, and schema diffs.

Format (JSON, keys sorted)::

    {"version": 1,
     "tools": {"get_weather": {"sha256": "<sha256 of the canonical parameters>",
                               "file": "tools/weather.json", "shape": "openai",
                               "schema": {...the parameters as written...}}}}

A name defined twice is locked with its last definition (the one a registry would serve).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcall_cli.errors import InputError, UsageError
from toolcall_cli.lint.walk import safe_canonical, types_of
from toolcall_cli.model.jsonio import pretty
from toolcall_cli.model.linemap import LineMap, join
from toolcall_cli.tools.documents import read_documents
from toolcall_cli.tools.loaders import ToolDef

LOCK_VERSION = 1
DEFAULT_LOCK = Path("toolcall.lock")


def fingerprint(tool: ToolDef) -> str:
    """sha256 of the tool's canonical parameters schema."""
    text = safe_canonical(tool.schema_raw if tool.schema_raw is not None else {})
    return hashlib.sha256(text.encode()).hexdigest()


def rel(path: str, root: Path) -> str:
    """*path* relative to *root* when it is inside it, with forward slashes."""
    try:
        r = os.path.relpath(Path(path).resolve(), root.resolve())
    except ValueError:
        return Path(path).as_posix()
    return Path(path).as_posix() if r.startswith("..") else Path(r).as_posix()


def build_lock(tools: Sequence[ToolDef], root: Path) -> dict[str, Any]:
    """The lock document for *tools*."""
    entries: dict[str, Any] = {}
    for t in tools:
        entries[t.name] = {
            "sha256": fingerprint(t),
            "file": rel(t.file, root),
            "shape": t.shape,
            "schema": t.schema_raw if t.schema_raw is not None else {},
        }
    return {"version": LOCK_VERSION, "tools": entries}


def write_lock(path: Path, tools: Sequence[ToolDef], root: Path) -> int:
    """Write the lock for *tools* to *path*; returns the number of tools locked."""
    doc = build_lock(tools, root)
    try:
        path.write_text(pretty(doc) + "\n", encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write lock file {path}: {e.strerror or e}") from None
    return len(doc["tools"])


def read_lock(path: Path) -> tuple[dict[str, Any], LineMap]:
    """The lock's tool entries and its line map; a missing or malformed lock is an input error."""
    if not path.is_file():
        raise InputError(f"lock file not found: {path}", hint="create it with --update-lock")
    parsed = read_documents(path)
    if parsed is None or len(parsed.documents) != 1:
        raise InputError(f"{path}: not a toolcall lock file")
    doc = parsed.documents[0]
    tools = doc.value.get("tools") if isinstance(doc.value, dict) else None
    if not isinstance(tools, dict) or doc.value.get("version") != LOCK_VERSION:
        raise InputError(f"{path}: not a toolcall lock file (version {LOCK_VERSION})")
    return tools, doc.lines


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between the locked and the current schema."""

    kind: str  # "property removed", "newly required", "type narrowed", "enum shrunk", ...
    pointer: str  # relative to the parameters schema
    breaking: bool


_SKIP = frozenset(
    {"properties", "required", "type", "enum", "items", "description", "title", "examples"}
)


def _covered(t: str, new: set[str]) -> bool:
    return t in new or (t == "integer" and "number" in new)


def diff_schemas(old: Any, new: Any, ptr: str = "") -> Iterator[Change]:
    """Changes from *old* to *new*; breaking = some previously valid arguments are now invalid."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        if old != new:
            yield Change("schema replaced", ptr, True)
        return
    ot, nt = set(types_of(old)), set(types_of(new))
    if nt and (not ot or not all(_covered(t, nt) for t in ot)):
        yield Change("type narrowed", join(ptr, "type"), True)
    elif ot != nt:
        yield Change("type widened", join(ptr, "type"), False)
    oe, ne = old.get("enum"), new.get("enum")
    if isinstance(ne, list) and (not isinstance(oe, list) or any(v not in ne for v in oe)):
        yield Change("enum shrunk", join(ptr, "enum"), True)
    elif oe != ne:
        yield Change("enum grown", join(ptr, "enum"), False)
    op = _props(old)
    np = _props(new)
    for name in op:
        if name not in np:
            yield Change("property removed", join(ptr, "properties", name), True)
        else:
            yield from diff_schemas(op[name], np[name], join(ptr, "properties", name))
    for name in np:
        if name not in op:
            yield Change("property added", join(ptr, "properties", name), False)
    oreq = set(old.get("required") or ()) if isinstance(old.get("required"), list) else set()
    nreq = set(new.get("required") or ()) if isinstance(new.get("required"), list) else set()
    if nreq - oreq:
        yield Change("newly required", join(ptr, "required"), True)
    if oreq - nreq:
        yield Change("no longer required", join(ptr, "required"), False)
    if isinstance(old.get("items"), dict) and isinstance(new.get("items"), dict):
        yield from diff_schemas(old["items"], new["items"], join(ptr, "items"))
    keys = (set(old) | set(new)) - _SKIP
    if any(old.get(k) != new.get(k) for k in keys):
        yield Change("constraints changed", ptr, False)
    elif old.get("description") != new.get("description") or old.get("title") != new.get("title"):
        yield Change("description changed", ptr, False)


def _props(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}
