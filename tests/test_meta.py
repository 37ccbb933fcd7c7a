"""Docs and registries stay in step with the code (STYLE §8, §9)."""

from __future__ import annotations

import re
from pathlib import Path

import typer.core
import typer.main

from toolcall_cli.catalogue import load_all
from toolcall_cli.cli._manpage import pages
from toolcall_cli.cli.app import COMMANDS, app

ROOT = Path(__file__).resolve().parent.parent


def test_every_command_has_imperative_help() -> None:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)  # the app has sub-commands
    for name in COMMANDS:
        cmd = group.commands[name]
        first = (cmd.help or "").strip().splitlines()[0]
        assert first.endswith("."), name
        assert first[0].isupper(), name


def test_rule_codes_unique_and_well_formed() -> None:
    rules = load_all()
    codes = [r.code for r in rules]
    assert len(codes) == len(set(codes))
    names = [r.name for r in rules]
    assert len(names) == len(set(names))
    for r in rules:
        assert re.fullmatch(r"[A-Z]{2}\d{3}", r.code)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name), r.name


def test_man_pages_are_fresh(update_goldens: bool) -> None:
    expected = pages()
    mandir = ROOT / "man"
    if update_goldens:
        for old in [*mandir.glob("*.1"), *mandir.glob("*.5")]:
            old.unlink()
        for name, text in expected.items():
            (mandir / name).write_text(text, encoding="utf-8")
    on_disk = {
        p.name: p.read_text(encoding="utf-8") for p in [*mandir.glob("*.1"), *mandir.glob("*.5")]
    }
    assert set(on_disk) == set(expected), "man pages missing or extra: run pytest --update-goldens"
    for name, text in expected.items():
        assert on_disk[name] == text, (
            f"man/{name} is stale: run pytest --update-goldens (or make man)"
        )


def test_readme_commands_are_true() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make demo" in readme and "make test" in readme
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
