"""SC006 unbounded-number: silent where the profile forbids minimum and maximum."""

from __future__ import annotations

from tests.conftest import FIXTURES
from toolcall_cli.lint import LintOptions, lint_paths


def _codes(profile: str) -> list[str]:
    pos = FIXTURES / "rules" / "SC006" / "positive.json"
    return [f.code for f in lint_paths([pos], options=LintOptions(profile=profile)).findings]


def test_finetuned_profile_never_asks_for_bounds() -> None:
    assert "SC006" in _codes("openai")
    assert "SC006" not in _codes("openai-strict-finetuned")
