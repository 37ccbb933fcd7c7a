"""mitm adapter on flows written by a real mitmdump (reverse proxy on loopback): detection,
wire events like a HAR's, the double submit, cut files, and exit 4 without mitmproxy."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import FIXTURES, attrs, need_module, run_cli
from toolcall_cli.errors import MissingDependencyError
from toolcall_cli.sources import SOURCES
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import HEAD_BYTES, ParseOptions
from toolcall_cli.sources.mitm import ADAPTER, HINT

FX = FIXTURES / "mitm"
HEALTHY = FX / "reverse_healthy.mitm"
DOUBLE = FX / "reverse_double_submit.mitm"


@pytest.fixture(autouse=True)
def _mitmproxy() -> None:
    need_module("mitmproxy", install="pip install 'toolcall[mitm]' or make mitm")


def parse(path: Path) -> pd.DataFrame:
    return ADAPTER.parse(path, ParseOptions())


def scores_of(path: Path) -> dict[str, int]:
    head = read_head(path, HEAD_BYTES)
    return {name: int(ad.sniff(head, path)) for name, ad in SOURCES.items()}


@pytest.mark.parametrize("sample", ADAPTER.samples)
def test_mitm_claims_its_samples_alone(sample: str) -> None:
    got = scores_of(FIXTURES.parent / sample)
    assert got["mitm"] == 97
    assert [n for n, s in got.items() if s and n != "mitm"] == []


def test_other_tnetstrings_and_har_are_not_flows(tmp_path: Path) -> None:
    not_a_flow = tmp_path / "x.tnet"
    not_a_flow.write_bytes(b"12:5:hello,1:a,]")  # a tnetstring list, no flow state
    assert ADAPTER.sniff(read_head(not_a_flow, HEAD_BYTES), not_a_flow) == 0
    har = FIXTURES / "har" / "playwright_healthy.har"
    assert ADAPTER.sniff(read_head(har, HEAD_BYTES), har) == 0


def test_a_turn_is_the_wire_exchanges_a_har_gives() -> None:
    df = parse(HEALTHY)
    assert set(df["source"]) == {"mitm"}
    counts = df["kind"].value_counts().to_dict()
    assert counts == {
        "http_request": 3,
        "http_response": 3,
        "tool_call": 1,
        "tool_result": 1,
        "system": 1,
    }
    req = df[df["kind"] == "http_request"]
    assert req["origin"].str.replace(str(HEALTHY), "", regex=False).tolist() == [
        "#/flows/0/request",
        "#/flows/1/request",
        "#/flows/2/request",
    ]
    assert set(req["session_id"]) == {"sess-mitm-healthy"}
    # the tool service answered gzip-compressed: decoded under the body cap, keys read
    tool_resp = df[(df["kind"] == "http_response") & (df["tool_call_id"] == "call_m1")]
    assert len(tool_resp) == 1
    row = tool_resp.iloc[0]
    assert (row["status"], int(row["http_status"]), row["tool"]) == ("ok", 200, "get_weather")
    a = attrs(row["attrs"])
    assert a["content_encoding"] == "gzip"
    assert a["call_id"] == "call_m1"
    assert set(a["timings"]) == {"send", "wait", "receive"}
    assert a["server_ip"] == "127.0.0.1"
    # the flow's duration is the response's latency
    assert 0 < float(row["duration_ms"]) < 1000


def test_double_submit_is_two_turns_and_fl002_names_it() -> None:
    df = parse(DOUBLE)
    calls = df[df["kind"] == "tool_call"]
    assert sorted(calls["tool_call_id"]) == ["call_m1", "call_m2"]
    result = run_cli(["diagnose", str(DOUBLE), "--format", "json", "--fail-on", "never"])
    assert result.exit_code == 0, result.output
    codes = [f["code"] for f in json.loads(result.stdout)["findings"]]
    assert codes == ["FL002"]
    healthy = run_cli(["diagnose", str(HEALTHY), "--format", "json", "--fail-on", "never"])
    assert [f["code"] for f in json.loads(healthy.stdout)["findings"]] == []


def test_a_cut_flow_file_keeps_the_flows_before_the_cut(tmp_path: Path) -> None:
    data = DOUBLE.read_bytes()
    cut = tmp_path / "cut.mitm"
    cut.write_bytes(data[: len(data) // 2])
    df = parse(cut)
    bad = df[df["kind"] == "unparsed"]
    assert len(bad) == 1
    assert "not a readable flow file after" in attrs(bad.iloc[0]["attrs"])["reason"]
    assert 0 < int((df["kind"] == "http_request").sum()) < 6


def test_without_mitmproxy_a_flow_file_is_exit_4_with_the_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # None in sys.modules makes the import fail as an absent package does
    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    monkeypatch.setitem(sys.modules, "mitmproxy.io", None)
    with pytest.raises(MissingDependencyError) as err:
        parse(HEALTHY)
    assert err.value.hint == HINT
    result = run_cli(["diagnose", str(HEALTHY)])
    assert result.exit_code == 4
    assert "pip install 'toolcall[mitm]'" in result.stderr
