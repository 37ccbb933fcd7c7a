"""The core never imports typer or rich (STYLE §1, §2)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "toolcall_cli"
CORE = ("model", "sources", "tools", "align", "store", "diagnose", "replay", "lint")
FORBIDDEN = {"typer", "rich", "click"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.parametrize("package", CORE)
def test_core_is_pure(package: str) -> None:
    files = sorted((PKG / package).rglob("*.py"))
    assert files, package
    for f in files:
        bad = _imports(f) & FORBIDDEN
        assert not bad, f"{f.relative_to(PKG)} imports {sorted(bad)}"


def test_no_click_anywhere() -> None:
    for f in PKG.rglob("*.py"):
        assert "click" not in _imports(f), f


def test_modules_are_small() -> None:
    for f in PKG.rglob("*.py"):
        n = len(f.read_text(encoding="utf-8").splitlines())
        assert n <= 500, f"{f.relative_to(PKG)} has {n} lines (cap 500)"


def test_commands_are_thin() -> None:
    # a command parses, calls one core function and renders (STYLE §7): 40 lines, signature in
    commands = sorted((PKG / "cli" / "commands").glob("[!_]*.py"))
    assert commands
    for path in commands:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        (run,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run"]
        length = (run.end_lineno or run.lineno) - run.lineno + 1
        assert length <= 40, f"cli/commands/{path.name} run() is {length} lines"
