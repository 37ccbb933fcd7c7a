"""messages adapter against real third-party conversations (../shared/corpus/conversations)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import CORPUS
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages import ADAPTER

pytestmark = pytest.mark.corpus

CONV = CORPUS / "conversations"
FILES = sorted(p for p in CONV.rglob("*") if p.is_file()) if CONV.is_dir() else []
PYD = "pydantic-ai_vcr_cassettes"
VERCEL = "vercel-ai_provider_fixtures"
DATA = [p for p in FILES if not p.name.startswith(("LICENSE", "PROVENANCE"))]


def parse(corpus: Path, rel: str) -> pd.DataFrame:
    return ADAPTER.parse(corpus / "conversations" / rel, ParseOptions())


def calls(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["kind"] == "tool_call"].reset_index(drop=True)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:60])
def test_every_file_ingests(corpus: Path, path: Path) -> None:
    df = ADAPTER.parse(path, ParseOptions())
    assert list(df["seq"]) == list(range(len(df)))
    if path in DATA:
        assert ADAPTER.sniff(read_head(path, 65536), path) >= 60
        assert (df["kind"] != "unparsed").any()
        assert (df["kind"] == "unparsed").sum() == 0, df[df["kind"] == "unparsed"]["attrs"].tolist()
    else:  # licence texts: not conversations, but forced parsing counts them instead of raising
        assert ADAPTER.sniff(read_head(path, 65536), path) == 0
        assert (df["kind"] == "unparsed").all()


def test_tau_bench_airline_counts(corpus: Path) -> None:
    df = parse(corpus, "tau-bench/historical_trajectories__gpt-4o-airline.json")
    assert df["session_id"].nunique() == 200
    c = calls(df)
    assert len(c) == 1164
    assert (c["args"].str.startswith("{")).all()
    assert df["session_id"].iloc[0] == "historical_trajectories__gpt-4o-airline:0"
    assert c["origin"].iloc[0].split("#")[1].startswith("/0/traj/")
    # every label names the array index its pointers start with (`:109` ↔ `#/109/...`)
    place = df["session_id"].str.rsplit(":", n=1).str[1]
    pointer = df["origin"].str.split("#/").str[1].str.split("/").str[0]
    assert (place == pointer).all()
    by_session = df.groupby("session_id", sort=False)["seq"]
    assert by_session.apply(lambda s: s.is_monotonic_increasing).all()
    res = df[df["kind"] == "tool_result"]
    assert res["detail"].str.startswith("Error:").sum() == 73


def test_tau_bench_few_shot_transcripts(corpus: Path) -> None:
    df = parse(corpus, "tau-bench/few_shot_data__MockAirlineDomainEnv-few_shot.jsonl")
    assert df["session_id"].nunique() == 19
    assert "Error: user not found" in set(df[df["kind"] == "tool_result"]["detail"])


def test_gemini_empty_call_id_is_kept(corpus: Path) -> None:
    df = parse(
        corpus,
        "pydantic-ai_vcr_cassettes/"
        "models__test_openai__test_compatible_api_with_tool_calls_without_id.yaml",
    )
    c = calls(df)
    # the response's call keeps its empty id; the client re-ids it on replay (pyd_ai_…), and that
    # call is emitted too, marked replay_of, so its result pairs by id (test_messages_cassette.py)
    assert len(c) == 2
    assert c.loc[0, "tool_call_id"] == ""
    assert c.loc[0, "tool"] == "get_current_time"
    assert str(c.loc[1, "tool_call_id"]).startswith("pyd_ai_")


def test_dashscope_chunks_keep_first_id(corpus: Path) -> None:
    c = calls(parse(corpus, "vercel-ai_provider_fixtures/alibaba__alibaba-tool-call.chunks.txt"))
    assert len(c) == 1
    assert c.loc[0, "tool_call_id"] == "call_eee11723464a4b9eb8cee71d"
    assert c.loc[0, "args"] == '{"location": "San Francisco"}'


def test_mistral_continuation_keeps_name(corpus: Path) -> None:
    c = calls(parse(corpus, f"{VERCEL}/mistral__mistral-incremental-tool-call.chunks.txt"))
    assert c.loc[0, "tool"] == "webSearchTool"
    assert c.loc[0, "args"] == '{"query": "current Berlin weather"}'


def test_proxy_sse_index_starting_at_one(corpus: Path) -> None:
    c = calls(parse(corpus, f"{VERCEL}/openai-compatible__chat__anthropic-fallback-tool-call.sse"))
    assert c.loc[0, "tool_call_id"] == "toolu_sanitized"
    assert c.loc[0, "args"] == '{"path": "a.txt"}'


def test_gzip_sse_cassette(corpus: Path) -> None:
    df = parse(corpus, "llm-anthropic_cassettes/test_anthropic__test_tools.yaml")
    c = calls(df)
    assert len(c) == 2 and set(c["tool"]) == {"pelican_name_generator"}
    assert (df["kind"] == "tool_result").sum() == 2


def test_cassette_http_errors_are_provider_errors(corpus: Path) -> None:
    df = parse(corpus, f"{PYD}/models__test_openrouter__test_openrouter_errors_raised.yaml")
    errs = df[df["status"] == "error"]
    assert list(errs["http_status"]) == [429, 429, 429]
    assert all(json.loads(a)["provider_error"] for a in errs["attrs"])


def test_anthropic_parallel_tool_use_cassette(corpus: Path) -> None:
    df = parse(corpus, f"{PYD}/models__test_anthropic__test_multiple_parallel_tool_calls.yaml")
    assert len(calls(df)) == 4
    assert calls(df)["tool_call_id"].is_unique
    res = df[df["kind"] == "tool_result"]
    assert len(res) == 4 and all(json.loads(a)["follows_call"] for a in res["attrs"])


def test_toolbench_legacy_answers(corpus: Path) -> None:
    df = parse(corpus, "toolbench_answer_examples/G1_answer__10_ChatGPT_DFS_woFilter_w2.json")
    c = calls(df)
    assert list(c["tool"]) == [
        "transitaires_for_transitaires",
        "transitaire_for_transitaires",
        "Finish",
    ]
    assert {json.loads(a)["protocol"] for a in c["attrs"]} == {"legacy_function"}


def test_toolbench_finish_is_not_a_call_without_result(corpus: Path) -> None:
    from toolcall_cli.cli._inputs import evidence_for
    from toolcall_cli.diagnose.request import DiagnoseRequest
    from toolcall_cli.diagnose.run import diagnose

    folder = corpus / "conversations" / "toolbench_answer_examples"
    got = evidence_for([folder], store=Path("unused-store"), source=None, opts=ParseOptions())
    rep = diagnose(got.events, DiagnoseRequest(select=("OR001", "TR002")), inputs=got.inputs)
    # each chain ends with Finish (4 answers): none is a call that lost its result; the cut
    # observations ToolBench fed the model (`…"9...`) still are TR002
    assert sorted(f.code for f in rep.findings) == ["TR002"] * 3


def test_pydantic_ai_output_tool_is_not_a_call_without_result(corpus: Path) -> None:
    from toolcall_cli.cli._inputs import evidence_for
    from toolcall_cli.diagnose.request import DiagnoseRequest
    from toolcall_cli.diagnose.run import diagnose

    folder = corpus / "conversations" / PYD
    got = evidence_for([folder], store=Path("unused-store"), source=None, opts=ParseOptions())
    rep = diagnose(got.events, DiagnoseRequest(select=("OR001",)), inputs=got.inputs)
    # the cassettes that end on `final_result` (4) ended the run with its structured answer
    assert [f.tool for f in rep.findings if f.tool == "final_result"] == []
    finals = got.events[
        (got.events["kind"] == "tool_call") & (got.events["tool"] == "final_result")
    ]
    assert len(finals) >= 4


def test_functionary_id_less_calls(corpus: Path) -> None:
    df = parse(corpus, "functionary_test_cases/test_case.json")
    c = calls(df)
    assert c["tool_call_id"].isna().all()
    assert "l.remove(3.6)" in set(c["args"].str.split("\n").explode())
    assert c["args"].str.startswith("l=").sum() == 1  # raw python code kept, not JSON


OTHER = (
    sorted(
        p
        for d in ("bfcl", "nginx_logs", "pcap", "app_logs", "tool_schemas")
        for p in (CORPUS / d).rglob("*")
        if p.is_file()
    )
    if CORPUS.is_dir()
    else []
)


def test_other_corpus_formats_score_zero(corpus: Path) -> None:
    claimed = {p.name for p in OTHER if ADAPTER.sniff(read_head(p, 65536), p) > 0}
    # MCP sampling requests are real conversations (messages with tool_use/tool_result blocks).
    assert all(n.startswith("CreateMessageRequestParams__") for n in claimed), sorted(claimed)
    assert len(OTHER) > 100


def test_responses_additional_tools_are_a_declaration_not_an_empty_message(
    corpus: Path, tmp_path: Path
) -> None:
    """pydantic-ai's capability replay sends the Responses item `{"type": "additional_tools",
    "role": "developer", "tools": [lookup_refund_policy]}` after `load_capability` answered:
    tools added mid-conversation. It declares the tool (the session's registry has it, from
    there) instead of reading as an empty developer turn; a developer message with words is
    still a system message with its text (the negative)."""
    from toolcall_cli.tools.registry import registry_from_session

    rel = (
        f"{PYD}/test_tool_search__test_cross_provider_capability_replay"
        "[openai-responses-gpt-5.4-anthropic-claude-sonnet-4-5].yaml"
    )
    df = parse(corpus, rel)
    system = df[df["kind"] == "system"]
    assert not (system["detail"].isna() | (system["detail"] == "")).any()
    (added,) = system[
        system["origin"].str.endswith("/interactions/1/request/parsed_body/input/3/tools")
    ].itertuples()
    assert added.detail == "tools added: lookup_refund_policy"
    registry = registry_from_session(df)
    assert registry is not None
    where = registry.tools["lookup_refund_policy"].location
    assert where.startswith(str(added.origin)), where
    assert registry.tools["lookup_refund_policy"].schema["required"] == ["order_id"]
    body = {
        "model": "gpt-5.4",
        "input": [
            {"role": "developer", "content": "Answer in French."},
            {"role": "user", "content": "Hi"},
        ],
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body))
    got = ADAPTER.parse(path, ParseOptions())
    dev = got[got["kind"] == "system"]
    assert dev["detail"].tolist() == ["Answer in French."]
