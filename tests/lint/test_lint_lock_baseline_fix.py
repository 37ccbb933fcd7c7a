"""Lock file and drift (SC012), baselines, and --fix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import FIXTURES, run_cli
from toolcall_cli.lint import LintOptions, lint_paths
from toolcall_cli.lint.lock import diff_schemas

RULES = FIXTURES / "rules"


def _kinds(old: object, new: object) -> list[tuple[str, bool]]:
    return [(c.kind, c.breaking) for c in diff_schemas(old, new)]


def test_diff_classification() -> None:
    base = {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "string", "enum": ["x", "y"]}},
        "required": ["a"],
    }
    removed = {**base, "properties": {"a": {"type": "number"}}}
    assert ("property removed", True) in _kinds(base, removed)
    assert ("newly required", True) in _kinds(base, {**base, "required": ["a", "b"]})
    narrowed = json.loads(json.dumps(base))
    narrowed["properties"]["a"]["type"] = "integer"
    assert ("type narrowed", True) in _kinds(base, narrowed)
    assert ("type widened", False) in _kinds(narrowed, base)
    shrunk = json.loads(json.dumps(base))
    shrunk["properties"]["b"]["enum"] = ["x"]
    assert ("enum shrunk", True) in _kinds(base, shrunk)
    assert ("enum grown", False) in _kinds(shrunk, base)
    added = json.loads(json.dumps(base))
    added["properties"]["c"] = {"type": "string"}
    assert _kinds(base, added) == [("property added", False)]
    described = json.loads(json.dumps(base))
    described["properties"]["a"]["description"] = "now documented"
    assert _kinds(base, described) == [("description changed", False)]


def test_update_lock_then_drift(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    shutil.copy(RULES / "SC012" / "negative.json", tools)
    res = run_cli(["lint", "tools.json", "--update-lock", "-f", "json"], cwd=tmp_path)
    assert res.exit_code == 0, res.output
    lock = json.loads((tmp_path / "toolcall.lock").read_text())
    assert (
        set(lock["tools"]) == {"get_weather"} and len(lock["tools"]["get_weather"]["sha256"]) == 64
    )
    assert run_cli(["lint", "tools.json", "--lock", "toolcall.lock"], cwd=tmp_path).exit_code == 0
    # non-breaking drift: a new optional property → warning, exit 0 at --fail-on error
    doc = json.loads(tools.read_text())
    props = doc["tools"][0]["function"]["parameters"]["properties"]
    props["lang"] = {"type": "string", "minLength": 1, "description": "Language."}
    tools.write_text(json.dumps(doc, indent=2))
    res = run_cli(["lint", "tools.json", "--lock", "toolcall.lock", "-f", "json"], cwd=tmp_path)
    out = json.loads(res.stdout)
    assert res.exit_code == 0 and [f["severity"] for f in out["findings"]] == ["warning"]
    assert "non-breaking" in out["findings"][0]["message"]
    # breaking: a property removed, and a tool removed from the registry
    del props["units"]
    doc["tools"][0]["function"]["name"] = "get_weather_v2"
    tools.write_text(json.dumps(doc, indent=2))
    res = run_cli(["lint", "tools.json", "--lock", "toolcall.lock", "-f", "json"], cwd=tmp_path)
    out = json.loads(res.stdout)
    assert res.exit_code == 1
    msgs = {f["message"]: f for f in out["findings"]}
    removed = next(f for m, f in msgs.items() if "was removed" in m)
    assert (
        removed["file"] == "toolcall.lock"
        and removed["line"] == 3
        and removed["pointer"] == "/tools/get_weather"
    )
    assert any("not in the lock (added)" in m for m in msgs)


def test_missing_lock_is_an_input_error(tmp_path: Path) -> None:
    res = run_cli(
        ["lint", str(RULES / "SC012" / "negative.json"), "--lock", str(tmp_path / "nope.lock")]
    )
    assert res.exit_code == 3 and "lock file not found" in res.stderr


def test_baseline_suppresses_by_fingerprint_not_line(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    shutil.copy(FIXTURES / "schemas" / "weather_bad.json", tools)
    res = run_cli(
        ["lint", "tools.json", "--baseline", "base.json", "--update-baseline", "-f", "json"],
        cwd=tmp_path,
    )
    assert res.exit_code == 0 and json.loads(res.stdout)["findings"] == []
    assert len(json.loads((tmp_path / "base.json").read_text())["fingerprints"]) == 4
    # lines move (pretty → 4-space indent): still suppressed
    tools.write_text(json.dumps(json.loads(tools.read_text()), indent=4))
    res = run_cli(["lint", "tools.json", "--baseline", "base.json", "-f", "json"], cwd=tmp_path)
    out = json.loads(res.stdout)
    assert res.exit_code == 0 and out["summary"]["suppressed"] == 4 and out["findings"] == []
    # a new problem is reported
    doc = json.loads(tools.read_text())
    del doc["tools"][1]["function"]["parameters"]["additionalProperties"]
    tools.write_text(json.dumps(doc, indent=4))
    out = json.loads(
        run_cli(
            ["lint", "tools.json", "--baseline", "base.json", "-f", "json"], cwd=tmp_path
        ).stdout
    )
    assert [(f["code"], f["tool"]) for f in out["findings"]] == [("SC007", "get_time")]


def test_update_baseline_needs_baseline() -> None:
    res = run_cli(["lint", str(FIXTURES / "schemas" / "weather_bad.json"), "--update-baseline"])
    assert res.exit_code == 2 and "--baseline" in res.stderr


def test_fix_keeps_order_and_indentation(tmp_path: Path) -> None:
    src = RULES / "SC011" / "positive.json"
    f = tmp_path / "tools.json"
    original = src.read_text().replace("\n  ", "\n    ")  # 4-space variant of the fixture
    f.write_text(original)
    before = lint_paths([f], options=LintOptions(profile="openai-strict")).findings
    assert any("missing units" in x.message for x in before)
    res = run_cli(
        ["lint", "tools.json", "--profile", "openai-strict", "--fix", "-f", "json"], cwd=tmp_path
    )
    out = json.loads(res.stdout)
    assert out["summary"]["fixed"]["edits"] == 1
    text = f.read_text()
    assert text.startswith('{\n    "tools": [\n        {') and text.endswith("}\n")
    params = json.loads(text)["tools"][0]["function"]["parameters"]
    assert params["required"] == ["city", "days", "units"]
    assert params["properties"]["units"]["type"] == ["string", "null"]
    assert list(params) == ["type", "properties", "required", "additionalProperties", "allOf"]
    # allOf is not safely fixable: it is still reported
    assert [f["code"] for f in out["findings"]] == ["SC011"] and "allOf" in out["findings"][0][
        "message"
    ]


def test_fix_adds_additional_properties_false(tmp_path: Path) -> None:
    f = tmp_path / "tools.json"
    shutil.copy(RULES / "SC007" / "positive.json", f)
    res = run_cli(["lint", "tools.json", "--fix", "-f", "json"], cwd=tmp_path)
    assert res.exit_code == 0 and json.loads(res.stdout)["findings"] == []
    params = json.loads(f.read_text())["tools"][0]["function"]["parameters"]
    assert list(params)[-1] == "additionalProperties" and params["additionalProperties"] is False


def test_fix_leaves_yaml_and_jsonl_alone(tmp_path: Path) -> None:
    y = tmp_path / "tools.yaml"
    shutil.copy(FIXTURES / "schemas" / "tools.yaml", y)
    before = y.read_text()
    out = json.loads(run_cli(["lint", "tools.yaml", "--fix", "-f", "json"], cwd=tmp_path).stdout)
    assert y.read_text() == before
    assert out["summary"]["fixed"]["not_fixable"] == ["tools.yaml"]
