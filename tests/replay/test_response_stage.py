"""response: status, call_id, timestamp tolerance, size budget, error with data."""

from __future__ import annotations

from typing import Any

from tests.replay.replay_helpers import ctx, tc
from toolcall_cli.model.config import DEFAULT, Budgets, Config
from toolcall_cli.replay import response
from toolcall_cli.replay.base import RequestEvidence, ResponseEvidence, Verdict

REQ = RequestEvidence(
    "cap.pcap#frame=1", ts_ms=1_717_123_456_700.0, request_ts_ms=1_717_123_456_789.0
)


def _resp(**kw: Any) -> ResponseEvidence:  # kw: ResponseEvidence fields
    base: dict[str, Any] = dict(
        origin="cap.pcap#frame=2",
        source="pcap",
        status="success",
        call_id="c1",
        has_call_id=True,
        timestamp_ms=1_717_123_456_789.0,
        size=120,
        data_empty=False,
        http_status=200,
    )
    base.update(kw)
    return ResponseEvidence(**base)


def _check(resp: ResponseEvidence | None, cfg: Config = DEFAULT) -> Verdict:
    return response.check(tc("c1", request=REQ, response=resp), ctx(cfg))


def test_good_response_passes() -> None:
    assert _check(_resp()).verdict == "pass"


def test_no_recorded_response_skips() -> None:
    v = _check(None)
    assert (v.verdict, v.code) == ("skip", "no-response")


def test_missing_status() -> None:
    assert _check(_resp(status=None)).code == "status-missing"


def test_wrong_and_missing_call_id() -> None:
    v = _check(_resp(call_id="tc_def456"))
    assert v.code == "call-id-mismatch" and "'tc_def456'" in v.reason
    assert _check(_resp(call_id=None)).code == "call-id-mismatch"


def test_middleware_line_without_call_id_is_not_judged_on_it() -> None:
    v = _check(_resp(source="middleware", call_id=None, has_call_id=False, status=None))
    assert v.verdict == "pass"


def test_middleware_drop_for_call_id_mismatch() -> None:
    v = _check(_resp(source="middleware", has_call_id=False, dropped_reason="call_id mismatch"))
    assert v.code == "call-id-mismatch"


def test_timestamp_tolerance_against_x_request_timestamp() -> None:
    sent = REQ.request_ts_ms
    assert sent is not None
    assert _check(_resp(timestamp_ms=sent + 499)).verdict == "pass"
    v = _check(_resp(timestamp_ms=sent + 501))
    assert v.code == "timestamp-skew" and "+501 ms" in v.reason


def test_size_budget_per_tool() -> None:
    cfg = Config(budgets=Budgets(result_chars=100, per_tool={"query_db": 4000}))
    assert _check(_resp(size=3000), cfg).verdict == "pass"
    assert _check(_resp(size=4001), cfg).code == "over-budget"


def test_error_status_must_have_empty_data() -> None:
    assert _check(_resp(status="error", data_empty=True)).verdict == "pass"
    v = _check(_resp(status="error", data_empty=False))
    assert v.code == "error-with-data"


def test_every_problem_is_listed() -> None:
    v = _check(_resp(status=None, call_id="x", size=10_000))
    assert v.code == "status-missing" and "(+2 more)" in v.reason
    assert [line.split(":")[0] for line in v.detail.splitlines()] == [
        "status-missing",
        "call-id-mismatch",
        "over-budget",
    ]


def test_to_ms_units() -> None:
    assert response.to_ms(1_717_123_456_789) == 1_717_123_456_789
    assert response.to_ms(1_717_123_456.789) == 1_717_123_456_789.0
    assert response.to_ms("1717123456789") == 1_717_123_456_789
    assert response.to_ms("2024-05-31T02:44:16.789Z") == 1_717_123_456_789
    assert response.to_ms("soon") is None
