"""Reading tool-definition files into documents with line maps: JSON, JSON lines, YAML.

A `.json` file that orjson refuses as a whole but whose lines are JSON values is read as JSON
lines (BFCL ships its JSONL with a `.json` suffix). Bad lines in an otherwise good JSONL file
become `BadRecord`s (reported, never fatal); a file that is not JSON, JSONL or YAML at all is
`None` from `read_documents` and the caller decides whether that is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from toolcall_cli.errors import InputError
from toolcall_cli.model.linemap import LineMap, json_linemap, yaml_linemaps
from toolcall_cli.model.words import plural

JSON_EXTS = frozenset({".json", ".jsonl", ".ndjson", ".snap"})
YAML_EXTS = frozenset({".yaml", ".yml"})
TOOL_EXTS = frozenset({".json", ".jsonl", ".yaml", ".yml", ".snap"})
MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Document:
    """One parsed JSON value (a whole file, or one JSONL record) and where its values are."""

    value: Any
    lines: LineMap
    fmt: str  # "json" | "jsonl" | "yaml"


@dataclass(frozen=True, slots=True)
class BadRecord:
    """A JSONL line that does not parse."""

    line: int
    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class Parsed:
    """A file's documents and its unparseable records."""

    documents: tuple[Document, ...]
    bad: tuple[BadRecord, ...] = ()


def read_text(path: Path) -> str:
    """The file as text (UTF-8, BOM tolerated); unreadable → InputError."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{path}: larger than {plural(MAX_BYTES, 'byte')}; refusing")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_documents(path: Path, text: str | None = None) -> Parsed | None:
    """Parse *path* as JSON, JSON lines or YAML (by suffix, then by trying); None if none fits."""
    if text is None:
        text = read_text(path)
    ext = path.suffix.lower()
    if ext in YAML_EXTS:
        return _yaml(text, path)
    parsed = _json(text)
    if parsed is None:
        parsed = _jsonl(text)
    if parsed is None and ext not in JSON_EXTS:
        parsed = _yaml(text, path)
    return parsed


def _json(text: str) -> Parsed | None:
    try:
        value = orjson.loads(text)
    except (orjson.JSONDecodeError, RecursionError):
        return None
    if not isinstance(value, dict | list):
        return None
    return Parsed((Document(value, json_linemap(text), "json"),))


def _jsonl(text: str) -> Parsed | None:
    docs: list[Document] = []
    bad: list[BadRecord] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        try:
            value = orjson.loads(line)
        except (orjson.JSONDecodeError, RecursionError) as e:
            bad.append(BadRecord(n, raw[:2000], str(e)))
            continue
        if isinstance(value, dict | list):
            docs.append(Document(value, json_linemap(raw, first_line=n), "jsonl"))
        else:
            bad.append(BadRecord(n, raw[:2000], "not a JSON object or array"))
    if not docs:
        return None
    return Parsed(tuple(docs), tuple(bad))


def _yaml(text: str, path: Path) -> Parsed | None:
    """Every mapping/sequence document of a YAML stream (``---`` separated)."""
    import yaml  # here, not at import: `toolcall rules` reads no YAML (start-up)

    from toolcall_cli.model.yaml_safe import YAMLBombError

    try:
        docs = yaml_linemaps(text)
    except YAMLBombError as e:  # YAML, but refused: say why rather than "not YAML"
        raise InputError(f"{path}: refusing YAML: {e}") from None
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    kept = tuple(Document(v, lines, "yaml") for v, lines in docs if isinstance(v, dict | list))
    return Parsed(kept) if kept else None
