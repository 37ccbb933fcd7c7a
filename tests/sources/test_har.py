"""har adapter on the Playwright/Chromium recordings: detection, events, keys, timings."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import FIXTURES, ROOT, attrs, run_cli
from toolcall_cli.model.quoting import Quoter
from toolcall_cli.model.redact import DEFAULT_REDACTOR
from toolcall_cli.sources import SOURCES
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import HEAD_BYTES, ParseOptions
from toolcall_cli.sources.har import ADAPTER

FX = FIXTURES / "har"


def parse(path: Path) -> pd.DataFrame:
    return ADAPTER.parse(path, ParseOptions())


def kinds(df: pd.DataFrame) -> dict[str, int]:
    return {str(k): int(v) for k, v in df["kind"].value_counts().sort_index().items()}


def scores_of(path: Path) -> dict[str, int]:
    head = read_head(path, HEAD_BYTES)
    return {name: int(ad.sniff(head, path)) for name, ad in SOURCES.items()}


@pytest.mark.parametrize("sample", ADAPTER.samples)
def test_claims_its_samples_with_the_top_score(sample: str) -> None:
    sc = scores_of(ROOT / sample)
    assert sc["har"] == 98
    assert max(v for k, v in sc.items() if k != "har") == 0


def test_scores_zero_on_every_other_fixture() -> None:
    others = [
        p
        for p in FIXTURES.rglob("*")
        if p.is_file() and "har" not in p.parts and p.suffix not in (".py", ".pyc")
    ]
    assert len(others) > 50
    hits = {str(p): s for p in others if (s := ADAPTER.sniff(read_head(p, HEAD_BYTES), p))}
    assert hits == {}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "playwright_double_submit.har",
            {"http_request": 7, "http_response": 7, "system": 1, "tool_call": 2, "tool_result": 2},
        ),
        (
            "playwright_healthy.har",
            {"http_request": 4, "http_response": 4, "system": 1, "tool_call": 1, "tool_result": 1},
        ),
        (
            "chrome_initiator.har",
            {"http_request": 7, "http_response": 7, "system": 1, "tool_call": 2, "tool_result": 2},
        ),
    ],
)
def test_event_counts_per_kind(name: str, expected: dict[str, int]) -> None:
    df = parse(FX / name)
    assert kinds(df) == expected
    assert set(df["source"]) == {"har"}
    assert df["seq"].tolist() == list(range(len(df)))


def test_keys_from_headers_and_tool_from_path() -> None:
    df = parse(FX / "playwright_healthy.har")
    chat = df[(df["kind"] == "http_request") & df["detail"].str.contains("/v1/chat/completions")]
    assert chat["session_id"].tolist() == ["sess-healthy", "sess-healthy"]
    tool_req = df[(df["kind"] == "http_request") & (df["tool"] == "get_weather")]
    assert tool_req["tool_call_id"].tolist() == ["call_w1"]
    resp = df[(df["kind"] == "http_response") & (df["tool"] == "get_weather")]
    assert resp["tool_call_id"].tolist() == ["call_w1"]
    assert resp["status"].tolist() == ["ok"]
    assert attrs(resp["attrs"].iloc[0])["call_id"] == "call_w1"
    # the model's call (chat response) and its result (next chat request) carry the same id
    assert df.loc[df["kind"] == "tool_call", "tool_call_id"].tolist() == ["call_w1"]
    assert df.loc[df["kind"] == "tool_result", "tool_call_id"].tolist() == ["call_w1"]


def test_timings_duration_and_times_are_kept() -> None:
    path = FX / "playwright_healthy.har"
    raw = json.loads(path.read_text())["log"]["entries"][1]
    df = parse(path)
    req = df[df["origin"].str.endswith("#/log/entries/1/request")].iloc[0]
    resp = df[
        df["origin"].str.endswith("#/log/entries/1/response") & (df["kind"] == "http_response")
    ].iloc[0]
    started = pd.Timestamp(raw["startedDateTime"])
    assert req["ts"] == started
    assert resp["duration_ms"] == pytest.approx(raw["time"], abs=1e-6)
    assert (resp["ts"] - started) / pd.Timedelta(milliseconds=1) == pytest.approx(
        raw["time"], abs=1e-3
    )
    a = attrs(req["attrs"])
    assert a["timings"] == {k: v for k, v in raw["timings"].items() if v >= 0}
    assert a["resource_type"] == "fetch"
    assert a["method"] == "POST" and a["uri"] == "/v1/chat/completions"
    assert a["entry"] == 1 and "frame" not in a and "stream" not in a
    assert req["size"] == len(raw["request"]["postData"]["text"])
    assert resp["size"] == len(raw["response"]["content"]["text"])


def test_playwright_writes_no_initiator_but_the_cdp_merge_does() -> None:
    pw = parse(FX / "playwright_double_submit.har")
    assert not any("initiator" in attrs(a) for a in pw["attrs"])
    df = parse(FX / "chrome_initiator.har")
    chat = df[(df["kind"] == "http_request") & df["detail"].str.contains("/v1/chat/")]
    a = attrs(chat["attrs"].iloc[0])
    assert a["initiator"]["type"] == "script"
    assert [f["function"] for f in a["initiator"]["stack"]] == ["chat", "sendChat", "onclick"]
    assert a["initiator_text"].startswith("script: chat @ http://127.0.0.1:")
    assert "← sendChat @ " in a["initiator_text"] and "← onclick @ " in a["initiator_text"]


def test_origins_are_pointers_evidence_can_quote() -> None:
    path = FX / "playwright_double_submit.har"
    df = parse(path)
    origin = df.loc[df["kind"] == "http_request", "origin"].iloc[1]
    assert origin == f"{path}#/log/entries/1/request"
    text = Quoter([path], DEFAULT_REDACTOR).quote(origin)
    assert text.startswith('{"method":"POST","url":"http://127.0.0.1:')
    assert "/v1/chat/completions" in text


def test_fl002_names_the_double_submit_and_not_the_healthy_page() -> None:
    bad = run_cli(["diagnose", str(FX / "playwright_double_submit.har"), "--format", "json"])
    assert bad.exit_code == 1
    codes = [f["code"] for f in json.loads(bad.stdout)["findings"]]
    assert codes == ["FL002"]
    f = json.loads(bad.stdout)["findings"][0]
    assert f["session_id"] == "sess-double"
    assert all("#/log/entries/" in e["origin"] for e in f["evidence"])
    good = run_cli(["diagnose", str(FX / "playwright_healthy.har"), "--format", "json"])
    assert good.exit_code == 0
    assert json.loads(good.stdout)["findings"] == []
