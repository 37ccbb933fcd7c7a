"""A YAML alias bomb ("billion laughs") is refused in bounded time and memory, everywhere.

A 1 KB file of anchors aliasing anchors took `lint` over 120 s and 7 GB, and `diagnose` /
`replay --tools` ~43 s. Every YAML load goes through `model.yaml_safe`, which bounds aliases
before composing. Each case runs the CLI in a child with a deadline and an address-space limit.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolcall_cli.model.yaml_safe import YAMLBombError, safe_load

TOOLCALL = str(Path(sys.executable).with_name("toolcall"))
DEADLINE = 30.0
MEMORY = 3 << 30  # address space for the child (bytes): the bomb used 7 GB


def _bomb(levels: int = 9) -> str:
    text = "a: &a [" + ", ".join(['"lol"'] * 9) + "]\n"
    prev = "a"
    for name in "bcdefghijkl"[: levels - 1]:
        text += f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]\n"
        prev = name
    return text


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    start = time.monotonic()
    try:
        done = subprocess.run(
            [TOOLCALL, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=DEADLINE,
            preexec_fn=_limit,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"toolcall {' '.join(args)} still running after {DEADLINE:g} s")
    assert time.monotonic() - start < DEADLINE
    return done


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    bomb = _bomb()
    assert len(bomb) < 1200
    (tmp_path / "tools.yaml").write_text(bomb)
    (tmp_path / "cassette.yaml").write_text(
        "interactions:\n  - request: {body: x}\n" + bomb.replace("a: &a", "z: &a")
    )
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ["lint", "tools.yaml"],
        ["diagnose", "cassette.yaml"],
        ["replay", "cassette.yaml", "--session-id", "s", "--tools", "tools.yaml"],
    ],
    ids=["lint", "diagnose", "replay"],
)
def test_a_bomb_is_a_one_line_input_error(bundle: Path, args: list[str]) -> None:
    done = _cli(args, bundle)
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith("toolcall: error:")
    assert "YAML aliases expand to more than" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_cycle_is_refused() -> None:
    with pytest.raises(YAMLBombError, match="cycle"):
        safe_load("a: &x [1, *x]\n")


def test_ordinary_aliases_still_load() -> None:
    text = "base: &b {type: string}\nprops: {a: *b, c: *b}\n"
    assert safe_load(text) == {
        "base": {"type": "string"},
        "props": {"a": {"type": "string"}, "c": {"type": "string"}},
    }


def test_every_yaml_load_in_the_tree_goes_through_the_safe_loader() -> None:
    root = Path(__file__).resolve().parents[2] / "toolcall_cli"
    offenders = []
    for path in root.rglob("*.py"):
        if path.name == "yaml_safe.py":
            continue
        text = path.read_text()
        for call in re.findall(r"\byaml\.(?:\w*load\w*|compose\w*)\(", text):
            offenders.append(f"{path.relative_to(root)}: {call}")
    assert offenders == []
