"""ratelimit: sliding session window, per-tool limits, identical-call dedupe; deterministic."""

from __future__ import annotations

from tests.replay.replay_helpers import ctx, tc
from toolcall_cli.model.config import Config, Flooding
from toolcall_cli.replay import ratelimit
from toolcall_cli.replay.ratelimit import FLOOD_MESSAGE


def _args(i: int) -> str:
    return f'{{"user_id": "u{i}"}}'


def test_five_calls_pass_and_the_sixth_is_cancelled() -> None:
    c = ctx()
    verdicts = [ratelimit.check(tc(f"c{i}", args=_args(i), clock=float(i)), c) for i in range(6)]
    assert [v.verdict for v in verdicts] == ["pass"] * 5 + ["fail"]
    assert verdicts[-1].code == "flooding"
    assert (
        verdicts[-1].reason
        == FLOOD_MESSAGE
        == "tool call cancelled because tool-call flooding was detected"
    )


def test_the_window_slides() -> None:
    c = ctx()
    for i in range(5):
        ratelimit.check(tc(f"c{i}", args=_args(i), clock=float(i)), c)
    assert ratelimit.check(tc("c5", args=_args(5), clock=59.5), c).verdict == "fail"
    # 60 s after the first call it has left the window
    assert ratelimit.check(tc("c6", args=_args(6), clock=60.0), c).verdict == "pass"


def test_sessions_have_separate_windows() -> None:
    c = ctx()
    for i in range(5):
        ratelimit.check(tc(f"c{i}", args=_args(i), clock=0.0), c)
    assert ratelimit.check(tc("x", args=_args(9), clock=0.0, session_id="s2"), c).verdict == "pass"


def test_per_tool_limit_from_config() -> None:
    cfg = Config(flooding=Flooding(per_tool={"send_email": 2}))
    c = ctx(cfg)
    mail = [
        ratelimit.check(tc(f"m{i}", tool="send_email", args=f'{{"to": "a{i}@x.y"}}', clock=i), c)
        for i in range(3)
    ]
    assert [v.verdict for v in mail] == ["pass", "pass", "fail"]
    assert mail[-1].code == "tool-limit" and "'send_email' is limited to 2" in mail[-1].detail
    assert mail[-1].reason == FLOOD_MESSAGE
    # other tools still have room in the session window
    assert ratelimit.check(tc("q", args=_args(1), clock=3.0), c).verdict == "pass"


def test_identical_call_is_deduped_by_canonical_arguments() -> None:
    c = ctx()
    assert ratelimit.check(tc("a", args='{"x": 1, "y": [1, 2]}', clock=0.0), c).verdict == "pass"
    v = ratelimit.check(tc("b", args='{ "y": [1,2], "x": 1 }', clock=10.0), c)
    assert (v.verdict, v.code) == ("fail", "duplicate-call")
    assert ratelimit.check(tc("c", args='{"x": 2, "y": [1, 2]}', clock=11.0), c).verdict == "pass"
    assert ratelimit.check(tc("d", args='{"x": 1, "y": [1, 2]}', clock=61.0), c).verdict == "pass"


def test_cancelled_calls_do_not_count() -> None:
    c = ctx(Config(flooding=Flooding(max_calls=1, window_s=10)))
    assert ratelimit.check(tc("a", args=_args(1), clock=0.0), c).verdict == "pass"
    assert ratelimit.check(tc("b", args=_args(2), clock=5.0), c).verdict == "fail"
    assert ratelimit.check(tc("c", args=_args(3), clock=10.0), c).verdict == "pass"


def test_replay_is_deterministic() -> None:
    calls = [tc(f"c{i}", args=_args(i % 8), clock=float(i // 2)) for i in range(12)]
    runs = [[ratelimit.check(x, c).code for x in calls] for c in (ctx(), ctx())]
    assert runs[0] == runs[1]
    assert "duplicate-call" in runs[0] and "flooding" in runs[0]
