"""Honest fixes and severities (issue 16 item 5): a fix cites only codes fired beside it, a
provider error's fix follows its cause, and a finding's severity is the catalogue's unless
its rule documents the context."""

from __future__ import annotations

import re

import pytest

from tests.conftest import CORPUS, need_corpus
from tests.diagnose.rule_fixture_helpers import RULES_DIR, bundle, needs_tshark
from tests.diagnose.test_provider_errors import PYDANTIC, _pr008
from toolcall_cli.diagnose import CLASSIFIERS, diagnose_events
from toolcall_cli.diagnose.kit.cited_codes import cite_present
from toolcall_cli.model.findings import RULES, Finding
from toolcall_cli.sources import ingest_paths

DIAGNOSE_CODES = [c for c in CLASSIFIERS.names() if (RULES_DIR / c).is_dir()]
TAU = "conversations/tau-bench/historical_trajectories__gpt-4o-airline.json"


def _all_findings(code: str) -> tuple[Finding, ...]:
    """Every rule's findings on *code*'s positive fixture (the whole run, linked)."""
    result = ingest_paths(bundle(code, "positive"))
    return diagnose_events(result.events, inputs=tuple(str(f.path) for f in result.files)).findings


def _check_run(findings: tuple[Finding, ...]) -> None:
    fired: dict[str, set[str]] = {}
    for f in findings:
        fired.setdefault(f.trace_id or f"s:{f.session_id}", set()).add(f.code)
    for f in findings:
        rule = RULES.get(f.code)
        assert rule.allows(f.severity), f"{f.code} {f.severity.value} is undocumented: {f.message}"
        here = fired[f.trace_id or f"s:{f.session_id}"]
        for text in (f.fix or "", f.message):
            for aside in re.findall(r"\(see ([^)]*)\)", text):
                cited = set(re.findall(r"[A-Z]{2}\d{3}", aside)) & set(CLASSIFIERS.names())
                assert cited <= here, f"{f.code} cites {sorted(cited - here)} absent: {text}"


@pytest.mark.parametrize("code", DIAGNOSE_CODES)
def test_rule_fixture_runs_cite_and_grade_honestly(
    code: str, request: pytest.FixtureRequest
) -> None:
    if needs_tshark(code):
        request.getfixturevalue("tshark")
    _check_run(_all_findings(code))


@pytest.mark.corpus
def test_tau_bench_cites_and_grades_honestly() -> None:
    need_corpus()
    findings = diagnose_events(ingest_paths([CORPUS / TAU]).events).findings
    _check_run(findings)
    fl003 = [f for f in findings if f.code == "FL003"]
    assert fl003 and {f.severity.value for f in fl003} == {"warning"}  # a documented context
    assert [s.value for s, _ in RULES.get("FL003").other_severities] == ["warning"]


def test_see_asides_keep_only_fired_codes() -> None:
    r = RULES.get("FL001")
    loop = Finding.of(r, "loop", trace_id="t", fix="Look (see OR001, TR002, PR006 for it): fix.")
    cut = Finding.of(RULES.get("TR002"), "cut", trace_id="t")
    elsewhere = Finding.of(RULES.get("OR001"), "orphan", trace_id="u")
    out = cite_present([loop, cut, elsewhere], CLASSIFIERS.names())
    assert out[0].fix == "Look (see TR002 for it): fix."
    alone = cite_present([loop], CLASSIFIERS.names())
    assert alone[0].fix == "Look: fix."
    lint = Finding.of(RULES.get("PR003"), "case", fix="Reject (see SC004) names.")
    assert cite_present([lint], CLASSIFIERS.names())[0].fix == "Reject (see SC004) names."


@pytest.mark.corpus
def test_rate_limit_fix_says_back_off() -> None:
    (f,) = _pr008((PYDANTIC, "models__test_openrouter__test_openrouter_errors_raised.yaml"))
    assert f.fix is not None and f.fix.startswith("Back off and retry")
    assert "same way" not in f.fix


def test_history_error_fix_says_repair_first() -> None:
    (f,) = [x for x in _all_findings("PR008") if x.code == "PR008" and x.fact("related_code")]
    assert f.fix is not None and "fails the same way" in f.fix
    assert "related code" not in f.fix
