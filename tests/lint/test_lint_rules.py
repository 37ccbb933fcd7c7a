"""Every SC rule fires on its positive fixture and stays silent on its negative one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from toolcall_cli.cli.commands.lint import ProfileName
from toolcall_cli.lint import LINT_RULES, LintOptions, lint_paths
from toolcall_cli.lint.engine import options_from_config
from toolcall_cli.lint.profiles import PROFILES
from toolcall_cli.lint.rules_names import _near_pairs, _one_edit
from toolcall_cli.model.findings import DOC_HEADINGS, RULES

RULE_DIRS = sorted((FIXTURES / "rules").glob("SC0*"))
CODES = [f"SC{n:03d}" for n in range(1, 15)]


def _options(d: Path) -> LintOptions:
    opts = json.loads((d / "options.json").read_text()) if (d / "options.json").exists() else {}
    if "lock" in opts:
        opts["lock"] = str(d / opts["lock"])
    return options_from_config(opts)


def _codes(path: Path, opts: LintOptions) -> list[str]:
    return [f.code for f in lint_paths([path], options=opts).findings]


def test_every_rule_has_fixtures() -> None:
    assert [d.name for d in RULE_DIRS] == CODES
    assert LINT_RULES.names() == CODES


@pytest.mark.parametrize("d", RULE_DIRS, ids=lambda d: d.name)
def test_positive_fires(d: Path) -> None:
    (pos,) = d.glob("positive.*")
    assert d.name in _codes(pos, _options(d))


@pytest.mark.parametrize("d", RULE_DIRS, ids=lambda d: d.name)
def test_negative_silent(d: Path) -> None:
    (neg,) = d.glob("negative.*")
    assert _codes(neg, _options(d)) == []  # the negatives are clean tools: no rule fires


@pytest.mark.parametrize("code", CODES)
def test_rule_docs(code: str) -> None:
    r = RULES.get(code)
    for heading in DOC_HEADINGS:
        assert heading in r.doc, (code, heading)
    assert r.summary and r.name


def test_profile_choices_match_profiles() -> None:
    assert {p.value for p in ProfileName} == set(PROFILES)


def test_duplicates_across_files() -> None:
    reg = FIXTURES / "schemas" / "registry"
    fs = lint_paths([reg / "a.json", reg / "b.json"]).findings
    dup = [f for f in fs if f.code == "SC002"]
    assert len(dup) == 1
    path = dup[0].location.path
    assert path is not None and path.endswith("b.json") and "a.json:3" in dup[0].message
    near = [f for f in fs if f.code == "SC004"]
    assert len(near) == 1 and "equal ignoring case" in near[0].message
    # identical re-declarations override nothing: silent
    a = reg / "a.json"
    assert not [f for f in lint_paths([a, a.parent / "." / "a.json"]).findings if f.code == "SC002"]


def test_near_names() -> None:
    assert _one_edit("get_user", "get_users") and _one_edit("abc", "abd") and _one_edit("abc", "ac")
    assert not _one_edit("ab", "ba") and not _one_edit("abc", "abc") and not _one_edit("a", "abc")
    pairs = _near_pairs(["get_user", "list_orders", "get_users", "GET_USER", "ab", "ba"])
    assert pairs == {("get_user", "get_users"), ("get_user", "GET_USER")}


def test_finetuned_profile_never_asks_for_forbidden_keywords() -> None:
    pos = FIXTURES / "rules" / "SC005" / "positive.json"
    assert "SC005" in _codes(pos, LintOptions(profile="openai-strict"))
    assert "SC005" not in _codes(pos, LintOptions(profile="openai-strict-finetuned"))
    num = FIXTURES / "rules" / "SC006" / "positive.json"
    assert "SC006" not in _codes(num, LintOptions(profile="openai-strict-finetuned"))
    # and the fine-tuned profile rejects the bounds the negatives carry
    neg = FIXTURES / "rules" / "SC005" / "negative.json"
    msgs = [
        f.message
        for f in lint_paths([neg], options=LintOptions(profile="openai-strict-finetuned")).findings
    ]
    assert any('"minLength" is not supported' in m for m in msgs)
    assert any('"maximum" is not supported' in m for m in msgs)


def test_strict_opt_in_under_plain_openai_profile() -> None:
    # get_time declares "strict": true and is strict-clean
    f = FIXTURES / "schemas" / "openai_tools.json"
    assert _codes(f, LintOptions(profile="openai")) == []
    strict = FIXTURES / "rules" / "SC011" / "positive.json"
    assert "SC011" in _codes(strict, LintOptions(profile="openai-strict"))
    assert "SC011" in _codes(strict, LintOptions(profile="openai"))  # allOf at the top level
    assert "SC011" not in _codes(strict, LintOptions(profile="generic"))


def test_mcp_and_anthropic_need_an_object_root(tmp_path: Path) -> None:
    f = tmp_path / "t.json"
    f.write_text(json.dumps([{"name": "x", "description": "d", "inputSchema": {"type": "string"}}]))
    assert "SC011" in _codes(f, LintOptions(profile="mcp"))
    assert "SC011" not in _codes(f, LintOptions(profile="generic"))


def test_strict_limits(tmp_path: Path) -> None:
    props = {f"p{i}": {"type": "string", "enum": [f"v{i}"]} for i in range(1001)}
    schema = {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }
    f = tmp_path / "big.json"
    f.write_text(
        json.dumps(
            {
                "tools": [
                    {
                        "type": "function",
                        "function": {"name": "big", "description": "d", "parameters": schema},
                    }
                ]
            }
        )
    )
    msgs = [
        x.message
        for x in lint_paths([f], options=LintOptions(profile="openai-strict")).findings
        if x.code == "SC011"
    ]
    assert any("1001 enum values exceeds the limit of 1,000" in m for m in msgs)


def test_select_and_ignore() -> None:
    f = FIXTURES / "schemas" / "weather_bad.json"
    every = {x.code for x in lint_paths([f], options=LintOptions(profile="openai")).findings}
    assert {"SC003", "SC007", "SC008", "SC014"} <= every
    only = {
        x.code
        for x in lint_paths([f], options=LintOptions(profile="openai", select=("SC00",))).findings
    }
    assert only == {c for c in every if c.startswith("SC00")}
    rest = {
        x.code
        for x in lint_paths(
            [f], options=LintOptions(profile="openai", ignore=("SC003", "SC01"))
        ).findings
    }
    assert rest == {c for c in every if c != "SC003" and not c.startswith("SC01")}


def test_sc001_reports_invalid_keywords_not_bfcl_types(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_text(
        json.dumps(
            {
                "name": "f",
                "description": "d",
                "parameters": {
                    "type": "dict",
                    "properties": {"x": {"type": "float", "pattern": "(", "description": "x"}},
                },
            }
        )
        + "\n"
    )
    fs = lint_paths([f]).findings
    sc001 = [x for x in fs if x.code == "SC001"]
    assert len(sc001) == 1 and "regex" in sc001[0].message
    assert sc001[0].location.pointer == "/parameters/properties/x/pattern"
    assert {x.code for x in fs} >= {"SC010"}


def test_hostile_schemas_never_crash(tmp_path: Path) -> None:
    deep: dict[str, object] = {"type": "object"}
    cur = deep
    for _ in range(400):  # 800 JSON levels: more than orjson serialises, less than it parses
        nxt: dict[str, object] = {"type": "object"}
        cur["properties"] = {"x": nxt}
        cur = nxt
    weird = {"type": 5, "properties": [1], "required": "x", "enum": "y", "pattern": "["}
    bad_regex = {
        "type": "object",
        "properties": {"p": {"type": "string", "pattern": "[", "default": "x"}},
    }
    for name, params in (("deep", deep), ("weird", weird), ("regex", bad_regex), ("str", "string")):
        f = tmp_path / f"{name}.json"
        f.write_text(
            json.dumps(
                {"tools": [{"type": "function", "function": {"name": name, "parameters": params}}]}
            )
        )
        for profile in PROFILES:
            codes = _codes(f, LintOptions(profile=profile))
            assert "SC001" in codes, (name, profile)
    deep_msgs = [
        x.message for x in lint_paths([tmp_path / "deep.json"]).findings if x.code == "SC001"
    ]
    assert deep_msgs == ["schema nested 801 levels deep (over 100); not analysed further"]
