"""Every BFCL v4 and MCP file in ../shared/corpus lints without error, with reviewed counts.

`corpus_counts.json` holds the findings per code per file under ``--profile openai`` (each file
linted on its own, as a registry of its own). It was written with ``pytest --update-goldens``
after reviewing samples of every code: dotted BFCL names → SC003, BFCL ``dict``/``float``/
``tuple``/``any`` → SC010, BFCL ``default: null`` on typed optional parameters → SC014, MCP's
root-level ``oneOf`` example → SC011, github-mcp-server's open objects → SC007. Java/JS type
names (``String``, ``long``, ``double``, ``HashMap``) are the JSON types `tools.dialect` maps them
to, so they also get SC005/SC006/SC007 like any string, number or object.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import read_golden
from toolcall_cli.errors import InputError
from toolcall_cli.lint import LintOptions, lint_paths
from toolcall_cli.tools.loaders import load_all

COUNTS = Path(__file__).with_name("corpus_counts.json")
BIG = "bfcl/gorilla_v4_data/BFCL_v4_live_multiple.json"


@pytest.mark.corpus
def test_corpus_counts(corpus: Path, update_goldens: bool) -> None:
    files = [Path(f.path) for f in load_all([corpus / "bfcl", corpus / "tool_schemas"]).files]
    assert len(files) > 150
    got: dict[str, dict[str, int]] = {}
    for f in files:
        rel = f.relative_to(corpus).as_posix()
        try:
            report = lint_paths([f], options=LintOptions(profile="openai", root=corpus))
        except InputError:  # no tool definition in the file: nothing to lint
            got[rel] = {"tools": 0}
            continue
        got[rel] = {"tools": report.summary["tools"], **report.summary["by_code"]}
        if rel == BIG:
            assert report.summary["tools"] == 4178  # bench/targets.py times this file
    assert got[BIG]["SC003"] > 0 and got[BIG]["SC010"] > 0
    assert got["bfcl/gorilla_v4_data/BFCL_v4_format_sensitivity.json"] == {"tools": 0}
    assert got["bfcl/gorilla_v4_data/BFCL_v4_multi_turn_base.json"] == {"tools": 0}
    fresh = json.dumps(got, indent=1, sort_keys=True) + "\n"
    assert got == json.loads(read_golden(COUNTS, fresh, update=update_goldens))
