"""SC002 duplicate-tool-name: across files, and never for identical re-declarations."""

from __future__ import annotations

from tests.conftest import FIXTURES
from toolcall_cli.lint import lint_paths

REGISTRY = FIXTURES / "schemas" / "registry"


def test_duplicates_across_files() -> None:
    fs = lint_paths([REGISTRY / "a.json", REGISTRY / "b.json"]).findings
    dup = [f for f in fs if f.code == "SC002"]
    assert len(dup) == 1
    path = dup[0].location.path
    assert path is not None and path.endswith("b.json") and "a.json:3" in dup[0].message


def test_identical_redeclaration_overrides_nothing() -> None:
    a = REGISTRY / "a.json"
    assert not [f for f in lint_paths([a, a.parent / "." / "a.json"]).findings if f.code == "SC002"]
