"""Property tests (hypothesis) over every adapter, the pipeline and the store (issue 8 §5).

Adapters get inputs shaped like their format — fixture lines mutated byte-wise, and JSON
built from the format's own keys with wrong types — and may only return a valid event table
or raise a documented toolcall error. The pipeline replays generated event tables. The event
table survives a round trip through the Parquet store unchanged. Budgets: 25 examples per
property in `make test`, 1000 under `make fuzz` (--fuzz-long).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.conftest import FIXTURES
from tests.fuzz.harness import documented, parse_bytes
from toolcall_cli.errors import ToolcallError
from toolcall_cli.model.events import build_frame, validate_frame
from toolcall_cli.store.read import load_events
from toolcall_cli.store.write import write_files

SEEDS = {
    "middleware": sorted((FIXTURES / "middleware").glob("*.log")),
    "nginx": sorted((FIXTURES / "nginx").glob("*.log")),
    "messages": sorted((FIXTURES / "messages").glob("*.json*")),
}
MESSAGE_KEYS = (
    "role",
    "content",
    "tool_calls",
    "id",
    "type",
    "function",
    "name",
    "arguments",
    "tool_call_id",
    "messages",
    "session_id",
    "trace_id",
    "tools",
    "choices",
    "message",
    "finish_reason",
    "input",
    "tool_use_id",
    "text",
    "is_error",
    "request",
    "response",
    "status",
    "error",
    "body",
    "delta",
    "index",
    "parameters",
)
MW_KEYS = (
    "ts",
    "time",
    "timestamp",
    "@timestamp",
    "event",
    "msg",
    "message",
    "trace_id",
    "traceId",
    "session_id",
    "tool_call_id",
    "call_id",
    "tool",
    "function",
    "name",
    "instance",
    "status",
    "latency_ms",
    "size",
    "reason",
    "rule",
    "level",
)
WORDS = (
    "user",
    "assistant",
    "tool",
    "system",
    "function",
    "tool_use",
    "tool_result",
    "tool_call.rejected",
    "tool_call.flooded",
    "POST /tools/x",
    "{}",
    '{"a": 1}',
    '{"a":',
    '<tool_call>{"name": "x", "arguments": {}}</tool_call>',
    "Action: x\nAction Input: {}",
    "2025-03-01T12:00:00Z",
    "call_1",
    "",
)


def _settings(n: int) -> Any:
    # Short runs (make test) skip shrinking, which can take minutes on a pandas-heavy property;
    # long runs (make fuzz) shrink to a minimal example.
    phases = list(Phase) if n >= 100 else [p for p in Phase if p is not Phase.shrink]
    return settings(
        max_examples=n,
        deadline=None,
        database=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
    )


def _lines(source: str) -> list[bytes]:
    out: list[bytes] = []
    for p in SEEDS[source]:
        out.extend(line for line in p.read_bytes().splitlines() if line.strip())
    return out


@st.composite
def mutated(draw: st.DrawFn, pool: list[bytes]) -> bytes:
    """A few seed lines with byte-level edits (insert, delete, replace, cut, duplicate)."""
    lines = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6))
    out = []
    for line in lines:
        b = bytearray(line)
        for _ in range(draw(st.integers(0, 4))):
            i = draw(st.integers(0, max(0, len(b))))
            op = draw(st.sampled_from(["ins", "del", "rep", "cut", "dup"]))
            junk = draw(
                st.binary(min_size=1, max_size=8)
                | st.sampled_from(
                    [
                        b'"',
                        b"\\",
                        b"{",
                        b"}",
                        b"[",
                        b"\xff",
                        b"\x00",
                        b"\r",
                        b"\x1b[31m",
                        b"=",
                        b" ",
                    ]
                )
            )
            if op == "ins":
                b[i:i] = junk
            elif op == "del":
                del b[i : i + len(junk)]
            elif op == "rep":
                b[i : i + len(junk)] = junk
            elif op == "cut":
                del b[i:]
            else:
                b[i:i] = b[:i]
        out.append(bytes(b))
    return b"\n".join(out) + draw(st.sampled_from([b"\n", b"", b"\r\n"]))


def _json_values(keys: tuple[str, ...]) -> st.SearchStrategy[Any]:
    leaves = (
        st.none()
        | st.booleans()
        | st.integers(-(2**70), 2**70)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=12)
        | st.sampled_from(WORDS)
    )
    return st.recursive(
        leaves,
        lambda kids: (
            st.lists(kids, max_size=4)
            | st.dictionaries(st.sampled_from(keys) | st.text(max_size=4), kids, max_size=6)
        ),
        max_leaves=25,
    )


def _check(source: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        frame = parse_bytes(source, data, workdir=d)
    if frame is not None:
        assert set(frame["source"].dropna()) <= {source}


@pytest.mark.parametrize("source", ["middleware", "nginx", "messages"])
def test_mutated_lines(source: str, examples: int) -> None:
    pool = _lines(source)

    @_settings(examples)
    @given(data=mutated(pool) | st.binary(max_size=512))
    def prop(data: bytes) -> None:
        _check(source, data)

    prop()


def test_messages_shaped_json(examples: int) -> None:
    @_settings(examples)
    @given(doc=_json_values(MESSAGE_KEYS), wrap=st.sampled_from(["bare", "messages", "jsonl"]))
    def prop(doc: Any, wrap: str) -> None:
        if wrap == "messages":
            text = json.dumps({"session_id": "s", "messages": doc})
        elif wrap == "jsonl":
            text = json.dumps(doc) + "\n" + json.dumps({"messages": doc}) + "\n"
        else:
            text = json.dumps(doc)
        _check("messages", text.encode())

    prop()


def test_middleware_shaped_records(examples: int) -> None:
    @_settings(examples)
    @given(
        recs=st.lists(
            st.dictionaries(st.sampled_from(MW_KEYS), _json_values(MW_KEYS), max_size=8),
            min_size=1,
            max_size=5,
        ),
        style=st.sampled_from(["json", "logfmt"]),
    )
    def prop(recs: list[dict[str, Any]], style: str) -> None:
        if style == "json":
            text = "\n".join(json.dumps(r) for r in recs)
        else:
            text = "\n".join(" ".join(f"{k}={json.dumps(v)}" for k, v in r.items()) for r in recs)
        _check("middleware", text.encode())

    prop()


@pytest.mark.tshark
def test_mutated_captures(tshark: str, fuzz_long: bool) -> None:
    seeds = [p.read_bytes() for p in sorted((FIXTURES / "pcap").glob("*.pcap"))]

    @_settings(200 if fuzz_long else 3)  # every example starts tshark: keep the short run short
    @given(
        seed=st.sampled_from(seeds),
        flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), min_size=1, max_size=12),
        cut=st.floats(0.2, 1.0),
    )
    def prop(seed: bytes, flips: list[tuple[float, int]], cut: float) -> None:
        b = bytearray(seed[: max(24, int(len(seed) * cut))])
        for where, val in flips:
            b[24 + int(where * (len(b) - 25))] = val
        _check("pcap", bytes(b))

    prop()


# --- pipeline -----------------------------------------------------------------------------

KINDS = (
    "tool_call",
    "tool_result",
    "user",
    "assistant_text",
    "system",
    "mw_received",
    "mw_rejected",
    "mw_flooded",
    "mw_request",
    "mw_response",
    "mw_dropped",
    "mw_injected",
    "mw_timeout",
    "http_request",
    "http_response",
    "http_access",
    "unparsed",
)
SOURCE_OF = {
    "tool_call": "messages",
    "tool_result": "messages",
    "user": "messages",
    "assistant_text": "messages",
    "system": "messages",
    "http_request": "pcap",
    "http_response": "pcap",
    "http_access": "nginx",
    "unparsed": "middleware",
}
ARGS = ('{"q": "x"}', '{"q": 1', "", "null", "[1, 2]", '{"date": "2025-02-30"}', "{}", "nope")


@st.composite
def event_tables(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 14))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=n, max_size=n))

    def maybe(values: Sequence[Any]) -> st.SearchStrategy[Any]:
        return st.none() | st.sampled_from(values)

    cols: dict[str, list[Any]] = {
        "kind": kinds,
        "source": [SOURCE_OF.get(k, "middleware") for k in kinds],
        "seq": list(range(n)),
        "origin": [f"f{i % 3}.log:{i + 1}" for i in range(n)],
        "ts": draw(
            st.lists(
                st.none()
                | st.datetimes(
                    min_value=datetime(2025, 3, 1),
                    max_value=datetime(2025, 3, 1, 0, 5),
                    timezones=st.just(UTC),
                ),
                min_size=n,
                max_size=n,
            )
        ),
        "session_id": draw(st.lists(maybe(["s1", "s2"]), min_size=n, max_size=n)),
        "trace_id": draw(st.lists(maybe(["t1", "t2"]), min_size=n, max_size=n)),
        "tool_call_id": draw(st.lists(maybe(["c1", "c2", "c3", ""]), min_size=n, max_size=n)),
        "tool": draw(
            st.lists(maybe(["search", "Search", "send_email", "x" * 70]), min_size=n, max_size=n)
        ),
        "args": draw(st.lists(maybe(ARGS), min_size=n, max_size=n)),
        "status": draw(st.lists(maybe(["ok", "error", "success"]), min_size=n, max_size=n)),
        "http_status": draw(st.lists(maybe([200, 404, 500]), min_size=n, max_size=n)),
        "attrs": draw(
            st.lists(
                maybe(
                    [
                        '{"call_id": "c2"}',
                        '{"tools": [{"type": "function", '
                        '"function": {"name": "search", "parameters": {}}}]}',
                        "{}",
                        "not json",
                        '{"finish_reason": "length"}',
                    ]
                ),
                min_size=n,
                max_size=n,
            )
        ),
        "detail": draw(
            st.lists(maybe(["tool call received", "call_id mismatch", "…"]), min_size=n, max_size=n)
        ),
    }
    return validate_frame(build_frame(cols, n=n))


def test_pipeline_replay_on_generated_events(examples: int) -> None:
    from toolcall_cli.replay import replay

    @_settings(max(8, examples // 3))  # a replay aligns first: about a second each
    @given(events=event_tables(), pick=st.sampled_from([("session", "s1"), ("trace", "t1")]))
    def prop(events: pd.DataFrame, pick: tuple[str, str]) -> None:
        try:
            if pick[0] == "session":
                report = replay(events, session_id=pick[1])
            else:
                report = replay(events, trace_id=pick[1])
        except ToolcallError as e:
            assert documented(e), e
            return
        for call in report.calls:
            assert call.replayed == "dispatched" or call.replayed.startswith("rejected@")

    prop()


def test_event_table_round_trips_through_the_store(examples: int) -> None:
    text = st.none() | st.text(max_size=30)

    @_settings(max(15, examples * 2 // 3))
    @given(
        events=event_tables(),
        extra=st.lists(
            st.tuples(
                text,
                text,
                st.none() | st.floats(allow_nan=False, allow_infinity=False),
                st.none() | st.integers(-(2**62), 2**62),
            ),
            min_size=1,
            max_size=1,
        ),
    )
    def prop(events: pd.DataFrame, extra: list[tuple[Any, Any, Any, Any]]) -> None:
        df = events.copy()
        detail, client, dur, size = extra[0]
        df.loc[0, "detail"], df.loc[0, "client"] = detail, client
        df.loc[0, "duration_ms"], df.loc[0, "size"] = dur, size
        df = validate_frame(build_frame({c: df[c] for c in df.columns}, n=len(df)))
        with tempfile.TemporaryDirectory() as d:
            store = Path(d) / "store"
            write_files(store, [(Path(d) / "input.log", "middleware", df)])
            back = load_events(store)
        key = ["origin", "seq"]
        pd.testing.assert_frame_equal(
            back.sort_values(key).reset_index(drop=True), df.sort_values(key).reset_index(drop=True)
        )

    prop()
