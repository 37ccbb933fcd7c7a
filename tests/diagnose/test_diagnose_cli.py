"""`toolcall diagnose`: goldens for every format, the exit-code contract, store and -o plumbing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, assert_golden, run_cli

POSITIVE = "fixtures/rules/OR001/positive.json"
CLEAN = "fixtures/rules/OR001/negative.json"


@pytest.mark.parametrize("fmt", ["table", "json", "markdown", "sarif"])
def test_formats_golden(fmt: str, update_goldens: bool) -> None:
    assert_golden(
        f"diagnose/or001_{fmt}", ["diagnose", POSITIVE, "--format", fmt], update=update_goldens
    )


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("exit0_clean", ["diagnose", CLEAN]),
        ("exit1_findings", ["diagnose", POSITIVE, "--format", "json", "--select", "OR001"]),
        ("exit2_bad_fail_on", ["diagnose", POSITIVE, "--fail-on", "sometimes"]),
        ("exit2_bad_format", ["diagnose", POSITIVE, "--format", "jsonl"]),
        ("exit3_missing_input", ["diagnose", "fixtures/rules/OR001/no-such-file.json"]),
    ],
)
def test_exit_codes_golden(name: str, args: list[str], update_goldens: bool) -> None:
    assert_golden(f"diagnose/{name}", args, update=update_goldens)


def test_single_messages_file_alone() -> None:
    res = run_cli(["diagnose", POSITIVE, "--format", "json"])
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["schema_version"] == 1 and doc["tool"]["name"] == "toolcall"
    (f,) = doc["findings"]
    assert (
        f["code"] == "OR001"
        and f["breakpoint"] == "unknown"
        and f["tool_call_ids"] == ["call_book"]
    )
    assert f["evidence"][0]["origin"].endswith("positive.json#/messages/1/tool_calls/0")
    assert '"call_book"' in f["evidence"][0]["text"]
    assert set(doc["summary"]) >= {"traces", "sessions", "calls", "events", "findings", "by_code"}


def test_fail_on_select_ignore_and_quiet() -> None:
    assert run_cli(["diagnose", POSITIVE, "--fail-on", "never"]).exit_code == 0
    assert run_cli(["diagnose", POSITIVE, "--ignore", "OR"]).exit_code == 0
    assert run_cli(["diagnose", POSITIVE, "--select", "FL,IN"]).exit_code == 0
    warn = "fixtures/rules/FL003/positive.json"  # an id reused in a later turn: a warning
    assert run_cli(["diagnose", warn]).exit_code == 0
    assert run_cli(["diagnose", warn, "--fail-on", "warning"]).exit_code == 1
    quiet = run_cli(["--quiet", "diagnose", POSITIVE])
    assert quiet.stderr == "" and "OR001" in quiet.stdout


def test_output_file_and_store(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    res = run_cli(["diagnose", POSITIVE, "-f", "markdown", "-o", str(out)])
    assert res.exit_code == 1 and res.stdout == ""
    assert out.read_text().startswith(
        "**toolcall diagnose**: 1 incident (root cause), 0 symptoms: 1 error"
    )
    store = tmp_path / "store"
    assert run_cli(["ingest", POSITIVE, "--store", str(store)]).exit_code == 0
    from_store = run_cli(["diagnose", "--store", str(store), "-f", "json"])
    assert from_store.exit_code == 1
    assert [f["code"] for f in json.loads(from_store.stdout)["findings"]] == ["OR001"]
    empty = run_cli(["diagnose", "--store", str(tmp_path / "none")])
    assert empty.exit_code == 3 and "empty" in empty.stderr


def test_thresholds_from_config(tmp_path: Path) -> None:
    bundle = FIXTURES / "rules" / "IN002"
    paths = [str(p) for p in sorted(bundle.glob("positive.*"))]
    strict = run_cli(["diagnose", *paths, "--select", "IN002", "-f", "json"])
    assert strict.exit_code == 0  # a warning, below the default --fail-on error
    found = json.loads(strict.stdout)["findings"]
    assert [(f["code"], f["severity"]) for f in found] == [("IN002", "warning")]
    assert "+2700 ms" in found[0]["message"] and "tolerance 500 ms" in found[0]["message"]
    loose = tmp_path / "toolcall.toml"
    loose.write_text("[tolerance]\nskew_ms = 10000\n")
    res = run_cli(["--config", str(loose), "diagnose", *paths, "--select", "IN002", "-f", "json"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["findings"] == []  # the same skew, now inside the tolerance


def test_hostile_text_is_neutralised_in_table_and_markdown(tmp_path: Path) -> None:
    evil = tmp_path / "evil.json"
    evil.write_text(json.dumps({"messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "[red]boom\u001b[31m", "arguments": "{}"}}]},
        {"role": "user", "content": "y"}]}))  # fmt: skip
    table = run_cli(["diagnose", str(evil)])
    assert "\x1b" not in table.stdout and "\\x1b" in table.stdout
    md = run_cli(["diagnose", str(evil), "-f", "markdown"])
    assert "\x1b" not in md.stdout and "\\[red\\]" in md.stdout
