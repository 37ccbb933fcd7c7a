"""mcp adapter on sessions recorded with the official SDK: layouts, pairing, kinds, diagnose."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.conftest import FIXTURES, ROOT, attrs, run_cli
from toolcall_cli.sources import SOURCES
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import HEAD_BYTES, ParseOptions
from toolcall_cli.sources.mcp import ADAPTER

FX = FIXTURES / "mcp"
FULL = "session_2025-11-25"
LAYOUTS = (".jsonl", ".raw.jsonl", ".log")  # one recording; the Inspector keeps less


def parse(path: Path) -> pd.DataFrame:
    return ADAPTER.parse(path, ParseOptions())


def kinds(df: pd.DataFrame) -> dict[str, int]:
    return {str(k): int(v) for k, v in df["kind"].value_counts().sort_index().items()}


def cells(df: pd.DataFrame, *cols: str) -> list[tuple[Any, ...]]:
    return [
        tuple(None if pd.isna(v) else v for v in row)
        for row in df[list(cols)].itertuples(index=False)
    ]


@pytest.mark.parametrize("name", sorted(p.name for p in FX.iterdir()))
def test_every_fixture_is_claimed_with_the_top_score(name: str) -> None:
    path = FX / name
    head = read_head(path, HEAD_BYTES)
    sc = {n: int(ad.sniff(head, path)) for n, ad in SOURCES.items()}
    assert sc["mcp"] == (94 if name.endswith(".inspector.json") else 96)
    assert max(v for k, v in sc.items() if k != "mcp") < sc["mcp"]


def test_samples_exist() -> None:
    assert all((ROOT / s).is_file() for s in ADAPTER.samples)


#: MCP recordings outside fixtures/mcp: rule fixtures made by the same SDK generator.
MCP_RULE_FIXTURES = (FIXTURES / "rules" / "PR010",)


def test_scores_zero_on_every_other_fixture() -> None:
    others = [
        p
        for p in FIXTURES.rglob("*")
        if p.is_file()
        and "mcp" not in p.parts
        and p.suffix not in (".py", ".pyc")
        and p.parent not in MCP_RULE_FIXTURES
    ]
    hits = {str(p): s for p in others if (s := ADAPTER.sniff(read_head(p, HEAD_BYTES), p))}
    assert hits == {}


def test_a_single_saved_message_is_not_a_session(tmp_path: Path) -> None:
    path = tmp_path / "tools_list.response.json"
    path.write_text('{"result":{"tools":[{"name":"a"}]},"jsonrpc":"2.0","id":1}\n')
    assert ADAPTER.sniff(path.read_bytes(), path) == 0


EXPECTED = {
    "session_2025-11-25": {
        "mcp_cancelled": 1,
        "mcp_message": 7,
        "mcp_progress": 4,
        "mcp_tools_changed": 1,
        "system": 2,
        "tool_call": 6,
        "tool_result": 5,
    },
    "session_2025-06-18": {"mcp_message": 4, "system": 1, "tool_call": 2, "tool_result": 2},
    "session_2026-07-28": {
        "mcp_cancelled": 1,
        "mcp_message": 1,
        "mcp_progress": 4,
        "system": 1,
        "tool_call": 3,
        "tool_result": 2,
    },
}


@pytest.mark.parametrize("session", sorted(EXPECTED))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_counts_per_kind_in_every_layout(session: str, layout: str) -> None:
    df = parse(FX / f"{session}{layout}")
    assert kinds(df) == EXPECTED[session]
    assert set(df["session_id"]) == {session}
    assert set(df["source"]) == {"mcp"}


@pytest.mark.parametrize("layout", LAYOUTS[1:])
def test_layouts_agree_with_the_tee_recording(layout: str) -> None:
    cols = ("kind", "tool_call_id", "tool", "args", "status", "detail")
    tee, other = parse(FX / f"{FULL}.jsonl"), parse(FX / f"{FULL}{layout}")
    assert cells(other, *cols) == cells(tee, *cols)
    timed = layout == ".log"
    assert other["ts"].notna().all() if timed else other["ts"].isna().all()


def test_inspector_history_pairs_by_position() -> None:
    # the Inspector keeps {method, params} and the bare result: ids are history positions,
    # the handshake and server notifications are not in it, a timeout is an error result
    df = parse(FX / f"{FULL}.inspector.json")
    assert kinds(df) == {"mcp_message": 4, "system": 2, "tool_call": 6, "tool_result": 6}
    results = df[df["kind"] == "tool_result"]
    assert cells(results, "tool_call_id", "tool", "status") == [
        ("2", "add", "ok"),
        ("3", "slow_report", "error"),
        ("4", "lookup", "error"),
        ("5", "no_such_tool", "error"),
        ("7", "enable_extra", "ok"),
        ("9", "echo", "ok"),
    ]
    assert results["detail"].iloc[1] == "error: MCP error -32001: Request timed out"
    assert df["origin"].iloc[3] == f"{FX / FULL}.inspector.json#/1/response"
    assert df["ts"].isna().all()


def test_tools_call_pairs_into_call_and_result() -> None:
    df = parse(FX / f"{FULL}.jsonl")
    calls = df[df["kind"] == "tool_call"]
    assert cells(calls, "tool_call_id", "tool", "args") == [
        ("3", "add", '{"a":2,"b":3}'),
        ("4", "slow_report", '{"steps":10}'),
        ("5", "lookup", '{"key":"k-404"}'),
        ("6", "no_such_tool", "{}"),
        ("8", "enable_extra", "{}"),
        ("10", "echo", '{"text":"hello"}'),
    ]
    results = df[df["kind"] == "tool_result"]
    assert cells(results, "tool_call_id", "tool", "status", "detail") == [
        ("3", "add", "ok", "5"),
        ("5", "lookup", "error", "Error executing tool lookup"),
        ("6", "no_such_tool", "error", "Unknown tool: no_such_tool"),
        ("8", "enable_extra", "ok", "echo enabled"),
        ("10", "echo", "ok", "hello"),
    ]
    a = [attrs(x) for x in results["attrs"]]
    assert [x["is_error"] for x in a] == [False, True, True, False, False]
    assert a[0]["structured_content"] == {"result": 5}
    assert (results["duration_ms"] > 0).all()
    assert attrs(calls["attrs"].iloc[0])["protocol_version"] == "2025-11-25"


def test_progress_and_cancellation_name_the_slow_call() -> None:
    df = parse(FX / f"{FULL}.jsonl")
    prog = df[df["kind"] == "mcp_progress"]
    assert prog["tool_call_id"].tolist() == ["4"] * 4
    assert prog["detail"].tolist() == [f"step {k} of 10" for k in range(1, 5)]
    assert [attrs(a)["progress"] for a in prog["attrs"]] == [0, 1, 2, 3]
    cancel = df[df["kind"] == "mcp_cancelled"].iloc[0]
    assert (cancel["tool_call_id"], cancel["status"]) == ("4", "cancelled")
    assert cancel["detail"] == "timed out after 1.0s"
    assert attrs(cancel["attrs"])["direction"] == "client->server"


def test_tool_lists_are_declared_tools_and_the_change_sits_between() -> None:
    df = parse(FX / f"{FULL}.jsonl")
    lists = df[df["kind"] == "system"]
    names = [[t["name"] for t in attrs(a)["tools"]] for a in lists["attrs"]]
    assert names == [
        ["add", "slow_report", "lookup", "enable_extra"],
        ["add", "slow_report", "lookup", "enable_extra", "echo"],
    ]
    assert lists["detail"].tolist() == ["tools declared"] * 2
    changed = df.index[df["kind"] == "mcp_tools_changed"].tolist()
    assert lists.index[0] < changed[0] < lists.index[1]


def test_jsonrpc_error_is_a_result_with_status_error() -> None:
    df = parse(FX / f"{FULL}.jsonl")
    err = df[(df["kind"] == "mcp_message") & (df["status"] == "error")]
    assert len(err) == 1
    a = attrs(err["attrs"].iloc[0])
    assert (a["error_code"], a["method"]) == (-32603, "resources/read")
    assert err["detail"].iloc[0].startswith("JSON-RPC error -32603: ")


@pytest.mark.parametrize(
    ("session", "version"),
    [
        ("session_2025-06-18", "2025-06-18"),
        ("session_2025-11-25", "2025-11-25"),
        ("session_2026-07-28", "2026-07-28"),
    ],
)
def test_protocol_revision_is_recorded(session: str, version: str) -> None:
    df = parse(FX / f"{session}.jsonl")
    calls = df[df["kind"] == "tool_call"]
    assert {attrs(a)["protocol_version"] for a in calls["attrs"]} == {version}


def test_diagnose_shows_the_cancelled_call_without_result() -> None:
    out = run_cli(["diagnose", str(FX / f"{FULL}.jsonl"), "--format", "json"])
    assert out.exit_code == 1
    found = {(f["code"], tuple(f["tool_call_ids"])) for f in json.loads(out.stdout)["findings"]}
    assert ("OR001", ("4",)) in found
    assert ("PR002", ("6",)) in found  # no_such_tool is in neither declared list


def test_timeline_shows_the_is_error_result() -> None:
    path = str(FX / f"{FULL}.jsonl")
    out = run_cli(["timeline", path, "--tool-call-id", "5", "--format", "json"])
    assert out.exit_code == 0
    trace = json.loads(out.stdout)["traces"][0]
    assert [c["outcome"] for c in trace["calls"]] == ["result"]
    assert [(e["kind"], e["status"]) for e in trace["events"]] == [
        ("tool_call", None),
        ("tool_result", "error"),
    ]


@pytest.mark.corpus
def test_the_shared_corpus_is_neither_mcp_nor_har(corpus: Path) -> None:
    """Real third-party files (tools/list answers saved one per file, conversations, logs,
    captures) score 0 for both wire transcript adapters."""
    files = [p for p in corpus.rglob("*") if p.is_file()]
    assert len(files) > 100
    wire = [SOURCES.get("mcp"), SOURCES.get("har")]
    hits = {
        (str(p), ad.name): s
        for p in files
        for ad in wire
        if (s := ad.sniff(read_head(p, HEAD_BYTES), p))
    }
    assert hits == {}
