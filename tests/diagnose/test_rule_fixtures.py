"""Every diagnose rule, discovered from the registry: it has a fixtures/rules/<CODE>/ folder, fires
on its positive fixture with quoted evidence, stays silent on its negative one, and says nothing
about a table without tool calls."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import need_tshark
from tests.diagnose.rule_fixture_helpers import RULES_DIR, needs_tshark, run_rule
from toolcall_cli.catalogue import load_all
from toolcall_cli.diagnose import CLASSIFIERS, DiagnoseContext
from toolcall_cli.model.findings import CODE_RE

CODES = CLASSIFIERS.names()


def test_every_rule_has_fixtures_and_every_fixture_a_rule() -> None:
    known = {r.code for r in load_all()}  # diagnose and lint rules (SC fixtures live here too)
    folders = {p.name for p in RULES_DIR.iterdir() if p.is_dir() and CODE_RE.match(p.name)}
    assert sorted(set(CODES) - folders) == [], "rules without fixtures/rules/<CODE>/"
    assert sorted(c for c in folders if c not in known) == [], "fixtures of no registered rule"


@pytest.mark.parametrize("code", CODES)
def test_fires_on_positive_fixture(code: str) -> None:
    if needs_tshark(code):
        need_tshark()
    found = run_rule(code, "positive")
    assert found, f"{code} silent on fixtures/rules/{code}/positive.*"
    for f in found:
        assert f.evidence, f"{code} finding without evidence"
        assert all(e.text for e in f.evidence), f"{code} finding without quoted evidence"
        assert f.explanation and f.fix


@pytest.mark.parametrize("code", CODES)
def test_silent_on_negative_fixture(code: str) -> None:
    if needs_tshark(code):
        need_tshark()
    assert run_rule(code, "negative") == []


@pytest.mark.parametrize("code", CODES)
def test_quiet_on_tables_without_calls(code: str, make_ctx: Callable[..., DiagnoseContext]) -> None:
    check = CLASSIFIERS.get(code)
    assert list(check(make_ctx([]))) == []
    access = {
        "source": "nginx",
        "kind": "http_access",
        "ts": "2025-03-01T12:00:00Z",
        "http_status": 200,
        "detail": "GET / HTTP/1.1",
    }
    assert list(check(make_ctx([access]))) == []
