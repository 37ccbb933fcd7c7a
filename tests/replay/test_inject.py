"""inject: the result follows its assistant message and carries the call's id."""

from __future__ import annotations

from tests.replay.replay_helpers import ctx, tc
from toolcall_cli.replay import inject
from toolcall_cli.replay.base import ResultEvidence

MSG = frozenset({"tool_call"})


def test_result_in_place_with_id_passes() -> None:
    v = inject.check(tc(kinds=MSG, result=ResultEvidence("f#/3", "c1", True)), ctx())
    assert v.verdict == "pass"


def test_result_out_of_order() -> None:
    v = inject.check(tc(kinds=MSG, result=ResultEvidence("f#/7", "c1", False)), ctx())
    assert (v.verdict, v.code) == ("fail", "result-out-of-order")


def test_result_with_missing_or_other_id() -> None:
    assert (
        inject.check(tc(kinds=MSG, result=ResultEvidence("f#/3", None, True)), ctx()).code
        == "result-id-mismatch"
    )
    v = inject.check(tc(kinds=MSG, result=ResultEvidence("f#/3", "c9", True)), ctx())
    assert v.code == "result-id-mismatch" and "'c9'" in v.reason


def test_skips_without_result_or_conversation() -> None:
    assert inject.check(tc(kinds=MSG), ctx()).code == "no-result"
    assert inject.check(tc(kinds=frozenset({"mw_received"})), ctx()).code == "no-messages"
