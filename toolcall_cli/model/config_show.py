"""`toolcall config show|init`: the effective configuration and the commented template.

Both come from `model.config_keys.KEYS`, the one place keys are defined: `show` reads every key
from the loaded `Config` and says where its value came from (the built-in default, a file
found from the working directory, the file named with `--config`; the CLI adds the global
flags and environment variables it knows); `init` writes every key commented out with its
default, its meaning and the kind of value it takes, so the file changes nothing until a line
is uncommented.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolcall_cli import __version__
from toolcall_cli.errors import UsageError
from toolcall_cli.model.config import DEFAULT, Config
from toolcall_cli.model.config_keys import ARRAY_SECTIONS, KEYS, Key
from toolcall_cli.model.jsonio import dumps


@dataclass(frozen=True, slots=True)
class Setting:
    """One effective value and where it came from."""

    key: str
    value: Any
    source: str  # "default", "--config FILE", "discovered FILE", "env NAME", "flag --x"
    meaning: str


@dataclass(frozen=True, slots=True)
class ConfigReport:
    """What `toolcall config show` prints."""

    settings: tuple[Setting, ...]
    config_file: str | None  # the file in force, None: built-in defaults only
    notes: tuple[str, ...] = ()


def _configured(cfg: Config, key: Key) -> bool:
    """Whether the loaded file set *key* (a `[[formats]]` key: any format table has it)."""
    if not key.section:
        return key.path in cfg.raw
    table = cfg.raw.get(key.section)
    tables = table if isinstance(table, list) else [table]
    return any(isinstance(t, dict) and key.name in t for t in tables)


def file_source(cfg: Config) -> str:
    """How the config file was chosen, in the words `show` uses."""
    return f"{'discovered' if cfg.discovered else '--config'} {cfg.path}"


def effective(cfg: Config, extra: tuple[Setting, ...] = ()) -> ConfigReport:
    """Every key's effective value in *cfg* and its source, then the CLI's *extra* rows."""
    rows = []
    for key in KEYS:
        source = file_source(cfg) if cfg.path is not None and _configured(cfg, key) else "default"
        if key.path == "redact.enabled" and cfg.discovered and _configured(cfg, key):
            source = "default (a discovered file may not turn redaction off)"
        rows.append(Setting(key.path, key.value(cfg), source, key.meaning))
    return ConfigReport(
        settings=tuple(rows) + extra,
        config_file=None if cfg.path is None else str(cfg.path),
        notes=cfg.notes,
    )


def toml_value(value: Any) -> str:
    """*value* as TOML (the subset config values use: scalars, lists, flat tables); an unset
    value (None) shows as ``unset``, which is not TOML and never written to a file."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, dict):
        inner = ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return dumps(str(value))


def _default_line(key: Key) -> str:
    default = key.value(DEFAULT)
    empty = default in (None, [], {}, "") and key.example
    shown = key.example if empty else toml_value(default) if default is not None else '""'
    return f"# {key.name} = {shown}" + ("    # example; the default is empty" if empty else "")


def init_text() -> str:
    """A commented `toolcall.toml` holding every key with its default and meaning."""
    lines = [
        f"# toolcall.toml, written by `toolcall config init` (toolcall {__version__}).",
        "# Every key is listed with its default, commented out: uncomment a line to change it.",
        "# `toolcall config show` prints the effective values and where each came from;",
        "# `man 5 toolcall.toml` documents the keys. The same tables work under",
        "# [tool.toolcall] in pyproject.toml.",
        "",
    ]
    section = ""  # top-level keys first, under no header
    for key in KEYS:
        if key.section != section:
            section = key.section
            header = f"[[{section}]]" if section in ARRAY_SECTIONS else f"[{section}]"
            # an array table is only valid with its required keys, so it stays commented too
            lines += ["", f"# {header}" if section in ARRAY_SECTIONS else header]
        lines += textwrap.wrap(
            f"{key.meaning} ({key.kind})", width=96, initial_indent="# ", subsequent_indent="#   "
        )
        lines.append(_default_line(key))
    return "\n".join(lines) + "\n"


def write_init(target: Path, *, force: bool) -> None:
    """Write `init_text()` to *target*; an existing file is kept unless *force* (2)."""
    if target.exists() and not force:
        raise UsageError(f"{target} exists", hint="pass --force to overwrite it, or -o FILE")
    target.write_text(init_text(), encoding="utf-8")
