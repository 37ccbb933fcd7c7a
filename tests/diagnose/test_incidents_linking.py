"""The linking stage: which finding explains which (diagnose.kit.incidents), the headline, and the
cases where no link may form (another call, another trace, another breakpoint)."""

from __future__ import annotations

from typing import Any

import pytest

import toolcall_cli.diagnose  # noqa: F401 - registers every rule
from toolcall_cli.diagnose.kit.headlines import headline, trace_headlines
from toolcall_cli.diagnose.kit.incidents import incidents, link, unique_ids
from toolcall_cli.model.findings import RULES, Finding, Severity, finding_id


def _f(
    code: str, message: str = "", *, ids: tuple[str, ...] = (), trace: str = "t1", **kw: Any
) -> Finding:
    return Finding.of(
        RULES.get(code), message or f"{code} finding", trace_id=trace, tool_call_ids=ids, **kw
    )


def _blocked(call: str, trace: str = "t1") -> Finding:
    return _f("OR001", f"call {call} has no tool result", ids=(call,), trace=trace,
              extra={"breakpoint": "blocked"})  # fmt: skip


def _slow(calls: tuple[str, ...], trace: str = "t1") -> Finding:
    return _f(
        "TM002", "chat request slow", ids=calls, trace=trace,
        extra={"breaches": {"end_to_end_ms": {"ms": 30000, "sla_ms": 3000}}},
    )  # fmt: skip


def test_silent_drop_is_one_incident_cause_first() -> None:
    drop = _f("TR001", "call c1 never reached the tool", ids=("c1",))
    out = link([_slow(("c1",)), _blocked("c1"), drop])
    assert [f.code for f in out] == ["TR001", "OR001", "TM002"]
    root, orphan, slow = out
    assert root.caused_by is None
    assert root.symptoms == (orphan.id, slow.id)
    assert orphan.caused_by == root.id and slow.caused_by == root.id
    assert headline(incidents(out)[0]) == (
        "TR001 call c1 never reached the tool → OR001 c1 got no tool result (blocked); "
        "TM002 the chat request took 30,000 ms (SLA 3,000 ms)."
    )


def test_chains_resolve_to_the_root() -> None:
    # TR001 explains OR001 and OR001 explains TM002: TM002's caused_by names the root
    out = link([_f("TR001", ids=("c1",)), _blocked("c1"), _slow(("c1",))])
    assert {f.code: f.caused_by for f in out} == {
        "TR001": None,
        "OR001": out[0].id,
        "TM002": out[0].id,
    }


def test_no_link_across_calls_traces_or_breakpoints() -> None:
    out = link(
        [
            _f("TR001", ids=("c1",)),
            _blocked("c2"),  # another call
            _blocked("c1", trace="t2"),  # another trace
            _f("OR003", ids=("c3",)),
            _blocked("c3"),  # OR003 explains response-dropped only
        ]
    )
    assert all(f.caused_by is None and not f.symptoms for f in out)


def test_or003_explains_a_dropped_response_and_tm001_a_missing_one() -> None:
    dropped = _f("OR001", ids=("c1",), extra={"breakpoint": "response-dropped"})
    silent = _f("OR001", ids=("c2",), extra={"breakpoint": "no-response"})
    out = link([dropped, silent, _f("OR003", ids=("c1",)), _f("TM001", ids=("c2",))])
    causes = {f.tool_call_ids[0]: f.code for f in out if f.symptoms}
    assert causes == {"c1": "OR003", "c2": "TM001"}


def test_flooding_links_need_the_cancellation() -> None:
    # without a context no call is known to be flood-cancelled: FL001 explains nothing
    out = link([_f("FL001", ids=("c1", "c2", "c3")), _blocked("c3")])
    assert all(f.caused_by is None for f in out)


def test_a_slow_request_is_explained_only_when_all_its_calls_are_the_cause_s() -> None:
    out = link([_f("TR001", ids=("c1",)), _slow(("c1", "c2"))])
    assert all(f.caused_by is None for f in out)


def test_provider_error_is_explained_by_its_related_code() -> None:
    pr = _f("PR008", "openai rejected the request", extra={"related_code": "OR001"})
    other = _f("PR008", "openai rejected again", trace="t2", extra={"related_code": "OR001"})
    out = link([pr, other, _f("OR001", ids=("c1",), extra={"breakpoint": "unknown"})])
    linked = {f.trace_id: f.caused_by for f in out if f.code == "PR008"}
    assert linked["t1"] is not None and linked["t2"] is None


def test_root_causes_lead_and_worst_incident_first() -> None:
    warn = _f("TR002", "result cut", ids=("c9",))
    out = link([warn, _blocked("c1"), _f("PR003", ids=("c1",))])
    assert [(f.code, f.caused_by is None) for f in out] == [
        ("PR003", True),
        ("OR001", False),
        ("TR002", True),
    ]


def test_ids_are_stable_and_unique() -> None:
    a = _f("TM002", "service slow", ids=("c1",))
    b = _f("TM002", "request slow", ids=("c1",))
    assert a.id == b.id == finding_id("TM002", "t1", ("c1",))
    out = unique_ids([a, b])
    assert len({f.id for f in out}) == 2
    assert [f.id for f in unique_ids([a, b])] == [f.id for f in out]  # same input, same ids


def test_trace_headline_counts_the_other_incidents() -> None:
    out = link([_f("TR001", "drop", ids=("c1",)), _blocked("c1"), _f("PR003", "case", ids=("c7",))])
    # one call each: the incident that explains more leads
    assert [f.code for f in out] == ["TR001", "OR001", "PR003"]
    assert trace_headlines(out) == {
        "t1": "TR001 drop → OR001 c1 got no tool result (blocked). (+1 more incident)"
    }


def test_documented_severities() -> None:
    fl003 = RULES.get("FL003")
    assert fl003.severity is Severity.error and fl003.allows(Severity.warning)
    assert not RULES.get("TR001").allows(Severity.warning)


@pytest.mark.corpus
def test_no_link_forms_on_tau_bench() -> None:
    """tau-bench's findings that share a call (FL001 and FL003 on one id, FL003 beside PR006
    or TR004) are independent: a reused id explains no loop, raw JSON explains no reused id."""
    from tests.conftest import CORPUS, need_corpus
    from toolcall_cli.diagnose import diagnose_events
    from toolcall_cli.sources import ingest_paths

    need_corpus()
    tau = CORPUS / "conversations/tau-bench/historical_trajectories__gpt-4o-airline.json"
    report = diagnose_events(ingest_paths([tau]).events)
    findings = report.findings
    shared = {
        (a.code, b.code)
        for a in findings
        for b in findings
        if a.code < b.code
        and a.trace_id == b.trace_id
        and set(a.tool_call_ids) & set(b.tool_call_ids)
    }
    assert shared == {("FL001", "FL003"), ("FL003", "PR006"), ("FL003", "TR004")}
    assert all(f.caused_by is None and not f.symptoms for f in findings)
    assert (report.summary["incidents"], report.summary["symptoms"]) == (len(findings), 0)
