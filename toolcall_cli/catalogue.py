"""Every rule toolcall knows, gathered from the diagnose and lint packages."""

from __future__ import annotations

from dataclasses import dataclass

from toolcall_cli.core.findings import RULES, Rule
from toolcall_cli.errors import UsageError


def load_all() -> list[Rule]:
    """Import the rule-defining packages (registration side effect) and list the rules."""
    import toolcall_cli.diagnose
    import toolcall_cli.lint  # noqa: F401

    return [r for _, r in RULES.items()]


@dataclass(frozen=True, slots=True)
class RulesReport:
    """The catalogue, or a single rule when `single` is set."""

    rules: tuple[Rule, ...]
    single: bool = False


def rules_report(code: str | None = None) -> RulesReport:
    """All rules, or the one whose code or name is *code*."""
    rules = load_all()
    if code is None:
        return RulesReport(tuple(rules))
    want = code.strip()
    for r in rules:
        if r.code == want.upper() or r.name == want.lower() or want.lower() in r.aliases:
            return RulesReport((r,), single=True)
    raise UsageError(f"unknown rule {code!r}", hint="run `toolcall rules` for the catalogue")
