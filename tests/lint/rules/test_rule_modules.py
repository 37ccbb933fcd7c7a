"""Each SC code has exactly one module in `lint/rules/`, named after it, and its fixtures.

Every rule fires on its positive fixture and stays silent on its negative one.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import toolcall_cli.lint.rules as rules_pkg
from tests.conftest import FIXTURES
from toolcall_cli.lint import LINT_RULES, LintOptions, lint_paths
from toolcall_cli.lint.engine import options_from_config
from toolcall_cli.model.findings import DOC_HEADINGS, RULES

RULES_DIR = Path(rules_pkg.__file__).parent
MODULES = sorted(p for p in RULES_DIR.glob("*.py") if p.name != "__init__.py")
RULE_DIRS = sorted((FIXTURES / "rules").glob("SC*"))
CODES = LINT_RULES.names()


def _declared_codes(module: Path) -> list[str]:
    """The codes the module passes to `rule(...)`."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return [
        str(node.args[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "rule"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ]


def _module_name(code: str) -> str:
    return RULES.get(code).name.replace("-", "_")


def test_the_fourteen_codes_are_registered() -> None:
    assert [f"SC{n:03d}" for n in range(1, 15)] == CODES


def test_one_module_per_code_and_one_code_per_module() -> None:
    declared = {m.stem: _declared_codes(m) for m in MODULES}
    assert all(len(codes) == 1 for codes in declared.values()), declared
    assert sorted(codes[0] for codes in declared.values()) == CODES
    for stem, (code,) in declared.items():
        assert stem == _module_name(code), f"{code} lives in {stem}.py"


@pytest.mark.parametrize("code", CODES)
def test_the_check_comes_from_the_rule_module(code: str) -> None:
    lr = LINT_RULES.get(code)
    check = lr.per_tool or lr.per_registry
    assert check is not None
    assert check.__module__ == f"toolcall_cli.lint.rules.{_module_name(code)}"
    assert lr.rule is RULES.get(code)


def test_the_package_imports_each_module_by_name() -> None:
    tree = ast.parse((RULES_DIR / "__init__.py").read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "toolcall_cli.lint.rules"
        for alias in node.names
    }
    assert imported == {m.stem for m in MODULES}


@pytest.mark.parametrize("code", CODES)
def test_rule_docs(code: str) -> None:
    r = RULES.get(code)
    lines = r.doc.splitlines()
    positions = [lines.index(h) for h in DOC_HEADINGS]
    assert positions == sorted(positions), code
    assert r.summary and r.name


def test_every_rule_has_fixtures() -> None:
    assert [d.name for d in RULE_DIRS] == CODES
    for d in RULE_DIRS:
        assert len(list(d.glob("positive.*"))) == 1, d.name
        assert len(list(d.glob("negative.*"))) == 1, d.name


def _options(d: Path) -> LintOptions:
    opts = json.loads((d / "options.json").read_text()) if (d / "options.json").exists() else {}
    if "lock" in opts:
        opts["lock"] = str(d / opts["lock"])
    return options_from_config(opts)


def _codes(path: Path, opts: LintOptions) -> list[str]:
    return [f.code for f in lint_paths([path], options=opts).findings]


@pytest.mark.parametrize("d", RULE_DIRS, ids=lambda d: d.name)
def test_positive_fires(d: Path) -> None:
    (pos,) = d.glob("positive.*")
    assert d.name in _codes(pos, _options(d))


@pytest.mark.parametrize("d", RULE_DIRS, ids=lambda d: d.name)
def test_negative_silent(d: Path) -> None:
    (neg,) = d.glob("negative.*")
    assert _codes(neg, _options(d)) == []  # the negatives are clean tools: no rule fires
