"""Profiles and --select/--ignore choose which SC rules run."""

from __future__ import annotations

from tests.conftest import FIXTURES
from toolcall_cli.cli.commands.lint import ProfileName
from toolcall_cli.lint import LintOptions, lint_paths
from toolcall_cli.lint.profiles import PROFILES


def test_profile_choices_match_profiles() -> None:
    assert {p.value for p in ProfileName} == set(PROFILES)


def test_select_and_ignore() -> None:
    f = FIXTURES / "schemas" / "weather_bad.json"
    every = {x.code for x in lint_paths([f], options=LintOptions(profile="openai")).findings}
    assert {"SC003", "SC007", "SC008", "SC014"} <= every
    only = {
        x.code
        for x in lint_paths([f], options=LintOptions(profile="openai", select=("SC00",))).findings
    }
    assert only == {c for c in every if c.startswith("SC00")}
    rest = {
        x.code
        for x in lint_paths(
            [f], options=LintOptions(profile="openai", ignore=("SC003", "SC01"))
        ).findings
    }
    assert rest == {c for c in every if c != "SC003" and not c.startswith("SC01")}
