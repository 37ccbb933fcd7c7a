"""The pipeline settings a replay runs under: what they are, how two of them differ, one change.

A replay's verdicts measure its settings as much as the evidence, so every replay report
starts with them (`describe`). A what-if compares two settings; `setting_changes` splits the
difference into atomic changes (one key, or one tool of a per-tool table) so each changed
verdict can be attributed to the change that causes it (`replay.whatif`), and `with_setting`
applies one of them. Keys and their accessors come from `model.config_keys`, the one place keys
are defined.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final

from toolcall_cli.model.config import Config
from toolcall_cli.model.config_keys import by_path
from toolcall_cli.tools.registry import ToolRegistry

#: The keys the pipeline stages read (prescreen and inject read none).
REPLAY_KEYS: Final = (
    "flooding.window_s",
    "flooding.max_calls",
    "flooding.per_tool",
    "flooding.dedupe",
    "tolerance.timestamp_ms",
    "budgets.result_chars",
    "budgets.per_tool",
)
#: The pseudo-key of the tool definitions (the registry) in a change.
TOOLS_KEY: Final = "tools"


@dataclass(frozen=True, slots=True)
class SettingChange:
    """One atomic difference between two settings: ``flooding.per_tool.send_email: 2 → 3``."""

    key: str
    before: Any  # None: not set
    after: Any

    def __str__(self) -> str:
        return f"{self.key}: {_show(self.before)} → {_show(self.after)}"


def _show(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    return str(value)


def tools_in_words(registry: ToolRegistry | None) -> str:
    """Where the tool definitions came from, for a newcomer (not the registry's jargon)."""
    if registry is None:
        return "none: tool names and argument schemas are not checked"
    n = len(registry.tools)
    count = f"{n} tool{'s' if n != 1 else ''}"
    if registry.source == "session":  # say where: a request's tools, an MCP tools/list…
        return f"{count} declared in {' and '.join(registry.declared_in)}"
    return f"{count} from {registry.source}"


def origin_in_words(cfg: Config) -> str:
    """Where a config came from: a file (named or discovered) or the built-in defaults."""
    if cfg.path is None:
        return "built-in defaults"
    return f"{cfg.path}{' (found from the working directory)' if cfg.discovered else ''}"


def describe(cfg: Config, registry: ToolRegistry | None) -> dict[str, Any]:
    """The effective pipeline settings as plain data (printed first by every replay view)."""
    keys = by_path()
    return {
        "from": origin_in_words(cfg),
        "tools": tools_in_words(registry),
        **{k: keys[k].value(cfg) for k in REPLAY_KEYS},
    }


def setting_changes(before: Config, after: Config) -> tuple[SettingChange, ...]:
    """The atomic differences of the replay keys; a per-tool table differs tool by tool."""
    keys = by_path()
    out: list[SettingChange] = []
    for path in REPLAY_KEYS:
        old, new = keys[path].value(before), keys[path].value(after)
        if isinstance(old, dict):
            for tool in sorted(set(old) | set(new)):
                if old.get(tool) != new.get(tool):
                    out.append(SettingChange(f"{path}.{tool}", old.get(tool), new.get(tool)))
        elif old != new:
            out.append(SettingChange(path, old, new))
    return tuple(out)


def with_setting(cfg: Config, change: SettingChange) -> Config:
    """*cfg* with exactly one atomic change applied (a per-tool entry set or removed)."""
    section, _, rest = change.key.partition(".")
    name, _, tool = rest.partition(".")
    table = getattr(cfg, section)
    value = change.after
    if tool:
        entries = dict(getattr(table, name))
        if value is None:
            entries.pop(tool, None)
        else:
            entries[tool] = value
        value = entries
    return replace(cfg, **{section: replace(table, **{name: value})})
