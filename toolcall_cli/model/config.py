"""Configuration: `toolcall.toml` or `[tool.toolcall]` in `pyproject.toml`; defaults from DESIGN.

Example `toolcall.toml`::

    tools = ["tools.json"]            # tool registry files
    tz = "UTC"                        # zone for naive timestamps
    [flooding]
    window_s = 60
    max_calls = 5
    per_tool = { send_email = 2, execute_payment = 1 }
    dedupe = true                     # identical-call dedupe
    [tolerance]
    timestamp_ms = 500                # response vs request timestamp (PR005)
    skew_ms = 500                     # clock skew between sources (IN002)
    [sla]
    initiation_ms = 100
    service_ms = 800
    injection_ms = 50
    end_to_end_ms = 3000
    [messages]
    window = 42                       # history length before roll-out (TR004)
    [budgets]
    result_chars = 1000               # default tool-result budget (TR002); per tool below
    per_tool = { search = 4000 }
    [limits]
    max_decompressed = 1073741824     # bytes a gzip input or body may inflate to (bombs)
    [redact]
    patterns = ["ACME-[0-9]{8}"]
    json_paths = ["/card/number"]
    [[formats]]                       # user middleware formats (lnav style)
    name = "legacy"
    regex = '^(?P<ts>\\S+) (?P<event>\\S+) call=(?P<tool_call_id>\\S+)'
    samples = ["2024-01-01T00:00:00Z tool_call.rejected call=abc"]
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolcall_cli.errors import UsageError
from toolcall_cli.model import config_keys, re2

#: Default cap on what a gzip input or HTTP body may inflate to (decompression bombs).
MAX_DECOMPRESSED = 1 << 30
#: The store directory when `--store` is not given.
DEFAULT_STORE = Path(".toolcall")


@dataclass(frozen=True, slots=True)
class Flooding:
    """Sliding-window rate limits (replay `ratelimit` stage, FL codes)."""

    window_s: float = 60.0
    max_calls: int = 5
    per_tool: dict[str, int] = field(default_factory=dict)
    dedupe: bool = True  # identical-call dedupe (name + canonical arguments)


@dataclass(frozen=True, slots=True)
class Tolerance:
    """Time tolerances in milliseconds."""

    timestamp_ms: float = 500.0
    skew_ms: float = 500.0


@dataclass(frozen=True, slots=True)
class Sla:
    """Per-phase latency thresholds in milliseconds (DESIGN §3)."""

    initiation_ms: float = 100.0
    service_ms: float = 800.0
    injection_ms: float = 50.0
    end_to_end_ms: float = 3000.0


@dataclass(frozen=True, slots=True)
class Budgets:
    """Size budgets for tool results (characters)."""

    result_chars: int = 1000
    per_tool: dict[str, int] = field(default_factory=dict)

    def for_tool(self, tool: str | None) -> int:
        """The budget that applies to *tool*."""
        return self.per_tool.get(tool or "", self.result_chars)


@dataclass(frozen=True, slots=True)
class Redact:
    """Extra redaction rules on top of the built-in ones."""

    enabled: bool = True
    patterns: tuple[str, ...] = ()
    json_paths: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LogFormat:
    """A user-defined middleware line format: a regex with named groups."""

    name: str
    regex: re.Pattern[str]
    samples: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Config:
    """Everything configurable, with DESIGN's defaults."""

    path: Path | None = None
    tools: tuple[Path, ...] = ()
    tz: str = "UTC"
    message_window: int = 42
    flooding: Flooding = field(default_factory=Flooding)
    tolerance: Tolerance = field(default_factory=Tolerance)
    sla: Sla = field(default_factory=Sla)
    budgets: Budgets = field(default_factory=Budgets)
    redact: Redact = field(default_factory=Redact)
    formats: tuple[LogFormat, ...] = ()
    max_decompressed: int = MAX_DECOMPRESSED
    raw: dict[str, Any] = field(default_factory=dict)
    discovered: bool = False  # found from the working directory, not named with --config
    notes: tuple[str, ...] = ()  # warnings for the user: what a discovered config was denied


DEFAULT = Config()

#: Every section of toolcall.toml and the keys it may hold (ruff's `deny_unknown_fields`): an
#: unknown section or key is a usage error with did-you-mean. Built from `config_keys.KEYS`, the
#: one place keys are defined and documented (`config init`, `man/toolcall.toml.5`).
SECTIONS: dict[str, frozenset[str]] = config_keys.sections()
#: Top-level keys that are values, not tables.
TOP_KEYS = config_keys.top_keys()


def check_known(data: dict[str, Any], where: str) -> None:
    """Refuse unknown sections and keys (a typo would silently keep the default)."""
    for key, val in data.items():
        if key in TOP_KEYS:
            continue
        if key not in SECTIONS:
            table = isinstance(val, dict) or (
                isinstance(val, list) and val and isinstance(val[0], dict)
            )
            kind = "section" if table else "key"
            shown = f"[{key}]" if kind == "section" else key
            raise UsageError(
                f"{where}: unknown {kind} {shown}",
                hint=_close(key, [*SECTIONS, *TOP_KEYS], "sections and keys"),
            )
        tables = val if isinstance(val, list) else [val]
        for table in tables:
            if not isinstance(table, dict):
                continue  # a wrong type is reported by the section's own check
            for k in table:
                if k not in SECTIONS[key]:
                    raise UsageError(
                        f"{where}: unknown key {k!r} in [{key}]",
                        hint=_close(k, sorted(SECTIONS[key]), f"keys of [{key}]"),
                    )


def _close(given: str, known: list[str], what: str) -> str:
    close = difflib.get_close_matches(given, known, n=1, cutoff=0.6)
    listed = ", ".join(sorted(known))
    return f"did you mean {close[0]}? ({what}: {listed})" if close else f"{what}: {listed}"


def find_config(start: Path) -> Path | None:
    """`toolcall.toml`, else a `pyproject.toml` with `[tool.toolcall]`, in *start* or a parent."""
    for d in (start, *start.parents):
        cand = d / "toolcall.toml"
        if cand.is_file():
            return cand
        py = d / "pyproject.toml"
        if py.is_file():
            try:
                data = tomllib.loads(py.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError):
                continue
            if "toolcall" in data.get("tool", {}):
                return py
    return None


def load_config(path: Path | None = None, *, search_from: Path | None = None) -> Config:
    """Load *path* (or the discovered file); any mistake is a UsageError naming the key.

    A discovered file may sit inside the evidence (an incident bundle), so it is trusted less
    than one named with ``--config``: it may add redaction, never turn it off.
    """
    if path is None and search_from is not None:
        found = find_config(search_from)
        return DEFAULT if found is None else _discovered(_load(found))
    if path is None:
        return DEFAULT
    return _load(path)


def _discovered(cfg: Config) -> Config:
    """*cfg* as a discovered config may apply it: redaction stays on, and the user is told."""
    notes: tuple[str, ...] = ()
    if not cfg.redact.enabled:
        notes = (
            f"ignoring [redact] enabled = false in {cfg.path}: a config found by discovery may "
            "add redaction, not remove it (pass --no-redact or --config to turn it off)",
        )
    return replace(cfg, redact=replace(cfg.redact, enabled=True), discovered=True, notes=notes)


def _load(path: Path) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"config file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read config {path}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"invalid TOML in {path}: {e}") from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("toolcall", {})
    return config_from_dict(data, path=path)


def config_from_dict(data: dict[str, Any], *, path: Path | None = None) -> Config:
    """Build a Config from parsed TOML, validating types and user formats."""
    where = str(path) if path else "config"
    base = path.parent if path else Path.cwd()
    check_known(data, where)

    def section(name: str) -> dict[str, Any]:
        val = data.get(name, {})
        if not isinstance(val, dict):
            raise UsageError(f"{where}: [{name}] must be a table")
        return val

    def num(sec: dict[str, Any], key: str, default: float, name: str) -> float:
        val = sec.get(key, default)
        if (
            isinstance(val, bool)
            or not isinstance(val, int | float)
            or not math.isfinite(val)  # TOML has inf and nan; no window or limit is either
            or val < 0
        ):
            raise UsageError(
                f"{where}: {name}.{key} must be a finite non-negative number, got {val!r}"
            )
        return float(val)

    def int_map(sec: dict[str, Any], name: str) -> dict[str, int]:
        val = sec.get("per_tool", {})
        if not isinstance(val, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in val.values()
        ):
            raise UsageError(
                f"{where}: {name}.per_tool must map tool names to non-negative integers"
            )
        return {str(k): int(v) for k, v in val.items()}

    d = DEFAULT  # every default is written once: in the dataclasses above
    fl, tol, sla, msg, bud, red = (
        section(n) for n in ("flooding", "tolerance", "sla", "messages", "budgets", "redact")
    )
    limits = section("limits")
    tools = data.get("tools", [])
    if isinstance(tools, str):
        tools = [tools]
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise UsageError(f"{where}: tools must be a list of paths")
    patterns = _strings(red, "patterns", where, "redact")
    for p in patterns:
        try:
            re.compile(p)
        except re.error as e:
            raise UsageError(f"{where}: redact pattern {p!r} is not a valid regex: {e}") from None
        _check_re2(p, where, "redact pattern")
        if re2.search(p, ""):
            raise UsageError(
                f"{where}: redact pattern {p!r} matches the empty string",
                hint="a pattern must match the secret itself, e.g. 'ACME-[0-9]{8}'",
            )
    return Config(
        path=path,
        tools=tuple((base / t) for t in tools),
        tz=_text(data, "tz", d.tz, where),
        message_window=int(num(msg, "window", d.message_window, "messages")),
        flooding=Flooding(
            window_s=num(fl, "window_s", d.flooding.window_s, "flooding"),
            max_calls=int(num(fl, "max_calls", d.flooding.max_calls, "flooding")),
            per_tool=int_map(fl, "flooding"),
            dedupe=_bool(fl, "dedupe", d.flooding.dedupe, where, "flooding"),
        ),
        tolerance=Tolerance(
            timestamp_ms=num(tol, "timestamp_ms", d.tolerance.timestamp_ms, "tolerance"),
            skew_ms=num(tol, "skew_ms", d.tolerance.skew_ms, "tolerance"),
        ),
        sla=Sla(
            initiation_ms=num(sla, "initiation_ms", d.sla.initiation_ms, "sla"),
            service_ms=num(sla, "service_ms", d.sla.service_ms, "sla"),
            injection_ms=num(sla, "injection_ms", d.sla.injection_ms, "sla"),
            end_to_end_ms=num(sla, "end_to_end_ms", d.sla.end_to_end_ms, "sla"),
        ),
        budgets=Budgets(
            result_chars=int(num(bud, "result_chars", d.budgets.result_chars, "budgets")),
            per_tool=int_map(bud, "budgets"),
        ),
        redact=Redact(
            enabled=_bool(red, "enabled", d.redact.enabled, where, "redact"),
            patterns=patterns,
            json_paths=_strings(red, "json_paths", where, "redact"),
        ),
        formats=_formats(data.get("formats", []), where),
        max_decompressed=int(num(limits, "max_decompressed", d.max_decompressed, "limits")),
        raw=data,
    )


def _text(data: dict[str, Any], key: str, default: str, where: str) -> str:
    val = data.get(key, default)
    if not isinstance(val, str):
        raise UsageError(f"{where}: {key} must be a string, got {val!r}")
    return val


def _bool(sec: dict[str, Any], key: str, default: bool, where: str, name: str) -> bool:
    val = sec.get(key, default)
    if not isinstance(val, bool):
        raise UsageError(f"{where}: {name}.{key} must be true or false, got {val!r}")
    return val


def _strings(sec: dict[str, Any], key: str, where: str, name: str) -> tuple[str, ...]:
    """A list of strings (a bare string is a mistake, not a list of its characters)."""
    val = sec.get(key, [])
    if not isinstance(val, list) or not all(isinstance(v, str) for v in val):
        raise UsageError(f"{where}: {name}.{key} must be a list of strings, got {val!r}")
    return tuple(val)


#: Unrelated short lines: a format regex that matches all of them (or an empty line) claims
#: every line of every log and so hides the built-in formats and their findings.
_CATCH_ALL_PROBES = ("x", "{}", "-", "0", '{"event": "tool_call.received"}')


def _catch_all(pattern: str) -> bool:
    return re2.search(pattern, "") or all(re2.search_many(pattern, _CATCH_ALL_PROBES))


def _check_re2(pattern: str, where: str, what: str) -> None:
    """User regexes run in RE2 (linear time): one RE2 cannot run is a usage error."""
    reason = re2.re2_error(pattern)
    if reason is not None:
        raise UsageError(
            f"{where}: {what} {pattern!r} is not supported: {reason}",
            hint="toolcall runs config regexes with RE2: no look-around, back-references or \\Z",
        )


def _formats(items: Any, where: str) -> tuple[LogFormat, ...]:
    if not isinstance(items, list):
        raise UsageError(f"{where}: [[formats]] must be an array of tables")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or "regex" not in item:
            raise UsageError(f"{where}: formats[{i}] needs a 'regex'")
        name = str(item.get("name", f"format{i}"))
        if not isinstance(item["regex"], str):
            raise UsageError(f"{where}: format {name!r}: regex must be a string")
        try:
            rx = re.compile(item["regex"])  # for its group names; lines are matched in RE2
        except re.error as e:
            raise UsageError(f"{where}: format {name!r}: invalid regex: {e}") from None
        _check_re2(rx.pattern, where, f"format {name!r}: regex")
        if _catch_all(rx.pattern):
            raise UsageError(
                f"{where}: format {name!r}: regex {item['regex']!r} matches any line",
                hint="anchor it on what only this format's lines hold, e.g. '^<(?P<instance>"
                "[^>]+)> '",
            )
        samples = _strings(item, "samples", where, f"formats[{i}]")
        if not samples:
            raise UsageError(
                f"{where}: format {name!r} needs sample lines", hint='add samples = ["..."]'
            )
        for s in samples:
            if not re2.search(rx.pattern, s):
                raise UsageError(
                    f"{where}: format {name!r}: sample does not match its regex: {s!r}"
                )
        out.append(LogFormat(name=name, regex=rx, samples=samples))
    return tuple(out)
