"""Clock skew: estimated from shared moments, kept causal, corrected unless told not to."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.align.incident import T0, _frame, incident
from toolcall_cli.align import align

ORDER = {
    "tool_call": 0,
    "mw_received": 1,
    "mw_request": 2,
    "http_request": 2,
    "mw_response": 3,
    "http_response": 3,
    "mw_injected": 4,
}


@pytest.mark.parametrize(
    ("pcap", "nginx"), [(2300.0, 0.0), (-1700.0, 450.0), (0.0, -900.0), (35.0, 0.0)]
)
def test_offsets_within_50ms(pcap: float, nginx: float) -> None:
    tl = align(incident(pcap_skew_ms=pcap, nginx_skew_ms=nginx))
    assert tl.reference == "middleware"
    assert tl.skews["pcap"] == pytest.approx(pcap, abs=50)
    assert tl.skews["nginx"] == pytest.approx(nginx, abs=50)
    assert tl.anchors["pcap"] >= 4


def _moment_order_ok(tl_events: pd.DataFrame) -> None:
    for call, grp in tl_events[tl_events["source"] != "messages"].groupby("call"):
        g = grp[grp["kind"].isin(list(ORDER))]
        ranks = g["kind"].map(ORDER).tolist()
        assert ranks == sorted(ranks), (call, g[["kind", "ts_corrected"]])
        assert g["ts_corrected"].is_monotonic_increasing, call


def test_corrected_timeline_orders_every_call() -> None:
    tl = align(incident(pcap_skew_ms=2300.0))
    _moment_order_ok(tl.events)
    # uncorrected, the capture's request lands after the middleware's response
    raw = align(incident(pcap_skew_ms=2300.0), skew_correction=False)
    assert not raw.corrected
    clk = raw.events[raw.events["source"] != "messages"]
    assert (clk["ts_corrected"] == clk["ts"]).all()
    with pytest.raises(AssertionError):
        _moment_order_ok(raw.events)


def test_causal_bound_without_anchors() -> None:
    # pcap saw only the model's call (chat response) 2 s after the middleware received it
    ev = _frame(
        [
            {
                "source": "pcap",
                "kind": "tool_call",
                "ts": T0 + pd.Timedelta(milliseconds=5123),
                "tool_call_id": "c1",
                "seq": 0,
                "origin": "p.pcap#frame=9",
            },
            {
                "source": "middleware",
                "kind": "mw_received",
                "ts": T0 + pd.Timedelta(milliseconds=3123),
                "tool_call_id": "c1",
                "seq": 0,
                "origin": "mw.log:1",
            },
        ]
    )
    tl = align(ev)
    assert tl.skews["pcap"] == pytest.approx(2000.0)
    assert tl.anchors["pcap"] == 0
    first = tl.events.iloc[0]
    assert (first["source"], first["kind"]) == ("pcap", "tool_call")


def test_whole_second_clock_is_not_a_skew() -> None:
    ev = incident(pcap_skew_ms=0.0)
    ng = ev["source"] == "nginx"
    ev.loc[ng, "ts"] = ev.loc[ng, "ts"].dt.floor("s")  # nginx $time_local
    tl = align(ev)
    assert abs(tl.skews["nginx"]) < 50
    # placed back inside its second at the moment the middleware saw the response
    c2 = tl.events[(tl.events["source"] == "nginx") & (tl.events["call"] == "c2")]
    placed = c2["ts_corrected"].iloc[0] - T0
    assert pd.Timedelta(milliseconds=1870) <= placed <= pd.Timedelta(milliseconds=1871)
    _moment_order_ok(tl.events)


def test_source_without_shared_moments_is_left_alone() -> None:
    ev = _frame(
        [
            {
                "source": "middleware",
                "kind": "mw_received",
                "ts": T0,
                "tool_call_id": "c1",
                "seq": 0,
                "origin": "mw.log:1",
            },
            {
                "source": "nginx",
                "kind": "http_access",
                "ts": T0,
                "seq": 0,
                "origin": "a.log:1",
                "detail": "GET /",
            },
        ]
    )
    tl = align(ev)
    assert tl.skews == {"middleware": 0.0, "nginx": 0.0}
    assert tl.anchors["nginx"] == 0
