"""Every rule toolcall knows, gathered from the diagnose and lint packages."""

from __future__ import annotations

from dataclasses import dataclass

from toolcall_cli.errors import UsageError
from toolcall_cli.model.findings import RULES, Rule


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
    raise UsageError(f"unknown rule {code!r}", hint=_rule_hint(want, rules))


def _rule_hint(want: str, rules: list[Rule]) -> str:
    """Did-you-mean for a code or name: `FL01` → FL001 (a dropped zero), `modelloop` →
    model-loop (a close spelling); else where the catalogue is."""
    import difflib
    import re

    codes = [r.code for r in rules]
    padded = re.fullmatch(r"([A-Za-z]{2})(\d{1,2})", want)
    zero = f"{padded[1].upper()}{int(padded[2]):03d}" if padded else ""
    if zero in codes:  # FL01 meant FL001, not every FL code one edit away
        return f"did you mean {zero}? (`toolcall rules` lists them all)"
    close = difflib.get_close_matches(want.upper(), codes, n=3, cutoff=0.6)
    close += difflib.get_close_matches(want.lower(), [r.name for r in rules], n=2, cutoff=0.6)
    known = [c for c in dict.fromkeys(close) if c in codes or any(r.name == c for r in rules)]
    if not known:
        return "run `toolcall rules` for the catalogue"
    return f"did you mean {' or '.join(known[:3])}? (`toolcall rules` lists them all)"
