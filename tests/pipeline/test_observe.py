"""observe/agrees: the observed outcome from evidence kinds and the agreement table."""

from __future__ import annotations

from typing import Any

import pytest

from tests.pipeline.replay_helpers import tc
from toolcall_cli.pipeline.base import ResultEvidence
from toolcall_cli.pipeline.observe import agrees, observe


@pytest.mark.parametrize(
    ("kinds", "kw", "expected"),
    [
        ({"mw_received", "mw_rejected"}, {}, "rejected"),
        ({"mw_received", "mw_flooded"}, {}, "flooded"),
        ({"mw_received", "mw_request"}, {}, "dispatched"),
        ({"http_request"}, {}, "dispatched"),
        ({"tool_call"}, {"result": ResultEvidence("f#/2", "c1", True)}, "dispatched"),
        ({"tool_call"}, {"wire_in_scope": True}, "missing"),
        ({"tool_call"}, {"later_messages": True}, "missing"),
        ({"tool_call"}, {}, "unknown"),
    ],
)
def test_observe(kinds: set[str], kw: dict[str, Any], expected: str) -> None:  # kw: for tc()
    assert observe(tc(kinds=frozenset(kinds), **kw)) == expected


@pytest.mark.parametrize(
    ("replayed", "observed", "ok"),
    [
        ("dispatched", "dispatched", True),
        ("dispatched", "rejected", False),
        ("dispatched", "missing", False),
        ("rejected@response", "dispatched", True),  # judged after the request went out
        ("rejected@inject", "dispatched", True),
        ("rejected@ratelimit", "flooded", True),
        ("rejected@ratelimit", "rejected", False),
        ("rejected@schema", "rejected", True),
        ("rejected@schema", "flooded", False),
        ("rejected@prescreen", "dispatched", False),
        ("rejected@schema", "missing", True),  # a silent validation drop
        ("dispatched", "unknown", True),
        ("rejected@schema", "unknown", True),
    ],
)
def test_agrees(replayed: str, observed: str, ok: bool) -> None:
    assert agrees(replayed, observed) is ok
