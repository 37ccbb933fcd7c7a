"""`toolcall diagnose` on the otel fixtures names the root cause the messages source names for
the same conversation, and stays quiet on the healthy session."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import FIXTURES, run_cli

OTEL = FIXTURES / "otel"


def findings(path: str) -> list[dict]:
    res = run_cli(["diagnose", str(OTEL / path), "-f", "json", "--fail-on", "never"])
    assert res.exit_code == 0, res.output
    return orjson.loads(res.stdout)["findings"]


def errors(found: list[dict]) -> set[str]:
    return {f["code"] for f in found if f["severity"] == "error"}


@pytest.mark.parametrize(
    "run", ["genai_loop", "openinference_loop", "legacy_loop", "langfuse_loop"]
)
def test_loop_is_fl001_as_for_the_messages_source(run: str) -> None:
    got = findings(run)
    same = findings("as_messages/genai_loop.messages.json")
    assert errors(got) == errors(same) == {"FL001"}
    loop = next(f for f in got if f["code"] == "FL001")
    assert loop["tool_call_ids"] == [f"call_loop_{i}" for i in range(1, 5)]
    assert loop["session_id"] == f"conv-{run.split('_')[0]}-loop"


@pytest.mark.parametrize(
    "path",
    [
        "genai_healthy",
        "openinference_healthy",
        "legacy_healthy",
        "langfuse_healthy",
        "as_messages/genai_healthy.messages.json",
    ],
)
def test_healthy_has_no_error_findings(path: str) -> None:
    assert [f["code"] for f in findings(path) if f["severity"] == "error"] == []


@pytest.mark.parametrize("run", ["genai_unanswered", "openinference_unanswered"])
def test_unanswered_call_and_provider_error(run: str) -> None:
    got = findings(run)
    codes = {f["code"] for f in got}
    assert {"OR001", "PR008"} <= codes
    orphan = next(f for f in got if f["code"] == "OR001")
    assert orphan["tool_call_ids"] == ["call_una_2"]
    pr = next(f for f in got if f["code"] == "PR008")
    assert "must be followed by tool messages" in pr["message"]


def test_truncated_result() -> None:
    got = findings("genai_truncated")
    assert [f["code"] for f in got] == ["TR002"]
    assert got[0]["tool_call_ids"] == ["call_trunc_1"]


def test_langfuse_session_reads_as_the_client_recorded_it() -> None:
    """The Langfuse SDK's observations give the calls, results and loop the messages source
    finds in the client's own history of the same session."""
    from tests.conftest import run_cli

    got = findings("langfuse_loop")
    same = findings("as_messages/langfuse_loop.messages.json")
    assert [(f["code"], f["tool_call_ids"]) for f in got if f["severity"] == "error"] == [
        (f["code"], f["tool_call_ids"]) for f in same if f["severity"] == "error"
    ]
    res = run_cli(["timeline", str(OTEL / "langfuse_loop"), "-f", "json"])
    calls = orjson.loads(res.stdout)["traces"][0]["calls"]
    assert [(c["tool_call_id"], c["outcome"]) for c in calls] == [
        (f"call_loop_{i}", "result") for i in range(1, 5)
    ]
    assert all(c["phases"]["service_ms"] is not None for c in calls)  # the tool spans' times
