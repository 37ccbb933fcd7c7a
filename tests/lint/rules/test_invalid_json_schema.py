"""SC001 invalid-json-schema: keyword errors (not BFCL types), and hostile schemas."""

from __future__ import annotations

import json
from pathlib import Path

from toolcall_cli.lint import LintOptions, lint_paths
from toolcall_cli.lint.profiles import PROFILES


def _codes(path: Path, opts: LintOptions) -> list[str]:
    return [f.code for f in lint_paths([path], options=opts).findings]


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
