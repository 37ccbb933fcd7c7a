"""messages adapter: every fixture under fixtures/messages parses into the expected events."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import FIXTURES, ROOT, attrs, run_cli
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages import ADAPTER

FX = FIXTURES / "messages"


def parse(name: str) -> pd.DataFrame:
    return ADAPTER.parse(FX / name, ParseOptions())


def calls(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["kind"] == "tool_call"].reset_index(drop=True)


def first_origin(c: pd.DataFrame) -> str:
    """The ``origin`` of the first row; pandas types a cell as any scalar, so narrow it to str."""
    origin = c.loc[0, "origin"]
    assert isinstance(origin, str)
    return origin


def kinds(df: pd.DataFrame) -> list[str]:
    return list(df["kind"])


@pytest.mark.parametrize("sample", ADAPTER.samples)
def test_adapter_claims_its_samples(sample: str) -> None:
    path = ROOT / sample
    assert path.is_file(), sample
    assert ADAPTER.sniff(read_head(path, 65536), path) >= 60


@pytest.mark.parametrize("sample", ADAPTER.samples)
def test_samples_parse_in_order_with_origins(sample: str) -> None:
    df = ADAPTER.parse(ROOT / sample, ParseOptions())
    assert len(df) > 0
    assert list(df["seq"]) == list(range(len(df)))
    assert (df["source"] == "messages").all()
    assert df["origin"].str.startswith(str(ROOT / sample)).all()


def test_openai_array() -> None:
    df = parse("openai_array.json")
    assert kinds(df) == [
        "system",
        "user",
        "tool_call",
        "tool_call",
        "tool_result",
        "tool_result",
        "assistant_text",
    ]
    assert set(df["session_id"]) == {"openai_array"}
    c = calls(df)
    assert list(c["tool_call_id"]) == ["call_a1", "call_a2"]
    assert c.loc[0, "args"] == '{"city": "Paris",  "unit":"c"}'  # byte-identical
    assert first_origin(c).endswith("openai_array.json#/2/tool_calls/0")
    a = attrs(c.loc[1])
    assert (a["msg_index"], a["call_index"], a["turn"], a["protocol"]) == (2, 1, 1, "openai")
    res = df[df["kind"] == "tool_result"].reset_index(drop=True)
    assert list(res["detail"]) == ['{"temp": 18}', "22 degrees\nsunny"]
    assert list(res["size"]) == [12, 16]
    assert all(attrs(r)["follows_call"] for _, r in res.iterrows())
    assert df["ts"].isna().all()


def test_wrapper_ids_tools_and_timestamps() -> None:
    df = parse("openai_wrapped.json")
    assert set(df["session_id"]) == {"sess-42"}
    assert set(df["trace_id"]) == {"4bf92f3577b34da6a3ce929d0e0e4736"}
    first = df.iloc[0]
    assert (first["kind"], first["detail"]) == ("system", "tools declared")
    assert attrs(first)["tools"][0]["function"]["name"] == "send_email"
    call = calls(df).iloc[0]
    assert call["ts"] == pd.Timestamp("2024-05-01T10:00:01.250Z")
    result = df[df["kind"] == "tool_result"].iloc[0]
    assert attrs(result)["follows_call"] is False  # a user message came in between


def test_request_response_pair() -> None:
    df = parse("openai_request_response.json")
    assert kinds(df) == ["system", "system", "user", "tool_call"]
    call = calls(df).iloc[0]
    assert call["args"] == '{"date": "2024-06-01"}'
    assert attrs(call)["finish_reason"] == "tool_calls"
    assert attrs(call)["msg_index"] == 2
    assert call["ts"] == pd.Timestamp(1717200000, unit="s", tz="UTC")
    assert call["origin"].endswith("#/response/choices/0/message/tool_calls/0")


def test_truncated_response_keeps_args_and_finish_reason() -> None:
    call = calls(parse("openai_response.json")).iloc[0]
    assert call["args"] == '{"title": "Q3", "body": "Revenue grew'
    assert attrs(call)["finish_reason"] == "length"


def test_jsonl_one_session_per_line() -> None:
    df = parse("sessions.jsonl")
    assert list(dict.fromkeys(df["session_id"])) == ["s-1", "sessions:2", "conv-3"]
    assert set(df[df["session_id"] == "conv-3"]["trace_id"]) == {"t-3"}
    assert first_origin(calls(df)).endswith("sessions.jsonl:1#/messages/1/tool_calls/0")


def test_legacy_functions() -> None:
    df = parse("legacy_functions.json")
    call = calls(df).iloc[0]
    assert call["tool"] == "get_price"
    assert call["args"] == '{\n  "car": "Song"\n}'
    assert pd.isna(call["tool_call_id"])
    assert attrs(call)["protocol"] == "legacy_function"
    assert call["origin"].endswith("#/messages/1/function_call")
    res = df[df["kind"] == "tool_result"].iloc[0]
    assert res["tool"] == "get_price" and attrs(res)["follows_call"] is True
    assert attrs(df.iloc[0])["tools"][0]["name"] == "get_price"


def test_anthropic_blocks() -> None:
    df = parse("anthropic.json")
    assert kinds(df) == [
        "system",
        "system",
        "user",
        "assistant_text",
        "tool_call",
        "tool_result",
        "assistant_text",
        "tool_call",
    ]
    c = calls(df)
    assert list(c["tool_call_id"]) == ["toolu_01", "toolu_02"]
    assert c.loc[0, "args"] == '{"path":"a.txt"}'
    assert "args_type" not in attrs(c.loc[0])  # input is an object by protocol
    assert attrs(c.loc[1])["finish_reason"] == "tool_use"
    res = df[df["kind"] == "tool_result"].iloc[0]
    assert res["detail"] == "ENOENT: a.txt" and res["status"] == "error"
    assert attrs(res)["is_error"] is True and attrs(res)["follows_call"] is True
    assert res["origin"].endswith("#/request/messages/2/content/0")


def test_react() -> None:
    df = parse("react.json")
    c = calls(df)
    assert list(c["tool"]) == ["calculator", "weather"]
    assert list(c["args"]) == ['{"expression": "17 * 23"}', "Oslo, Norway"]
    assert {attrs(r)["protocol"] for _, r in c.iterrows()} == {"react"}
    obs = df[df["kind"] == "tool_result"].iloc[0]
    assert (obs["tool"], obs["detail"]) == ("calculator", "391")


def test_tagged_blocks_keep_args_verbatim() -> None:
    c = calls(parse("tagged.json"))
    assert list(c["tool"]) == ["get_weather", "get_time", "convert", "broken"]
    assert c.loc[0, "args"] == '{"city":  "Paris"}'
    assert list(c["tool_call_id"].isna()) == [True] * 4
    assert [attrs(r)["call_index"] for _, r in c.iterrows()] == [0, 1, 0, 0]
    assert attrs(c.loc[2])["tag"] == "|tool_call|"
    assert attrs(c.loc[3])["block_invalid"] is True and c.loc[3]["args"] == '{"a": 1'


def test_openai_stream_assembles_calls_by_index() -> None:
    df = parse("stream_openai.sse")
    c = calls(df)
    assert list(c["tool_call_id"]) == ["call_s1", "call_s2"]
    assert list(c["args"]) == ['{"city": "Paris"}', '{"tz": "UTC"}']
    assert {attrs(r)["protocol"] for _, r in c.iterrows()} == {"sse"}
    assert attrs(c.loc[0])["finish_reason"] == "tool_calls"
    assert first_origin(c).endswith("stream_openai.sse:3")
    assert df[df["kind"] == "assistant_text"].iloc[0]["detail"] == "Checking both."


def test_anthropic_stream() -> None:
    c = calls(parse("stream_anthropic.sse")).iloc[0]
    assert (c["tool_call_id"], c["tool"]) == ("toolu_s1", "search")
    assert c["args"] == '{"query": "say \\"hi\\""}'
    assert attrs(c)["finish_reason"] == "tool_use"


def test_chunk_lines_keep_first_id_and_name() -> None:
    df = parse("stream_chunks.jsonl")
    c = calls(df).iloc[0]
    assert (c["tool_call_id"], c["tool"]) == ("call_first", "weather")
    assert c["args"] == '{"location": "Oslo"}'
    bad = df[df["kind"] == "unparsed"]
    assert list(bad["detail"]) == ["this line is garbage"]
    assert bad.iloc[0]["origin"].endswith("stream_chunks.jsonl:3")


def test_wrong_types_become_unparsed_rows() -> None:
    df = parse("broken_types.json")
    assert set(df["session_id"]) == {"7"}
    bad = df[df["kind"] == "unparsed"]
    reasons = [attrs(r)["reason"] for _, r in bad.iterrows()]
    assert reasons == [
        "message role is missing or not a string",
        "tool_calls is not a list",
        "message is not an object",
        "tool call is not an object",
        "unknown message role 'wizard'",
    ]
    c = calls(df).set_index("tool")
    assert (c.loc["num_id", "tool_call_id"], c.loc["num_id", "args"]) == ("123", "12")
    assert attrs(c.loc["num_id"])["args_type"] == "number"
    assert attrs(c.loc["num_id"])["id_type"] == "int"
    obj = c.loc["obj_args"]
    assert (obj["args"], attrs(obj)["args_type"]) == ('{"a":1}', "object")
    assert attrs(c.loc["null_args"])["args_type"] == "null"
    assert attrs(c.loc["no_args"])["args_missing"] is True
    res = df[df["kind"] == "tool_result"].iloc[0]
    assert res["tool_call_id"] == "123" and pd.isna(res["detail"])


def test_partly_broken_jsonl_keeps_good_lines() -> None:
    df = parse("partly_broken.jsonl")
    assert (df["kind"] == "unparsed").sum() == 1
    assert df[df["kind"] == "unparsed"].iloc[0]["origin"].endswith("partly_broken.jsonl:2")
    assert set(df["session_id"].dropna()) == {"pb-1", "pb-3"}


def test_provider_error_body() -> None:
    row = parse("provider_error.json").iloc[0]
    assert (row["kind"], row["status"]) == ("system", "error")
    assert "preceeding message with 'tool_calls'" in row["detail"]
    assert attrs(row)["provider_error"] is True


def test_cassette_emits_conversation_once() -> None:
    df = parse("cassette.yaml")
    assert kinds(df) == ["system", "user", "tool_call", "tool_result", "system", "assistant_text"]
    assert set(df["session_id"]) == {"cassette"}
    assert calls(df)["tool_call_id"].tolist() == ["call_c1"]
    err = df.iloc[4]
    assert (err["status"], err["http_status"], err["detail"]) == (
        "error",
        429,
        "Rate limit reached for gpt-4o",
    )
    assert attrs(err)["provider"] == "openai"
    assert calls(df).iloc[0]["ts"] == pd.Timestamp("2024-06-03T10:00:00Z")
    assert df.iloc[3]["origin"].endswith("#/interactions/1/request/body/messages/2")


def test_cli_ingest_smoke() -> None:
    res = run_cli(["ingest", "--no-store", "--format", "json", str(FX / "openai_array.json")])
    assert res.exit_code == 0, res.stdout + res.stderr
    summary = json.loads(res.stdout)
    assert summary["summary"]["by_source"]["messages"]["tool_call"] == 2


def test_forced_on_non_json_file(tmp_path: Path) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("hello\nworld\n")
    assert ADAPTER.sniff(p.read_bytes(), p) == 0
    df = ADAPTER.parse(p, ParseOptions())
    assert list(df["kind"]) == ["unparsed", "unparsed"]


def test_naive_timestamps_take_tz(tmp_path: Path) -> None:
    p = tmp_path / "tz.json"
    msg = {"role": "user", "content": "x", "timestamp": "2024-05-01T12:00:00"}
    p.write_text(json.dumps({"messages": [msg]}))
    df = ADAPTER.parse(p, ParseOptions(tz="Europe/Berlin"))
    assert df.iloc[0]["ts"] == pd.Timestamp("2024-05-01T10:00:00Z")
