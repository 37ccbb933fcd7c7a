"""`toolcall timeline` end to end on the skewed bundle (all four sources) and the store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import FIXTURES, assert_golden, need_tshark, run_cli

BUNDLE = "fixtures/align/skewed"
ORDER = {
    "tool_call": 0,
    "mw_received": 1,
    "mw_request": 2,
    "http_request": 2,
    "http_access": 3,
    "http_response": 3,
    "mw_response": 3,
    "mw_injected": 4,
    "tool_result": 5,
}


@pytest.mark.tshark
def test_golden_table(update_goldens: bool, tshark: str) -> None:
    assert_golden(
        "timeline/skewed_table",
        ["timeline", BUNDLE, "--trace-id", "trace-skew"],
        update=update_goldens,
    )


@pytest.mark.tshark
def test_golden_json(update_goldens: bool, tshark: str) -> None:
    assert_golden(
        "timeline/skewed_json",
        ["timeline", BUNDLE, "--session-id", "sess-skew", "-f", "json"],
        update=update_goldens,
    )


@pytest.mark.tshark
def test_golden_markdown_no_correction(update_goldens: bool, tshark: str) -> None:
    assert_golden(
        "timeline/skewed_markdown_raw",
        ["timeline", BUNDLE, "--tool-call-id", "call_f1", "--no-skew-correction", "-f", "markdown"],
        update=update_goldens,
    )


@pytest.mark.tshark
def test_unknown_trace_is_a_usage_error(update_goldens: bool, tshark: str) -> None:
    assert_golden(
        "timeline/unknown_trace", ["timeline", BUNDLE, "--trace-id", "nope"], update=update_goldens
    )


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundle ingested once (tshark runs once for the JSON tests)."""
    need_tshark()
    path = tmp_path_factory.mktemp("tl") / "store"
    res = run_cli(["ingest", BUNDLE, "--store", str(path)])
    assert res.exit_code == 0, res.stderr
    return path


def _json(args: list[str], store: Path | None = None) -> dict[str, Any]:
    where = ["--store", str(store)] if store else [BUNDLE]
    res = run_cli(["timeline", *where, "-f", "json", *args])
    assert res.exit_code == 0, res.stderr
    return orjson.loads(res.stdout)


@pytest.mark.tshark
def test_skew_estimate_and_order_across_four_sources(store: Path) -> None:
    doc = _json(["--trace-id", "trace-skew"], store)
    assert doc["skews"]["pcap"] == pytest.approx(2300, abs=50)
    assert abs(doc["skews"]["nginx"]) < 50
    (trace,) = doc["traces"]
    assert trace["session_ids"] == ["sess-skew"]
    assert {e["source"] for e in trace["events"]} == {"messages", "middleware", "nginx", "pcap"}
    for cid in ("call_w1", "call_f1"):
        evs = [e for e in trace["events"] if e["tool_call_id"] == cid and e["kind"] in ORDER]
        ranks = [ORDER[e["kind"]] for e in evs]
        assert ranks == sorted(ranks), cid
        times = [e["ts_corrected"] for e in evs]
        assert times == sorted(times), cid
    calls = {c["tool_call_id"]: c for c in trace["calls"]}
    assert calls["call_f1"]["breaches"] == ["service_ms"]
    assert calls["call_w1"]["phases"]["initiation_ms"] == pytest.approx(20.0)
    assert calls["call_w1"]["phases"]["end_to_end_ms"] == pytest.approx(2400.0)


@pytest.mark.tshark
def test_session_lists_its_separate_traces_and_most_trouble_first(store: Path) -> None:
    doc = _json(["--session-id", "sess-skew"], store)
    assert [t["trace_id"] for t in doc["traces"]] == ["trace-skew", "trace-skew-2"]
    rejected = doc["traces"][1]["calls"]
    assert [(c["tool_call_id"], c["outcome"]) for c in rejected] == [("call_e1", "rejected")]
    top = _json(["--limit", "1"], store)
    assert top["traces_total"] == 2 and len(top["traces"]) == 1


@pytest.mark.tshark
def test_since_until_and_bad_time(store: Path) -> None:
    late = _json(["--since", "2025-03-01T12:00:03Z"], store)
    assert [t["trace_id"] for t in late["traces"]] == ["trace-skew-2"]
    early = _json(["--until", "2025-03-01 13:00:01", "--tz", "Europe/Paris"], store)
    assert [t["trace_id"] for t in early["traces"]] == ["trace-skew"]
    res = run_cli(["timeline", "--store", str(store), "--since", "yesterday-ish"])
    assert res.exit_code == 2
    assert "--since" in res.stderr


@pytest.mark.tshark
def test_store_selection_pushdown(store: Path) -> None:
    res = run_cli(["timeline", "--store", str(store), "--trace-id", "trace-skew", "-f", "json"])
    assert res.exit_code == 0, res.stderr
    from_store = orjson.loads(res.stdout)
    direct = _json(["--trace-id", "trace-skew"])
    strip = lambda d: [(e["origin"], e["ts_corrected"]) for t in d["traces"] for e in t["events"]]  # noqa: E731
    assert strip(from_store) == strip(direct)
    res = run_cli(["timeline", "--store", str(store), "--trace-id", "nope"])
    assert res.exit_code == 2
    assert "trace-skew" in res.stderr


def test_empty_store_is_an_input_error(update_goldens: bool) -> None:
    assert_golden(
        "timeline/empty_store",
        ["timeline", "--store", "fixtures/align/no-store"],
        update=update_goldens,
    )


def test_each_call_shows_its_own_round_trip_and_the_chat_request_once() -> None:
    # the flooding demo's chat request took 9.5 s over SLA; each call took 210 ms of it
    need_tshark()
    demo = FIXTURES / "incidents" / "flooding-model-loop"
    res = run_cli(["timeline", str(demo)], env={"COLUMNS": "160"})
    assert res.exit_code == 0, res.stderr
    assert "calls of trace-loop · chat request 9500.0 ms ✗ over SLA" in res.stdout
    rows = [ln for ln in res.stdout.splitlines() if "call_loop1 │ get_weather" in ln]
    assert rows and rows[-1].rstrip(" │").endswith("210.0 ms")
    assert "9500.0 ms ✗ │" not in res.stdout
