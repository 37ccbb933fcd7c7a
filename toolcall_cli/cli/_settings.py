"""Global settings from the app callback (--config, --color, --debug, --quiet)."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from toolcall_cli.errors import UsageError
from toolcall_cli.model.config import Config, load_config
from toolcall_cli.render import RenderOptions

if TYPE_CHECKING:
    from toolcall_cli.model.config_show import ConfigReport


@dataclass(frozen=True, slots=True)
class Settings:
    """Options that apply to every command."""

    config_path: Path | None = None
    color: str = "auto"  # auto | always | never
    debug: bool = False
    quiet: bool = False


_current = Settings()


def set_current(s: Settings) -> None:
    """Record the settings parsed by the app callback."""
    global _current
    _current = s
    _config.cache_clear()


#: Environment override of `[limits] max_decompressed` (bytes; K/M/G suffixes allowed).
MAX_DECOMPRESSED_ENV = "TOOLCALL_MAX_DECOMPRESSED"
_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]?)i?b?\s*$", re.IGNORECASE)


def max_decompressed(default: int) -> int:
    """The decompression cap: $TOOLCALL_MAX_DECOMPRESSED when set, else *default* (config)."""
    raw = os.environ.get(MAX_DECOMPRESSED_ENV, "")
    if not raw.strip():
        return default
    m = _SIZE.match(raw)
    if not m or int(m[1]) == 0:
        raise UsageError(
            f"{MAX_DECOMPRESSED_ENV}={raw!r} is not a size",
            hint="give bytes, e.g. 268435456 or 256M",
        )
    return int(m[1]) << {"": 0, "k": 10, "m": 20, "g": 30}[m[2].lower()]


def current() -> Settings:
    """The settings of this invocation."""
    return _current


@lru_cache(maxsize=4)
def _config(path: Path | None, cwd: str) -> Config:
    cfg = load_config(path, search_from=Path(cwd))
    if cfg.discovered:  # said once per load: a config in the evidence must not act unseen
        from toolcall_cli.cli._console import say  # rich: only when there is something to say

        if not _current.quiet:
            say(f"toolcall: using config {cfg.path} (found from the working directory)")
        for note in cfg.notes:
            say(f"toolcall: warning: {note}")
    return cfg


def config(override: Path | None = None) -> Config:
    """The effective config: --config, else toolcall.toml / pyproject.toml found from the cwd."""
    return _config(override or _current.config_path, os.getcwd())


def render_options(*, to_terminal: bool | None = None) -> RenderOptions:
    """Colour/width decisions: --color, NO_COLOR, and whether stdout is a terminal."""
    s = _current
    tty = sys.stdout.isatty() if to_terminal is None else to_terminal
    if s.color == "always":
        color = True
    elif s.color == "never" or os.environ.get("NO_COLOR"):
        color = False
    else:
        color = tty
    width = None
    if os.environ.get("COLUMNS", "").isdigit():
        width = int(os.environ["COLUMNS"])
    elif not tty:
        width = 120
    return RenderOptions(width=width, color=color, quiet=s.quiet)


def config_report() -> ConfigReport:
    """`toolcall config show`: the config keys' rows, with the environment override and the
    global options added (each with where its value came from)."""
    from toolcall_cli.model.config_show import Setting, effective, file_source

    cfg = config()
    s = current()
    report = effective(cfg)
    rows = list(report.settings)
    if os.environ.get(MAX_DECOMPRESSED_ENV, "").strip():
        i = next(i for i, r in enumerate(rows) if r.key == "limits.max_decompressed")
        rows[i] = replace(rows[i], value=max_decompressed(cfg.max_decompressed),
                          source=f"env {MAX_DECOMPRESSED_ENV}")  # fmt: skip
    env_fmt = os.environ.get("TOOLCALL_FORMAT", "")
    env_debug = os.environ.get("TOOLCALL_DEBUG", "") not in ("", "0")
    color_src = "flag --color" if s.color != "auto" else "default"
    if s.color == "auto" and os.environ.get("NO_COLOR"):
        color_src = "env NO_COLOR (no colour)"
    rows += [
        Setting("--config", str(cfg.path) if cfg.path else None,
                file_source(cfg).split(" ", 1)[0] if cfg.path else "default",
                "the config file: --config FILE, else toolcall.toml or pyproject.toml "
                "[tool.toolcall] found from the working directory"),
        Setting("--format", env_fmt or "table", "env TOOLCALL_FORMAT" if env_fmt else "default",
                "output format of every command"),
        Setting("--color", s.color, color_src, "colour output: auto, always or never"),
        Setting("--debug", s.debug or env_debug,
                "flag --debug" if s.debug else "env TOOLCALL_DEBUG" if env_debug else "default",
                "show tracebacks of internal errors"),
        Setting("--quiet", s.quiet, "flag --quiet" if s.quiet else "default",
                "no summary lines on stderr"),
    ]  # fmt: skip
    return replace(report, settings=tuple(rows))
