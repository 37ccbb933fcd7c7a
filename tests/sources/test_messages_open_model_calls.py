"""Open-weight text protocols inside assistant content: positive, cut and negative fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolcall_cli.replay import replay
from toolcall_cli.sources import detect, parse_file
from toolcall_cli.sources.messages import call_blocks

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "messages" / "text_protocols"

#: fixture → (tool, arguments as seen, attrs that must be present) per call.
CALLS: dict[str, list[tuple[str, str, dict[str, object]]]] = {
    "function_tag_positive": [
        (
            "execute_bash",
            '{"command":"ls -R /workspace","timeout":30}',
            {"protocol": "function-tag"},
        )
    ],
    "function_tag_cut": [
        (
            "execute_bash",
            '{"command":"ls -R /workspace"',
            {"truncated": True, "cut_before": "</function>", "finish_reason": "stop"},
        )
    ],
    "function_tag_cut_param": [
        (
            "str_replace_editor",
            '{"command":"create","file_text":"def main():\\n    print(',
            {"truncated": True, "cut_before": "</parameter>", "finish_reason": "length"},
        )
    ],
    "harmony_positive": [
        (
            "execute_bash",
            '{"command":"ls -R /workspace"}',
            {"protocol": "harmony", "constrain": "json"},
        )
    ],
    "harmony_cut": [
        ("execute_bash", '{"command":"ls -R /works', {"truncated": True, "cut_before": "<|call|>"})
    ],
    "harmony_leak": [("execute_bash<|channel|>analysis", '{"command":"ls"}', {})],
    "mistral_args_positive": [
        ("execute_bash", '{"command": "ls -R /workspace"}', {"protocol": "mistral"}),
        ("execute_bash", '{"command": "pwd"}', {"protocol": "mistral"}),
    ],
    "mistral_args_cut": [("execute_bash", '{"command": "ls -R /wor', {"truncated": True})],
    "python_tag_positive": [
        ("execute_bash", '{"command": "ls -R /workspace"}', {"protocol": "python_tag"})
    ],
    "python_tag_builtin": [("brave_search", '{"query":"llama 3.1 release date"}', {})],
    "python_tag_cut": [("execute_bash", '{"command": "ls -R', {"truncated": True})],
    "bare_json_positive": [
        ("execute_bash", '{"command": "ls -R /workspace"}', {"protocol": "bare-json"})
    ],
    "bare_json_cut": [("execute_bash", '{"command": "ls -R /work', {"truncated": True})],
    # the OpenHands ↔ llama.cpp exchange of a gpt-oss deployment: the second call is cut by the
    # request's stop word before </function>; the first one's result came back as a user turn
    "openhands_llamacpp_exchange": [
        ("execute_bash", '{"command":"ls /workspace/astropy"}', {"protocol": "function-tag"}),
        (
            "execute_bash",
            '{"command":"ls -R /workspace"',
            {"truncated": True, "cut_before": "</function>", "stop_word": "</function"},
        ),
    ],
    "function_tag_negative": [],
    "harmony_negative": [],
    "mistral_negative": [],
    "python_tag_negative": [],
    "bare_json_negative": [],
}


def test_every_fixture_is_in_the_table() -> None:
    assert {p.stem for p in FIX.glob("*.json")} == set(CALLS)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_calls_as_seen(name: str) -> None:
    path = FIX / f"{name}.json"
    assert detect(path) == "messages"
    df = parse_file(path)
    calls = df[df["kind"] == "tool_call"]
    parsed = [json.loads(a) for a in calls["attrs"]]
    got = list(zip(calls["tool"], calls["args"], parsed, strict=True))
    assert [(t, a) for t, a, _ in got] == [(t, a) for t, a, _ in CALLS[name]]
    for (_, _, attrs), (_, _, want) in zip(got, CALLS[name], strict=True):
        assert {k: attrs.get(k) for k in want} == want
    texts = 2 if name == "openhands_llamacpp_exchange" else 1
    assert df["kind"].eq("assistant_text").sum() == texts  # the text is kept beside its calls
    if name == "openhands_llamacpp_exchange":
        res = df[df["kind"] == "tool_result"]
        assert res["tool"].tolist() == ["execute_bash"]
        assert str(res["detail"].iloc[0]).startswith("CHANGES.rst")


@pytest.mark.parametrize("name", sorted(n for n, calls in CALLS.items() if calls))
def test_text_protocol_calls_pass_the_id_checks(name: str) -> None:
    """These protocols carry no call id by design: replay must not reject them as empty-id."""
    df = parse_file(FIX / f"{name}.json")
    attrs = [json.loads(a) for a in df[df["kind"] == "tool_call"]["attrs"]]
    protocols = {a.get("protocol") for a in attrs}
    assert protocols <= call_blocks.PROTOCOLS, protocols
    rep = replay(df, session_id=str(df["session_id"].dropna().iloc[0]))
    assert rep.calls, name
    codes = [c.stages[0].code for c in rep.calls]
    assert not {"empty-id", "duplicate-id"} & set(codes), codes
    for call, a in zip(rep.calls, attrs, strict=True):  # a cut call fails as cut, nothing else
        assert call.stages[0].code == ("arguments-not-json" if a.get("truncated") else "ok")
