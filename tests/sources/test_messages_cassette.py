"""VCR cassettes: replayed history is deduplicated without separating a result from its call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from tests.conftest import CORPUS
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages import ADAPTER

CONV = CORPUS / "conversations"
MULTI_AGENT = "pydantic-ai_vcr_cassettes/models__test_openai__test_multiple_agent_tool_calls.yaml"
NO_ID = (
    "pydantic-ai_vcr_cassettes/"
    "models__test_openai__test_compatible_api_with_tool_calls_without_id.yaml"
)


def _is_cassette(path: Path) -> bool:
    head = read_head(path, 4096).decode("utf-8", errors="replace").lstrip()
    return head.startswith("interactions:") or (
        path.suffix == ".json" and head.startswith("{") and '"interactions"' in head
    )


CASSETTES = (
    sorted(p for p in CONV.rglob("*") if p.is_file() and _is_cassette(p)) if CONV.is_dir() else []
)


def _orphan_results(df: pd.DataFrame) -> list[str]:
    """Results whose non-empty id matches no tool_call emitted earlier in the same session."""
    rows = df.astype(object).where(df.notna(), None).to_dict("records")
    first: dict[tuple[Any, Any], int] = {}
    for row in rows:
        if row["kind"] == "tool_call":
            first.setdefault((row["session_id"], row["tool_call_id"]), int(row["seq"]))
    bad = []
    for row in rows:
        if row["kind"] != "tool_result" or not row["tool_call_id"]:
            continue
        at = first.get((row["session_id"], row["tool_call_id"]))
        if at is None or at >= int(row["seq"]):
            bad.append(f"{row['tool_call_id']} at {row['origin']}")
    return bad


def _ids(rows: pd.DataFrame) -> list[str | None]:
    return [None if pd.isna(x) else str(x) for x in rows["tool_call_id"]]


@pytest.mark.corpus
def test_corpus_has_cassettes(corpus: Path) -> None:
    assert len(CASSETTES) >= 20


@pytest.mark.corpus
@pytest.mark.parametrize("path", CASSETTES, ids=lambda p: p.stem[:70])
def test_every_result_follows_its_call(corpus: Path, path: Path) -> None:
    df = ADAPTER.parse(path, ParseOptions())
    assert _orphan_results(df) == []


@pytest.mark.corpus
def test_reid_call_after_provider_switch_is_kept_with_its_result(corpus: Path) -> None:
    """Gemini's id-less call, re-sent to OpenAI as pyd_ai_504…: same name+args, different id."""
    df = ADAPTER.parse(corpus / "conversations" / MULTI_AGENT, ParseOptions())
    calls = df[df["kind"] == "tool_call"].reset_index(drop=True)
    assert _ids(calls) == [
        None,
        "pyd_ai_504f8147f83f44f3a5f14d87bfd01bda",
        "call_SkEQ3ZGSJC8m6AvaIGNuuKdm",
    ]
    assert calls["args"].tolist()[:2] == ['{"country":"France"}'] * 2
    replay = json.loads(str(calls.loc[1, "attrs"]))
    assert replay["replay_of"] == calls.loc[0, "origin"]
    assert "replay_of" not in json.loads(str(calls.loc[2, "attrs"]))
    res = df[df["tool_call_id"] == "pyd_ai_504f8147f83f44f3a5f14d87bfd01bda"]
    assert res["kind"].tolist() == ["tool_call", "tool_result"]
    assert json.loads(res["attrs"].iloc[1])["follows_call"] is True


@pytest.mark.corpus
def test_empty_id_call_and_its_reid_replay(corpus: Path) -> None:
    df = ADAPTER.parse(corpus / "conversations" / NO_ID, ParseOptions())
    calls = df[df["kind"] == "tool_call"].reset_index(drop=True)
    assert _ids(calls) == ["", "pyd_ai_cee885c699414386a7e14b7ec43cadbc"]
    assert json.loads(str(calls.loc[1, "attrs"]))["replay_of"] == calls.loc[0, "origin"]
    assert _ids(df[df["kind"] == "tool_result"]) == [_ids(calls)[1]]


def _chat(uri: str, messages: list[dict[str, Any]], reply: dict[str, Any]) -> dict[str, Any]:
    return {
        "request": {"uri": uri, "method": "POST", "parsed_body": {"messages": messages}},
        "response": {
            "status": {"code": 200},
            "parsed_body": {"choices": [{"message": reply, "finish_reason": "stop"}]},
        },
    }


def _call(cid: str | None, name: str, args: str) -> dict[str, Any]:
    tc: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": args}}
    if cid is not None:
        tc["id"] = cid
    return {"role": "assistant", "tool_calls": [tc]}


def _parse(tmp_path: Path, interactions: list[dict[str, Any]]) -> pd.DataFrame:
    path = tmp_path / "cassette.yaml"
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}))
    return ADAPTER.parse(path, ParseOptions())


def test_same_id_replayed_is_emitted_once(tmp_path: Path) -> None:
    uri = "https://api.openai.com/v1/chat/completions"
    user = {"role": "user", "content": "hi"}
    call = _call("call_1", "f", '{"a": 1}')
    res = {"role": "tool", "tool_call_id": "call_1", "content": "ok"}
    df = _parse(
        tmp_path,
        [
            _chat(uri, [user], call),
            _chat(uri, [user, call, res], {"role": "assistant", "content": "done"}),
            _chat(
                uri,
                [
                    user,
                    call,
                    res,
                    {"role": "assistant", "content": "done"},
                    {"role": "user", "content": "again"},
                ],
                {"role": "assistant", "content": "x"},
            ),
        ],
    )
    assert df["kind"].tolist() == [
        "user",
        "tool_call",
        "tool_result",
        "assistant_text",
        "user",
        "assistant_text",
    ]
    assert _orphan_results(df) == []


def test_idless_calls_match_by_name_and_args(tmp_path: Path) -> None:
    uri = "https://api.example.com/v1/chat/completions"
    user = {"role": "user", "content": "hi"}
    first = _call(None, "f", '{"a": 1}')
    other = _call(None, "f", '{"a": 2}')
    res = {"role": "tool", "content": "ok"}
    df = _parse(
        tmp_path,
        [
            _chat(uri, [user], first),
            # same name and arguments (re-rendered) and no id: the same call, not emitted again
            _chat(
                uri, [user, _call(None, "f", '{"a":1}'), res], {"role": "assistant", "content": "d"}
            ),
            # same name, other arguments, no id: history was rewritten, so it is emitted
            _chat(uri, [user, other, res], {"role": "assistant", "content": "e"}),
        ],
    )
    calls = df[df["kind"] == "tool_call"]
    assert calls["args"].tolist() == ['{"a": 1}', '{"a": 2}']
    assert all(json.loads(a).get("replay_of") is None for a in calls["attrs"])


def test_reid_of_answered_call_keeps_call_and_result_together(tmp_path: Path) -> None:
    """A client that re-ids a call on replay: the re-id'd call and its result stay paired."""
    uri = "https://api.openai.com/v1/chat/completions"
    user = {"role": "user", "content": "hi"}
    df = _parse(
        tmp_path,
        [
            _chat(uri, [user], _call("", "f", "{}")),
            _chat(
                uri,
                [
                    user,
                    _call("x_1", "f", "{}"),
                    {"role": "tool", "tool_call_id": "x_1", "content": "ok"},
                ],
                {"role": "assistant", "content": "d"},
            ),
            _chat(
                uri,
                [
                    user,
                    _call("x_2", "f", "{}"),
                    {"role": "tool", "tool_call_id": "x_2", "content": "ok"},
                ],
                {"role": "assistant", "content": "e"},
            ),
        ],
    )
    assert _orphan_results(df) == []
    calls = df[df["kind"] == "tool_call"]
    assert _ids(calls) == ["", "x_1", "x_2"]
    marks = [json.loads(a).get("replay_of") for a in calls["attrs"]]
    assert marks[1] == calls["origin"].iloc[0] and marks[2] is None  # one id-less call, one re-id
