"""Every diagnose rule is registered, documented with the four headings, and coded uniquely."""

from __future__ import annotations

import re

import pytest

from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.model.findings import CODE_RE, DOC_HEADINGS, RULES

DIAGNOSE_PREFIXES = ("IN", "FL", "TR", "OR", "PR", "TM")


def diagnose_rules() -> list[tuple[str, object]]:
    return [(code, r) for code, r in RULES.items() if code.startswith(DIAGNOSE_PREFIXES)]


@pytest.mark.parametrize("code", CLASSIFIERS.names())
def test_classifier_has_a_rule_of_a_diagnose_family(code: str) -> None:
    assert code in RULES, f"{code} has no rule()"
    assert code.startswith(DIAGNOSE_PREFIXES), f"{code}: not a diagnose family prefix"


def test_codes_match_the_pattern_and_are_unique() -> None:
    codes = CLASSIFIERS.names()
    assert all(CODE_RE.match(c) for c in codes)
    assert len(codes) == len(set(codes))
    names = [RULES.get(c).name for c in codes]
    assert len(names) == len(set(names)), "rule names must be unique too"
    assert all(re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", n) for n in names), (
        "names are kebab-case"
    )


@pytest.mark.parametrize("code", CLASSIFIERS.names())
def test_every_classifier_has_a_documented_rule(code: str) -> None:
    rule = RULES.get(code)
    lines = [line.strip() for line in rule.doc.splitlines()]
    for heading in DOC_HEADINGS:
        assert heading in lines, f"{code}: doc lacks the heading {heading!r}"
    positions = [lines.index(h) for h in DOC_HEADINGS]
    assert positions == sorted(positions), f"{code}: headings out of order"
    for a, b in zip(positions, [*positions[1:], len(lines)], strict=True):
        assert any(lines[a + 1 : b]), f"{code}: empty section under {lines[a]!r}"
    assert rule.summary and rule.severity


def test_no_rule_without_a_classifier() -> None:
    missing = [code for code, _ in diagnose_rules() if code not in CLASSIFIERS]
    assert missing == []
