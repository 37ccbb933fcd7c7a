"""Every lint finding names file:line:col and its JSON pointer, so findings stay apart even
when the whole file is one line (minified JSON, JSONL records)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import ROOT, run_cli
from toolcall_cli.model.linemap import json_linemap

BAD = ROOT / "fixtures/schemas/weather_bad.json"


def test_json_linemap_columns_point_at_each_value() -> None:
    text = '{"a": [1, {"b": "x"}], "c": true}'
    m = json_linemap(text)
    for ptr, token in (("/a", "["), ("/a/1/b", '"x"'), ("/c", "true"), ("/a/0", "1")):
        col = m.column(ptr)
        assert col is not None and text[col - 1 :].startswith(token), ptr
        assert m.line(ptr) == 1
    assert m.column("/a/1/b/missing") == m.column("/a/1/b")  # nearest known parent
    assert json_linemap('{\n  "k":\n    [0]\n}').column("/k/0") == 6


def test_single_line_json_findings_have_distinct_columns(tmp_path: Path) -> None:
    minified = tmp_path / "min.json"
    minified.write_text(json.dumps(json.loads(BAD.read_text())))
    res = run_cli(["lint", str(minified), "-f", "json", "--fail-on", "never"])
    findings = json.loads(res.stdout)["findings"]
    assert len(findings) >= 3 and {f["line"] for f in findings} == {1}
    places = {(f["column"], f["pointer"]) for f in findings}
    assert len({c for c, _ in places}) == len(findings)  # one column per finding
    text = minified.read_text()
    for f in findings:  # the column is where the pointed-at value starts
        value = json.loads(text)
        for tok in f["pointer"].split("/")[1:]:
            value = value[int(tok)] if isinstance(value, list) else value[tok]
        assert json.loads(_value_at(text, f["column"])) == value, f


def _value_at(text: str, column: int) -> str:
    """The JSON value that starts at *column* of a one-line document."""
    dec = json.JSONDecoder()
    _, end = dec.raw_decode(text, column - 1)
    return text[column - 1 : end]


def test_table_shows_file_line_col_and_pointer(tmp_path: Path) -> None:
    minified = tmp_path / "min.json"
    minified.write_text(json.dumps(json.loads(BAD.read_text())))
    res = run_cli(["lint", str(minified), "--fail-on", "never"], env={"COLUMNS": "250"})
    lines = res.stdout.splitlines()
    assert lines[0].strip() == str(minified)  # the table's title: the file of every row
    rows = [ln for ln in lines if re.search(r"│\s+1:\d+ │", ln)]
    doc = json.loads(run_cli(["lint", str(minified), "-f", "json", "--fail-on", "never"]).stdout)
    assert len(rows) == len(doc["findings"])
    for f in doc["findings"]:
        assert any(f" 1:{f['column']} │" in r and f["pointer"] in r for r in rows), f


def test_yaml_and_jsonl_findings_carry_columns() -> None:
    for name in ("tools.yaml", "bfcl_functions.jsonl"):
        res = run_cli(["lint", f"fixtures/schemas/{name}", "-f", "json", "--fail-on", "never"],
                      cwd=ROOT)  # fmt: skip
        findings = json.loads(res.stdout)["findings"]
        assert findings and all(isinstance(f["column"], int) for f in findings), name
