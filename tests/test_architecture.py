"""The architecture DESIGN §7 draws, held by the imports themselves.

Layers, bottom up: errors → model → sources/tools → align → store → diagnose/replay/preflight/
lint → the rule catalogue → render → cli. No import runs up a layer, no two modules import each
other (directly or round a loop, at module level or inside a function), and the core never
imports typer, rich or click. Imports under `if TYPE_CHECKING:` are annotations, not imports.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "toolcall_cli"
#: Every top-level package or module, by layer (bottom = 0).
LAYERS: dict[str, int] = {
    "": 0,  # the package itself: its version
    "errors": 0,
    "model": 1,
    "sources": 2,
    "tools": 2,
    "align": 3,
    "store": 4,
    "diagnose": 5,
    "replay": 5,
    "preflight": 5,
    "lint": 5,
    "catalogue": 6,
    "render": 7,
    "cli": 8,
}
CORE = ("model", "sources", "tools", "align", "store", "diagnose", "replay", "lint")
FORBIDDEN = {"typer", "rich", "click"}


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    return skip


def _imported(module: str, path: Path) -> Iterator[str]:
    """The toolcall modules *module* imports (outside TYPE_CHECKING), names resolved: `from
    pkg import mod` imports `pkg.mod` when that is a module, else `pkg`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = here[: len(here) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES]
            if subs:
                yield from subs
            if base in MODULES and len(subs) < len(node.names):
                yield base


def _graph() -> dict[str, set[str]]:
    return {m: {t for t in _imported(m, p) if t != m} for m, p in MODULES.items()}


def _top(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


def test_every_top_level_name_has_a_layer() -> None:
    tops = {_top(m) for m in MODULES}
    assert tops <= set(LAYERS), sorted(tops - set(LAYERS))


def test_no_import_runs_up_a_layer() -> None:
    bad = sorted(
        f"{m} -> {t}"
        for m, targets in _graph().items()
        for t in targets
        if _top(m) and _top(t) != _top(m) and LAYERS[_top(t)] > LAYERS[_top(m)]
    )
    assert not bad, "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def test_no_import_cycle() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_check_can_fail() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _first_names(path: Path) -> set[str]:
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
        bad = _first_names(f) & FORBIDDEN
        assert not bad, f"{f.relative_to(PKG)} imports {sorted(bad)}"


def test_no_click_anywhere() -> None:
    for f in PKG.rglob("*.py"):
        assert "click" not in _first_names(f), f


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
