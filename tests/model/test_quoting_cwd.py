"""Quotes are cached per file as the working directory names it, not as an origin spells it.

Origins are relative (`bundle/middleware-0.log:128`); two diagnose runs in one process from two
directories (tests, a long-lived caller) quote two different files of that name. Cached by the
relative path, the second run quoted the first run's lines.
"""

from __future__ import annotations

import os
from pathlib import Path

from toolcall_cli.model.quoting import input_files


def test_same_relative_path_in_two_directories(tmp_path: Path) -> None:
    big = 40 << 20  # past the whole-file cache: the line-start index path
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        with (tmp_path / name / "x.log").open("w") as f:
            f.write(f"{name} first\n")
            f.write("." * big + "\n")
        (tmp_path / name / "d.json").write_text(f'{{"who": "{name}"}}')
    before = Path.cwd()
    try:
        got = []
        for name in ("one", "two"):
            os.chdir(tmp_path / name)
            got.append((input_files.line("x.log", 1), input_files.document("d.json")))
    finally:
        os.chdir(before)
        input_files.clear_cache()
    assert got == [("one first", {"who": "one"}), ("two first", {"who": "two"})]
