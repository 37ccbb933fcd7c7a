"""SC005 unbounded-string: silent where the profile forbids minLength."""

from __future__ import annotations

from tests.conftest import FIXTURES
from toolcall_cli.lint import LintOptions, lint_paths


def _codes(profile: str) -> list[str]:
    pos = FIXTURES / "rules" / "SC005" / "positive.json"
    return [f.code for f in lint_paths([pos], options=LintOptions(profile=profile)).findings]


def test_finetuned_profile_never_asks_for_min_length() -> None:
    assert "SC005" in _codes("openai-strict")
    assert "SC005" not in _codes("openai-strict-finetuned")
