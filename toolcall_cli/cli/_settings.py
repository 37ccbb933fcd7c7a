"""Global settings from the app callback (--config, --color, --debug, --quiet)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from toolcall_cli.model.config import Config, load_config
from toolcall_cli.render import RenderOptions


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
