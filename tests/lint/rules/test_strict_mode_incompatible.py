"""SC011 strict-mode-incompatible: strict opt-in, object roots, rejected keywords, limits."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FIXTURES
from toolcall_cli.lint import LintOptions, lint_paths


def _codes(path: Path, opts: LintOptions) -> list[str]:
    return [f.code for f in lint_paths([path], options=opts).findings]


def test_finetuned_profile_rejects_the_bounds_others_ask_for() -> None:
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
