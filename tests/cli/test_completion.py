"""Shell completion in the real shells: bash, zsh and fish source toolcall's own script.

Each test asks the shell itself for the script (`toolcall --show-completion` detects the
shell it runs under) and completes a partial command line. bash and fish complete it with
their own machinery (`complete -F` function, `complete -C`); zsh runs the script's function
with the `_arguments` builtin replaced by a printer (it only works inside an interactive
completion widget), so the script's word slicing and protocol run in the real zsh.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import IN_CI

BIN = Path(sys.executable).parent


def _shell(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        if IN_CI:
            pytest.fail(f"{name} is missing; `make setup` installs it in CI")
        pytest.skip(f"{name} is not installed (apt-get install {name})")
    return path


def _run(shell: str, script: str, home: Path) -> str:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "HOME": str(home), "NO_COLOR": "1"}  # fmt: skip
    env.pop("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", None)
    res = subprocess.run([shell, "-c", script], capture_output=True, text=True, env=env,
                         timeout=60, check=False, cwd=home)  # fmt: skip
    assert res.returncode == 0, res.stderr
    return res.stdout


def _bash(words: str, home: Path) -> list[str]:
    script = (
        "source <(toolcall --show-completion); "
        f"COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); "
        '_toolcall_completion toolcall; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    return _run(_shell("bash"), script, home).split()


def test_bash_completes_commands_and_narrowed_formats(tmp_path: Path) -> None:
    assert _bash("toolcall rep", tmp_path) == ["replay"]
    assert _bash('toolcall rules -f ""', tmp_path) == ["table", "json", "markdown"]
    assert "--calibrate" in _bash("toolcall replay --ca", tmp_path)


def test_zsh_script_runs_in_zsh(tmp_path: Path) -> None:
    script = (
        "toolcall --show-completion > comp.zsh; "  # not the last command: zsh must not exec it
        'compdef() { :; }; _arguments() { print -r -- "$@"; }; source ./comp.zsh; '
        "words=(toolcall rep); CURRENT=2; _toolcall_completion; "
        "words=(toolcall lint -f ''); CURRENT=4; _toolcall_completion"
    )
    out = _run(_shell("zsh"), f"cd {tmp_path} && {script}", tmp_path)
    assert out.startswith("#compdef") is False  # the script went to the file, not stdout
    assert '"replay":"Replay a trace' in out
    assert all(f'"{f}"' in out for f in ("table", "json", "markdown", "sarif", "github"))
    assert '"html"' not in out  # lint does not render html


def test_fish_completes_with_its_own_engine(tmp_path: Path) -> None:
    out = _run(
        _shell("fish"),
        'toolcall --show-completion | source; complete -C "toolcall conf"; '
        'complete -C "toolcall diagnose --fail-"',
        tmp_path,
    )
    lines = [ln.split("\t")[0] for ln in out.splitlines()]
    assert lines == ["config", "--fail-on"]


def test_install_completion_writes_the_bash_script(tmp_path: Path) -> None:
    out = _run(_shell("bash"), "toolcall --install-completion; :", tmp_path)
    assert "bash completion installed" in out
    installed = tmp_path / ".bash_completions" / "toolcall.sh"
    assert "_toolcall_completion" in installed.read_text()
    assert "toolcall.sh" in (tmp_path / ".bashrc").read_text()
