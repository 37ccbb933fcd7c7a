"""Help that explains itself: formats per command, human metavars, summaries, examples,
did-you-mean for flags and rule codes."""

from __future__ import annotations

import re
import shlex

import pytest
import typer.main

from tests.conftest import ROOT, run_cli
from toolcall_cli.cli._examples import EXAMPLES
from toolcall_cli.cli.app import COMMANDS, app
from toolcall_cli.render import RENDERERS


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_offers_only_the_command_formats(command: str) -> None:
    served = tuple(r.name for _, r in RENDERERS.items() if command in r.commands)
    res = run_cli([command, "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    shown = re.search(r"-f, --format (\S+)", res.stdout)  # the option, not a mention in prose
    assert shown is not None and sorted(shown[1].split("|")) == sorted(served)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_uses_human_metavars_and_ends_with_examples(command: str) -> None:
    res = run_cli([command, "--help"], env={"COLUMNS": "200"})
    assert "<" not in res.stdout.split("Examples:")[0], res.stdout  # no <list[Path]>, <int range>
    assert not re.search(r"\b(TEXT|list\[|int range|float range)\b", res.stdout), res.stdout
    examples = res.stdout.split("Examples:\n", 1)[1]
    for line, what in EXAMPLES[command]:
        assert f"  $ {line}\n      {what}\n" in examples  # whole, never wrapped


def test_top_level_lists_whole_summaries() -> None:
    res = run_cli(["--help"], env={"COLUMNS": "200"})
    group = typer.main.get_command(app)
    flat = re.sub(r"-\s+", "-", " ".join(res.stdout.split()))  # help wraps (at hyphens too)
    for name, cmd in getattr(group, "commands", {}).items():
        first = (cmd.help or "").splitlines()[0]
        assert f" {name} {first}" in flat
    assert "..." not in res.stdout.split("Commands:")[1]
    assert "--config FILE" in res.stdout and "--color auto|always|never" in res.stdout


@pytest.mark.parametrize("command", sorted(EXAMPLES))
def test_examples_use_real_flags_and_files(command: str) -> None:
    group = typer.main.get_command(app)
    cmd = getattr(group, "commands", {})[command]
    flags = {o for p in [*cmd.params, *group.params] for o in (*p.opts, *p.secondary_opts)}
    for line, _ in EXAMPLES[command]:
        words = shlex.split(line)
        assert words[0] == "toolcall" and command in words
        for w in words:
            assert not w.startswith("-") or w in flags, f"{line}: {w} is not a flag"
            if w.startswith("fixtures/"):
                assert (ROOT / w).exists(), f"{line}: {w} does not exist"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["diagnose", "--trace", "x"], "No such option: --trace. Did you mean --trace-id?"),
        (["replay", "--sesion-id", "x"], "Did you mean --session-id?"),
        (["--colr", "never", "rules"], "Did you mean --color?"),
    ],
)
def test_unknown_flag_suggests_the_likely_one(args: list[str], expected: str) -> None:
    res = run_cli(args)
    assert res.exit_code == 2
    assert expected in res.stderr and "--source" not in res.stderr


@pytest.mark.parametrize(
    ("code", "hint"),
    [("FL01", "did you mean FL001?"), ("modelloop", "did you mean model-loop?")],
)
def test_unknown_rule_suggests_the_likely_code(code: str, hint: str) -> None:
    res = run_cli(["rules", code])
    assert res.exit_code == 2
    assert f"  hint: {hint}" in res.stderr


def test_format_a_command_does_not_render_is_refused_by_the_parser() -> None:
    res = run_cli(["rules", "-f", "sarif"])
    assert res.exit_code == 2
    assert "'sarif' is not one of 'table', 'json', 'markdown'" in res.stderr
