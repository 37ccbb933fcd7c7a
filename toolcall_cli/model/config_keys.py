"""Every `toolcall.toml` key in one place: its path, its meaning and where its default lives.

`model.config` accepts exactly these keys (its `SECTIONS`/`TOP_KEYS` are built from `KEYS`, so
a key documented here is a key the loader knows and the other way round); `toolcall config
show|init` and `man/toolcall.toml.5` are generated from them. Defaults stay written once, in
the `model.config` dataclasses (or the lint module that owns them): a key only says how to
read its default from a loaded `Config`, so `config show` prints the effective value through
the same accessor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolcall_cli.model.config import Config


@dataclass(frozen=True, slots=True)
class Key:
    """One configuration key: dotted TOML path, meaning, the type users write."""

    path: str  # "flooding.window_s"; a top-level key has no dot
    meaning: str
    kind: str  # what the TOML value is, in words: "seconds", "integer", "list of paths"...
    value: Callable[[Config], Any]  # the effective value in a loaded Config
    example: str = ""  # a TOML value to show when the default is empty

    @property
    def section(self) -> str:
        """The TOML table holding the key ("" for a top-level key)."""
        return self.path.rpartition(".")[0]

    @property
    def name(self) -> str:
        """The key's own name inside its table."""
        return self.path.rpartition(".")[2]


#: `[lint]` defaults, here with every other key's; `lint/` (LintOptions) takes them from here.
DEFAULT_LINT_PROFILE = "generic"
DEFAULT_TOKEN_BUDGET = 8000
_LINT_DEFAULTS: dict[str, Any] = {
    "profile": DEFAULT_LINT_PROFILE,
    "token_budget": DEFAULT_TOKEN_BUDGET,
    "select": [],
    "ignore": [],
    "lock": None,
    "baseline": None,
}


def _lint(key: str) -> Callable[[Config], Any]:
    """A `[lint]` key: its raw value when configured, else its default."""

    def read(cfg: Config) -> Any:
        lint = cfg.raw.get("lint", {})
        return lint[key] if key in lint else _LINT_DEFAULTS[key]

    return read


KEYS: tuple[Key, ...] = (
    Key("tools", "tool definition files: the registry replay and diagnose check calls against",
        "list of paths, relative to the config file", lambda c: [str(p) for p in c.tools],
        example='["tools.json"]'),
    Key("tz", "time zone for timestamps that carry none (--tz overrides it)", "IANA zone name",
        lambda c: c.tz),
    Key("flooding.window_s", "length of the sliding rate-limit window and of the identical-call "
        "dedupe window", "seconds", lambda c: c.flooding.window_s),
    Key("flooding.max_calls", "calls one session may make per window; the next one is cancelled "
        "as flooding", "integer", lambda c: c.flooding.max_calls),
    Key("flooding.per_tool", "per-tool limits per window, stricter than max_calls",
        "table of tool = integer", lambda c: dict(c.flooding.per_tool),
        example="{ send_email = 2, execute_payment = 1 }"),
    Key("flooding.dedupe", "cancel a call identical to one admitted within the window (same "
        "tool, canonically equal arguments)", "true or false", lambda c: c.flooding.dedupe),
    Key("tolerance.timestamp_ms", "how far a response's timestamp may be from its request's "
        "(PR005, replay response stage)", "milliseconds", lambda c: c.tolerance.timestamp_ms),
    Key("tolerance.skew_ms", "clock offset between sources reported as skew (IN002) and "
        "corrected", "milliseconds", lambda c: c.tolerance.skew_ms),
    Key("sla.initiation_ms", "SLA of call initiation: tool call received to request sent "
        "(TM002)", "milliseconds", lambda c: c.sla.initiation_ms),
    Key("sla.service_ms", "SLA of the tool service: request to response (TM002)",
        "milliseconds", lambda c: c.sla.service_ms),
    Key("sla.injection_ms", "SLA of injection: response to tool result in the conversation "
        "(TM002)", "milliseconds", lambda c: c.sla.injection_ms),
    Key("sla.end_to_end_ms", "SLA of the whole chat request (TM002)", "milliseconds",
        lambda c: c.sla.end_to_end_ms),
    Key("messages.window", "history length after which earlier tool results roll out of the "
        "context (TR004)", "integer, messages", lambda c: c.message_window),
    Key("budgets.result_chars", "tool-result size budget; a result cut at it is truncated "
        "(TR002, replay response stage)", "integer, characters",
        lambda c: c.budgets.result_chars),
    Key("budgets.per_tool", "per-tool result budgets, overriding result_chars",
        "table of tool = integer", lambda c: dict(c.budgets.per_tool),
        example="{ search = 4000 }"),
    Key("limits.max_decompressed", "bytes a gzip input or HTTP body may inflate to (guards "
        "against decompression bombs)", "integer, bytes", lambda c: c.max_decompressed),
    Key("redact.enabled", "redact secrets in quoted evidence; a discovered config may not turn "
        "it off (only --config or --no-redact can)", "true or false",
        lambda c: c.redact.enabled),
    Key("redact.patterns", "extra regexes (RE2) whose matches are redacted", "list of regexes",
        lambda c: list(c.redact.patterns), example='["ACME-[0-9]{8}"]'),
    Key("redact.json_paths", "JSON pointers whose values are redacted in JSON evidence",
        "list of JSON pointers", lambda c: list(c.redact.json_paths),
        example='["/card/number"]'),
    Key("formats.name", "name of a user middleware log format ([[formats]], one table per "
        "format)", "string", lambda c: [f.name for f in c.formats], example='"legacy"'),
    Key("formats.regex", "regex (RE2) with named groups (ts, event, tool_call_id, tool, ...) "
        "that parses one line", "regex", lambda c: [f.regex.pattern for f in c.formats],
        example="'^(?P<ts>\\S+) (?P<event>\\S+) call=(?P<tool_call_id>\\S+)'"),
    Key("formats.samples", "lines the regex must match (checked when the config loads)",
        "list of strings", lambda c: [list(f.samples) for f in c.formats],
        example='["2024-01-01T00:00:00Z tool_call.rejected call=abc"]'),
    Key("lint.profile", "provider profile of toolcall lint (--profile overrides it)",
        "openai|openai-strict|openai-strict-finetuned|anthropic|mcp|generic",
        _lint("profile")),
    Key("lint.token_budget", "token budget of the whole tool list (SC013)", "integer, tokens",
        _lint("token_budget")),
    Key("lint.select", "lint only these codes or prefixes", "list of codes",
        _lint("select"), example='["SC"]'),
    Key("lint.ignore", "skip these lint codes or prefixes", "list of codes",
        _lint("ignore"), example='["SC009"]'),
    Key("lint.lock", "lock file of tool schema fingerprints (SC012 schema drift)", "path",
        _lint("lock"), example='"tools.lock"'),
    Key("lint.baseline", "baseline file of lint findings to suppress", "path",
        _lint("baseline"), example='"lint-baseline.json"'),
)  # fmt: skip

#: Sections whose tables repeat (`[[formats]]`).
ARRAY_SECTIONS = frozenset({"formats"})


def sections() -> dict[str, frozenset[str]]:
    """Section → its key names (what the loader accepts)."""
    out: dict[str, set[str]] = {}
    for k in KEYS:
        if k.section:
            out.setdefault(k.section, set()).add(k.name)
    return {s: frozenset(names) for s, names in out.items()}


def top_keys() -> frozenset[str]:
    """Top-level keys that are values, not tables."""
    return frozenset(k.path for k in KEYS if not k.section)


def by_path() -> dict[str, Key]:
    """Dotted path → key."""
    return {k.path: k for k in KEYS}
