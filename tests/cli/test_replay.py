"""`toolcall replay` end to end on fixtures/replay: goldens, what-if, exit codes, store, live."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, ROOT, assert_golden, need_corpus, run_cli
from tests.replay.replay_helpers import loopback

B = "fixtures/replay/booking"
INPUTS = [f"{B}/messages.json", f"{B}/middleware.log"]
CFG = ["--config", f"{B}/toolcall.toml"]
EXPECTED = json.loads((FIXTURES / "replay" / "booking" / "expected.json").read_text())


def _json(args: list[str]) -> dict[str, Any]:
    res = run_cli(
        [*CFG, "replay", *INPUTS, "--trace-id", "trace-book", "--format", "json", *args], cwd=ROOT
    )
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def test_known_verdicts() -> None:
    doc = _json([])
    got = {c["tool_call_id"]: [c["replayed"], c["observed"], c["agrees"]] for c in doc["calls"]}
    assert got == EXPECTED["calls"]
    order = [c["tool_call_id"] for c in doc["calls"]]
    assert order == [f"call_{i}" for i in range(1, 9)]  # time order, not disagreements first
    assert doc["schema_version"] == 1 and doc["trace_id"] == "trace-book" and doc["changes"] is None
    assert doc["settings"]["from"] == "fixtures/replay/booking/toolcall.toml"
    assert doc["settings"]["flooding.per_tool"] == {"send_email": 2}
    assert doc["warning"] is None  # 1 of 8 disagrees: not "most"
    stage = doc["calls"][0]["stages"][0]
    assert set(stage) >= {"stage", "verdict", "code", "reason"}


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        (["--tools", f"{B}/tools_new.json"], "whatif_tools_new"),
        (["--what-if", f"{B}/looser.toml"], "whatif_looser"),
    ],
)
def test_what_if_lists_exactly_the_changed_calls(extra: list[str], key: str) -> None:
    doc = _json(extra)
    got = {c["tool_call_id"]: [c["before"], c["after"]] for c in doc["changes"]}
    assert got == EXPECTED[key]


def test_each_changed_verdict_names_its_cause() -> None:
    doc = _json(["--what-if", f"{B}/looser.toml", "--tools", f"{B}/tools_new.json"])
    causes = {c["tool_call_id"]: c["causes"] for c in doc["changes"]}
    new_tools = (
        "tools: 4 tools declared in the session's request (its tools list) → 4 tools from "
        "fixtures/replay/booking/tools_new.json"
    )
    assert causes == {
        "call_3": [new_tools],
        "call_7": ["flooding.per_tool.send_email: 2 → 3"],
        "call_8": [new_tools],
    }
    assert doc["baseline"]["flooding.per_tool"] == {"send_email": 2}
    assert doc["settings"]["flooding.per_tool"] == {"send_email": 3}


def test_baseline_file_is_production_settings() -> None:
    res = run_cli(
        ["replay", *INPUTS, "--trace-id", "trace-book", "--baseline", f"{B}/toolcall.toml",
         "-f", "json"],
        cwd=ROOT,
    )  # fmt: skip
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    got = {c["tool_call_id"]: [c["replayed"], c["observed"], c["agrees"]] for c in doc["calls"]}
    assert got == EXPECTED["calls"]  # the same verdicts as the global --config
    assert doc["changes"] is None


def test_replay_config_has_one_meaning() -> None:
    res = run_cli(["replay", *INPUTS, "--trace-id", "trace-book", "--config", f"{B}/looser.toml"])
    assert res.exit_code == 2
    assert "--baseline FILE" in res.stderr and "--what-if FILE" in res.stderr


DEMO = "fixtures/incidents/flooding-model-loop"


def _demo(args: list[str]) -> dict[str, Any]:
    res = run_cli(["replay", DEMO, "--session-id", "sess-loop", "-f", "json", *args], cwd=ROOT)
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def test_flooding_demo_warns_about_dedupe() -> None:
    doc = _demo([])
    assert doc["summary"]["disagreements"] == 4
    assert doc["warning"].startswith("4 of 6 calls disagree with the evidence")
    assert "[flooding] dedupe" in doc["warning"] and "--calibrate" in doc["warning"]
    assert doc["settings"]["from"] == "built-in defaults"


def test_flooding_demo_calibrates_dedupe_off() -> None:
    doc = _demo(["--calibrate"])
    cal = doc["calibration"]
    assert (cal["explained"], cal["baseline_explained"], cal["calls"]) == (6, 2, 6)
    assert cal["flooding"] == {"window_s": 60.0, "max_calls": 5, "per_tool": {}, "dedupe": False}
    assert cal["changes"] == ["flooding.dedupe: true → false"]
    assert "dedupe = false" in cal["fragment"] and "explains 6 of 6 calls" in cal["fragment"]
    assert doc["summary"]["disagreements"] == 0 and doc["warning"] is None
    assert {c["tool_call_id"] for c in doc["changes"]} == {f"call_loop{i}" for i in (2, 3, 4, 5)}
    assert all(c["causes"] == ["flooding.dedupe: true → false"] for c in doc["changes"])


def test_calibrated_fragment_is_a_config_that_reproduces_it(tmp_path: Path) -> None:
    frag = tmp_path / "toolcall.toml"
    frag.write_text(_demo(["--calibrate"])["calibration"]["fragment"])
    assert _demo(["--baseline", str(frag)])["summary"]["disagreements"] == 0


def test_tau_bench_synthetic_clock_is_named_and_calibrated() -> None:
    corpus = need_corpus()
    path = corpus / "conversations/tau-bench/historical_trajectories__gpt-4o-airline.json"
    sess = "historical_trajectories__gpt-4o-airline:33"
    res = run_cli(["replay", str(path), "--session-id", sess, "-f", "json", "--calibrate"])
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    cal = doc["calibration"]
    assert (cal["baseline_explained"], cal["calls"]) == (5, 22)
    assert cal["explained"] == 20  # the other two reuse a call id: prescreen, not the limiter
    assert cal["synthetic_clock"] is True and "assistant turns" in cal["fragment"]
    plain = run_cli(["replay", str(path), "--session-id", sess, "-f", "json"])
    warning = json.loads(plain.stdout)["warning"]
    assert warning.startswith("17 of 22 calls disagree")
    assert "max_calls and window_s" in warning and "synthetic" in warning


def test_table_is_in_time_order_with_ids_whole() -> None:
    res = run_cli(["replay", DEMO, "--session-id", "sess-loop"], env={"COLUMNS": "60"})
    rows = [ln for ln in res.stdout.splitlines() if "call_loop" in ln and "+" in ln]
    assert [r.split()[3] for r in rows] == [f"call_loop{i}" for i in range(1, 7)]
    assert [r.split()[0] for r in rows] == ["yes", "NO", "NO", "NO", "NO", "yes"]


def test_golden_table(update_goldens: bool) -> None:
    assert_golden(
        "replay/booking_table",
        [*CFG, "replay", *INPUTS, "--trace-id", "trace-book"],
        update=update_goldens,
    )


def test_golden_json(update_goldens: bool) -> None:
    assert_golden(
        "replay/booking_json",
        [*CFG, "replay", *INPUTS, "--trace-id", "trace-book", "-f", "json"],
        update=update_goldens,
    )


def test_golden_markdown_what_if(update_goldens: bool) -> None:
    assert_golden(
        "replay/booking_whatif_markdown",
        [
            *CFG,
            "replay",
            *INPUTS,
            "--trace-id",
            "trace-book",
            "--tools",
            f"{B}/tools_new.json",
            "--format",
            "markdown",
        ],
        update=update_goldens,
    )


def test_fail_on_disagree_exits_1() -> None:
    res = run_cli(
        [*CFG, "replay", *INPUTS, "--trace-id", "trace-book", "--fail-on-disagree", "-f", "json"],
        cwd=ROOT,
    )
    assert res.exit_code == 1
    healthy = run_cli(
        [
            "replay",
            "fixtures/incidents/healthy",
            "--trace-id",
            "trace-healthy",
            "--fail-on-disagree",
        ],
        cwd=ROOT,
    )
    assert healthy.exit_code == 0, healthy.stdout


@pytest.mark.parametrize(
    "args", [[], ["--trace-id", "a", "--session-id", "b"], ["--trace-id", "nope"]]
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    res = run_cli(["replay", *INPUTS, *args], cwd=ROOT)
    assert res.exit_code == 2
    assert res.stderr.startswith("toolcall: error:")


def test_golden_non_loopback_target_refused(update_goldens: bool) -> None:
    assert_golden(
        "replay/remote_target_refused",
        ["replay", *INPUTS, "--trace-id", "trace-book", "--target", "http://10.1.2.3:8080"],
        update=update_goldens,
    )


def test_session_id_and_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert (
        run_cli(["ingest", *[str(ROOT / p) for p in INPUTS], "--store", str(store)]).exit_code == 0
    )
    res = run_cli(
        [*CFG, "replay", "--session-id", "sess-book", "--store", str(store), "-f", "json"], cwd=ROOT
    )
    assert res.exit_code == 0, res.stderr
    got = {
        c["tool_call_id"]: [c["replayed"], c["observed"], c["agrees"]]
        for c in json.loads(res.stdout)["calls"]
    }
    assert got == EXPECTED["calls"]


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    res = run_cli(
        [*CFG, "replay", *INPUTS, "--trace-id", "trace-book", "-f", "markdown", "-o", str(out)],
        cwd=ROOT,
    )
    assert res.exit_code == 0 and res.stdout == ""
    assert out.read_text().startswith("**toolcall replay**")


class _Echo(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        raw = json.dumps(
            {
                "status": "success",
                "data": ["ok"],
                "call_id": self.headers["X-Tool-Call-ID"],
                "timestamp": int(self.headers["X-Request-Timestamp"]),
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def echo() -> Iterator[str]:
    with loopback(_Echo) as url:
        yield url


def test_live_target_on_loopback(echo: str) -> None:
    doc = _json(["--target", echo, "--timeout", "2"])
    live = {r["tool_call_id"]: r for r in doc["live"]}
    # the four calls the pipeline dispatches are sent; rejected ones are not
    assert sorted(live) == ["call_1", "call_5", "call_6", "call_8"]
    assert all(r["verdict"]["verdict"] == "pass" and r["http_status"] == 200 for r in live.values())
    assert live["call_1"]["diffs"] == []  # status and call_id as recorded by the middleware


def _two_bundles(tmp_path: Path) -> list[str]:
    """The OR001 fixture as two unrelated conversations (sessions a and b) with the same ids."""
    doc = json.loads((FIXTURES / "rules" / "OR001" / "positive.json").read_text())
    paths = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({**doc, "session_id": f"sess-{name}"}))
        paths.append(str(path))
    return paths


def test_a_call_id_two_unrelated_files_reuse_is_refused_naming_both(tmp_path: Path) -> None:
    """DESIGN §3: `call_w` of one conversation and `call_w` of an unrelated one are two calls
    (align names their traces `call_w@sess-a`, `call_w@sess-b`). `--trace-id call_w` does not
    replay them as one call: a usage error (2) names each trace and its file; the trace it
    suggests replays that conversation's call alone, as the file would by itself."""
    a, b = _two_bundles(tmp_path)
    res = run_cli(["replay", a, b, "--trace-id", "call_w"], cwd=ROOT)
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr == (
        "toolcall: error: call id 'call_w' is used in 2 unrelated traces (call_w@sess-a in "
        f"{a}; call_w@sess-b in {b}); replay takes one\n"
        "  hint: pass --trace-id call_w@sess-a (or another of them)\n"
    )
    scoped = run_cli(["replay", a, b, "--trace-id", "call_w@sess-b", "-f", "json"], cwd=ROOT)
    alone = run_cli(["replay", b, "--trace-id", "call_w", "-f", "json"], cwd=ROOT)
    assert scoped.exit_code == alone.exit_code == 0, scoped.stderr
    got, want = json.loads(scoped.stdout)["calls"], json.loads(alone.stdout)["calls"]
    assert [c["tool_call_id"] for c in got] == ["call_w"]
    assert [(c["replayed"], c["observed"]) for c in got] == [
        (c["replayed"], c["observed"]) for c in want
    ]


def test_distinct_call_ids_of_unrelated_real_files_replay_as_before() -> None:
    """The negative, on recorded provider responses: two unrelated files, each id in one of
    them; `--trace-id` of one call replays that call and nothing of the other file."""
    folder = need_corpus() / "conversations" / "vercel-ai_provider_fixtures"
    groq, deepseek = (
        folder / "groq__groq-tool-call.json",
        folder / "deepseek__chat__deepseek-tool-call.json",
    )
    res = run_cli(
        ["replay", str(groq), str(deepseek), "--trace-id", "ax9fskhev", "-f", "json"], cwd=ROOT
    )
    assert res.exit_code == 0, res.stderr
    assert [(c["tool_call_id"], c["tool"]) for c in json.loads(res.stdout)["calls"]] == [
        ("ax9fskhev", "weather")
    ]
