"""`diagnose --format openmetrics` is OpenMetrics that prometheus_client's parser reads back,
with the §4b families and the counts of the run."""

from __future__ import annotations

from prometheus_client.openmetrics.parser import text_string_to_metric_families

from tests.conftest import FIXTURES, run_cli

FAMILIES = {
    "tool_call": "counter",
    "tool_call_flooded": "counter",
    "tool_return_truncated": "counter",
    "tool_call_timeout": "counter",
    "tool_call_resumed": "counter",
    "tool_registry_conflict": "counter",
    "toolcall_findings": "counter",
    "tool_call_phase_seconds": "histogram",
}


def metrics(path: str) -> dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    res = run_cli(["diagnose", str(FIXTURES / path), "-f", "openmetrics", "--fail-on", "never"])
    assert res.exit_code == 0, res.output
    out: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]] = {}
    for fam in text_string_to_metric_families(res.stdout):  # raises on any format error
        assert FAMILIES[fam.name] == fam.type
        out[fam.name] = {(s.name, tuple(sorted(s.labels.items()))): s.value for s in fam.samples}
    assert set(out) == set(FAMILIES)
    return out


def test_flooding_bundle_counts_calls_causes_and_findings() -> None:
    got = metrics("incidents/flooding-model-loop")
    calls = got["tool_call"]
    assert calls[("tool_call_total", (("outcome", "flooded"), ("tool", "get_weather")))] == 1
    assert calls[("tool_call_total", (("outcome", "result"), ("tool", "get_weather")))] == 5
    assert got["tool_call_flooded"] == {("tool_call_flooded_total", (("cause", "model-loop"),)): 1}
    assert (
        got["toolcall_findings"][
            ("toolcall_findings_total", (("code", "FL001"), ("severity", "error")))
        ]
        == 1
    )
    phases = got["tool_call_phase_seconds"]
    inf = ("tool_call_phase_seconds_bucket", (("le", "+Inf"), ("phase", "service")))
    assert phases[inf] == phases[("tool_call_phase_seconds_count", (("phase", "service"),))] == 5
    assert abs(phases[("tool_call_phase_seconds_sum", (("phase", "service"),))] - 0.91) < 1e-9


def test_truncated_result_counts_the_tool() -> None:
    got = metrics("incidents/truncated-result")
    assert got["tool_return_truncated"] == {
        ("tool_return_truncated_total", (("tool", "search_flights"),)): 1
    }
    assert got["tool_call_flooded"] == {}


def test_untrusted_tool_name_is_escaped() -> None:
    from toolcall_cli.render.openmetrics_view import escape

    assert escape('a"b\\c\nd') == 'a\\"b\\\\c\\nd'
    assert escape(None) == "unknown"
