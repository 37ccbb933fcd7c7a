"""The batch replay (`pipeline.scopes.ScopeReplayer`) gives every scope exactly what `replay`
gives it: the same calls, in the same order, with the same verdicts, or the same error."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import FIXTURES, need_corpus, need_tshark
from tests.replay.replay_helpers import QUERY_DB, call, frame, mw, result
from toolcall_cli.align import align
from toolcall_cli.errors import UsageError
from toolcall_cli.replay import replay
from toolcall_cli.replay.scopes import ScopeReplayer
from toolcall_cli.sources import ingest_paths
from toolcall_cli.tools.registry import ToolRegistry, registry_from_paths

Scope = tuple[str | None, str | None]


def _one_by_one(events: pd.DataFrame, scopes: list[Scope], registry: ToolRegistry | None) -> list:
    out: list = []
    for session_id, trace_id in scopes:
        try:
            rep = (
                replay(events, registry=registry, session_id=session_id)
                if session_id
                else replay(events, registry=registry, trace_id=trace_id)
            )
        except UsageError as e:
            out.append(("error", e.message))
            continue
        out.append(rep.calls)
    return out


def _batched(events: pd.DataFrame, scopes: list[Scope], registry: ToolRegistry | None) -> list:
    got = ScopeReplayer(events, registry=registry).replay_many(scopes)
    return [("error", g.message) if isinstance(g, UsageError) else g for g in got]


def _scopes(events: pd.DataFrame, limit: int) -> list[Scope]:
    """Every session and trace (up to *limit* of each), a call id named as a trace, a trace
    and a session that name nothing, and a scope that names neither."""
    sessions = sorted({str(s) for s in events["session_id"].dropna()})[:limit]
    traces = sorted({str(t) for t in events["trace"].dropna()})[:limit]
    ids = sorted({str(c) for c in events["tool_call_id"].dropna() if c})[:limit]
    return (
        [(s, None) for s in sessions]
        + [(None, t) for t in traces]
        + [(None, c) for c in ids]
        + [(None, "no-such-trace"), ("no-such-session", None), (None, None)]
    )


def _same(paths: list[Path], *, registry: ToolRegistry | None = None, limit: int = 60) -> None:
    events = align(ingest_paths(paths).events).events
    scopes = _scopes(events, limit)
    expected = _one_by_one(events, scopes, registry)
    assert _batched(events, scopes, registry) == expected
    assert any(e and e[0] != "error" for e in expected)  # some scope replays calls


@pytest.mark.tshark
@pytest.mark.parametrize(
    "bundle", sorted(p.name for p in (FIXTURES / "incidents").iterdir() if p.is_dir())
)
def test_every_incident_bundle_replays_the_same(bundle: str) -> None:
    need_tshark()
    _same([FIXTURES / "incidents" / bundle])


def test_a_registry_given_is_used_for_every_scope() -> None:
    need_tshark()
    registry = registry_from_paths([FIXTURES / "schemas" / "openai_tools.json"])
    _same([FIXTURES / "incidents" / "silent-drop"], registry=registry)


@pytest.mark.parametrize(
    "name",
    [
        "tau-bench/historical_trajectories__gpt-4o-airline.json",
        "llm-anthropic_cassettes",
        "toolbench_answer_examples",
    ],
)
def test_real_conversations_replay_the_same(name: str) -> None:
    _same([need_corpus() / "conversations" / name], limit=25)


def test_scopes_sharing_ids_and_sessions_replay_the_same() -> None:
    # two conversations reuse call_0; the middleware logs call_0 under a third session, with
    # another trace; a session declares its tools
    tools = {"tools": [QUERY_DB]}
    events = frame(
        [
            {"source": "messages", "kind": "system", "session_id": "s2", "attrs": tools},
            call("call_0", "query_db", '{"user_id": "u"}', session="s1"),
            call("call_0", "query_db", '{"user_id": ""}', session="s2"),
            call("call_1", "query_db", "{bad json", session="s2", turn=2),
            result("call_1", session="s2"),
            mw("mw_received", "call_0", "2025-03-01T12:00:01Z", session="mw-s"),
            mw("mw_received", "call_9", "2025-03-01T12:00:02Z", session="mw-s", trace_id="t9"),
            mw("mw_request", "call_9", "2025-03-01T12:00:03Z", session="mw-s", trace_id="t9"),
        ]
    )
    events = align(events).events
    scopes = _scopes(events, 10)
    expected = _one_by_one(events, scopes, None)
    assert _batched(events, scopes, None) == expected
    assert sum(e[0] != "error" for e in expected) >= 5


def test_an_id_another_bundle_reuses_brings_in_nothing_of_it() -> None:
    """Ids are scoped: the ATIF trajectory's call_w1 and the healthy bundle's call_w1 are two
    calls. Replaying the trajectory's session beside the bundle gives what it gives alone (no
    get_weather call of another session, no unknown-tool against that session's tools), and
    the bundle's session still gets its middleware and wire evidence: the union of each."""
    need_tshark()
    atif = FIXTURES / "transcripts" / "atif_trajectory.json"
    healthy = FIXTURES / "incidents" / "healthy"
    both = align(ingest_paths([healthy, atif]).events).events
    for session, alone in (("tb-hello-world-7f2a", atif), ("sess-healthy", healthy)):
        one = align(ingest_paths([alone]).events).events
        got = replay(both, session_id=session)
        assert got.calls == replay(one, session_id=session).calls, session
        assert {c.session_id for c in got.calls} == {session}
        batched = ScopeReplayer(both).replay_many([(session, None)])
        assert batched == [got.calls]
    healthy_calls = replay(both, session_id="sess-healthy").calls
    assert healthy_calls and all(c.replayed == "dispatched" for c in healthy_calls)
    assert {c.observed for c in healthy_calls} == {"dispatched"}
