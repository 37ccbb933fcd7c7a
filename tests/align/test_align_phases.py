"""Per-call outcomes, phase latencies against the SLA, and where message events land."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.align.incident import T0, _frame, incident
from toolcall_cli.align import align
from toolcall_cli.model.config import Config, Sla


def _mw(cid: str, kind: str, ms: float, **kw: object) -> dict[str, object]:
    return {
        "source": "middleware",
        "kind": kind,
        "tool_call_id": cid,
        "tool": "t",
        "ts": T0 + pd.Timedelta(milliseconds=ms),
        **kw,
    }


def _frame_of(rows: list[dict[str, object]]) -> pd.DataFrame:
    for i, r in enumerate(rows):
        r.setdefault("seq", i)
        r.setdefault("origin", f"mw.log:{i + 1}")
    return _frame(rows)


def test_outcomes() -> None:
    ev = _frame_of(
        [
            _mw("r", "mw_received", 0),
            _mw("r", "mw_rejected", 1),
            _mw("f", "mw_received", 0),
            _mw("f", "mw_flooded", 1),
            _mw("t", "mw_request", 0),
            _mw("t", "mw_timeout", 5000),
            _mw("t", "mw_injected", 5001),
            _mw("d", "mw_request", 0),
            _mw("d", "mw_response", 100),
            _mw("d", "mw_dropped", 101),
            _mw("ok", "mw_request", 0),
            _mw("ok", "mw_response", 100),
            _mw("ok", "mw_injected", 110),
            _mw("m", "mw_received", 0),
            _mw("m", "mw_request", 20),
            {"source": "messages", "kind": "tool_call", "tool_call_id": "msg", "ts": None},
            {"source": "messages", "kind": "tool_result", "tool_call_id": "msg", "ts": None},
            {"source": "messages", "kind": "tool_result", "tool_call_id": "orphan", "ts": None},
        ]
    )
    got = {c.tool_call_id: c.outcome for c in align(ev).calls}
    assert got == {
        "r": "rejected",
        "f": "flooded",
        "t": "timeout",
        "d": "dropped",
        "ok": "result",
        "m": "missing",
        "msg": "result",
    }  # a lone result is no call (OR002's business)


def test_phases_and_breaches() -> None:
    tl = align(incident(pcap_skew_ms=2300.0))
    c1, c2 = (c for c in tl.calls if c.tool_call_id in ("c1", "c2"))
    assert c1.phases == {
        "initiation_ms": 20.0,
        "service_ms": 301.0,
        "injection_ms": 10.0,
        "end_to_end_ms": 3000.0,
    }
    assert c1.breaches == ()
    assert c2.phases["service_ms"] == pytest.approx(951.0)
    assert c2.breaches == ("service_ms",)
    sla = Sla(initiation_ms=10, service_ms=800, injection_ms=50, end_to_end_ms=2000)
    strict = align(incident(), cfg=Config(sla=sla))
    c1s = next(c for c in strict.calls if c.tool_call_id == "c1")
    assert c1s.breaches == ("initiation_ms", "end_to_end_ms")


def test_end_to_end_falls_back_to_the_calls_span() -> None:
    ev = _frame_of(
        [
            _mw("x", "mw_received", 0),
            _mw("x", "mw_request", 20),
            _mw("x", "mw_response", 220),
            _mw("x", "mw_injected", 230),
        ]
    )
    (c,) = align(ev).calls
    assert c.phases["end_to_end_ms"] == pytest.approx(230.0)
    assert c.phases["initiation_ms"] == pytest.approx(20.0)


def test_an_agents_own_log_measures_no_end_to_end() -> None:
    """A coding agent's session log times its tool running and its user deciding, not a round
    trip: alone it gives no end to end; beside middleware lines the middleware's span counts."""

    def transcript(kind: str, ms: float) -> dict[str, object]:
        return {**_mw("x", kind, ms), "source": "transcripts"}

    alone = _frame_of([transcript("tool_call", 0), transcript("tool_result", 21_000)])
    (c,) = align(alone).calls
    assert c.phases["end_to_end_ms"] is None
    both = _frame_of(
        [
            transcript("tool_call", 0),
            _mw("x", "mw_received", 5),
            _mw("x", "mw_injected", 4_005),
            transcript("tool_result", 21_000),
        ]
    )
    (c,) = align(both).calls
    assert c.phases["end_to_end_ms"] == pytest.approx(4_000.0)


def test_messages_take_their_place_and_keep_their_order() -> None:
    tl = align(incident())
    ev = tl.events
    msg = ev[ev["source"] == "messages"]
    assert msg["seq"].is_monotonic_increasing  # message order kept
    call = msg[(msg["kind"] == "tool_call") & (msg["tool_call_id"] == "c1")].iloc[0]
    assert call["ts_corrected"] == T0 + pd.Timedelta(milliseconds=200)  # mw_received
    res = msg[(msg["kind"] == "tool_result") & (msg["tool_call_id"] == "c1")].iloc[0]
    assert res["ts_corrected"] == T0 + pd.Timedelta(milliseconds=531)  # mw_injected
    assert msg[msg["kind"] == "user"]["ts_corrected"].isna().all()
    assert ev.iloc[0]["kind"] == "user"  # before the first placed message
    pos = {
        k: i
        for i, k in enumerate(
            zip(ev["source"], ev["kind"], ev["tool_call_id"].fillna("-"), strict=True)
        )
    }
    assert pos[("messages", "tool_call", "c1")] < pos[("middleware", "mw_received", "c1")]
    assert pos[("middleware", "mw_injected", "c1")] < pos[("messages", "tool_result", "c1")]
