"""TR, PR (PR001–PR007) and TM rules: each fires on its positive fixture, stays silent on its
negative one, and says nothing about a table without tool calls."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import need_tshark
from tests.diagnose.rule_fixture_helpers import needs_tshark, run_rule
from toolcall_cli.diagnose import CLASSIFIERS, DiagnoseContext

CODES = (
    "TR001", "TR002", "TR003", "TR004",
    "PR001", "PR002", "PR003", "PR004", "PR005", "PR006", "PR007",
    "TM001", "TM002",
)  # fmt: skip


@pytest.mark.parametrize("code", CODES)
def test_fires_on_positive_fixture(code: str) -> None:
    if needs_tshark(code):
        need_tshark()
    assert run_rule(code, "positive"), f"{code} silent on its positive fixture"


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
