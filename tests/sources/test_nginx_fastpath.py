"""The nginx fast paths (layout reader, split path, threaded slices, line splitting, time and
request shortcuts) give exactly what the slow, general paths give, on varied and real lines."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from tests.conftest import CORPUS
from toolcall_cli.sources._shared.attrs_text import _row_codes, attrs_text
from toolcall_cli.sources._shared.logtime import parse_times
from toolcall_cli.sources._shared.textlog import json_objects, nonblank, read_lines, split_lines
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.nginx import (
    ADAPTER,
    _combined_part,
    _looks_json,
    combined_variables,
    extract,
)
from toolcall_cli.sources.nginx.combined import COMBINED_RX, by_layout, split_trailing_tokens
from toolcall_cli.sources.nginx.time_local import clf_times
from toolcall_cli.sources.nginx.variables import (
    _numeric,
    _numeric_rows,
    _request_parts,
    _split_request_rows,
    _tools,
    build_events,
)

NGINX = CORPUS / "nginx_logs"
CORPUS_FILES = sorted(p for p in NGINX.rglob("*") if p.is_file() and "LICENSE" not in p.name)

HEADS = (
    "10.0.0.1 - - [01/Mar/2025:00:00:0{s} +0000]",
    "::1 - alice [1/Mar/2025:10:00:00 +0530]",
    "10.0.0.2 - -  [01/Mar/2025:00:00:00 +0000]",
    "host 10.0.0.3 - - [01/Mar/2025:00:00:00 +0000]",
    "10.0.0.4 - - [garbage]",
    "10.0.0.5\t-\t- [01/Mar/2025:00:00:00 +0000]",
    "10.0.0.6 - - [31/Feb/2025:00:00:00 +0000]",
)
REQUESTS = (
    '"POST /tools/get_weather HTTP/1.1"',
    '"GET / HTTP/1.0"',
    '"-"',
    '"\\x16\\x03\\x01"',
    '"GET /a\\"b HTTP/1.1"',
    '"POST /tools/x%20y?q=1 HTTP/2.0"',
    '"GET /é HTTP/1.1"',
    '"BAD"',
    '""',
    '"GET /tools/ HTTP/1.1"',
)
MIDS = (" 200 123 ", " 404 - ", " - - ", " 2000 1 ", " 200 123")
REFERERS = ('"-"', '"https://x.example/a b"', '""', '"ref\\"q"')
AGENTS = ('"agent/1.0"', '"Mozilla/5.0 (X11; Linux)"', '"-"', '"ua with é"')
KEYS = (
    "trace_id", "x_trace_id", "TRACE_ID", "Session_Id", "session_id", "x_session_id",
    "request_id", "req_id", "tool_call_id", "x_tool_call_id", "rt", "request_time", "urt",
    "upstream_response_time", "upstream_status", "us", "uſ", "cache", "Foo",
)  # fmt: skip
VALUES = ("abc", "-", "", "0.123", '"quoted v"', '"x"', "a=b", '"esc\\"q"', "200", "é", "1 2")
COMMON = (
    '10.1.2.3 - - [01/Mar/2025:00:00:01 +0000] "POST /v1/chat/completions HTTP/1.1" 200 871 '
    '"-" "agent/1.0" trace_id=t{i} session_id=s{i} request_id=r{i} rt=0.{i}',
    '10.1.2.4 - - [01/Mar/2025:00:00:02 +0000] "POST /tools/get_weather HTTP/1.1" 502 10 '
    '"-" "agent/1.1" trace_id=t{i} session_id=s{i} tool_call_id=c{i} rt={i}',
    '10.1.2.5 - - [01/Mar/2025:00:00:03 +0000] "GET / HTTP/1.1" 200 5 "-" "agent/1.1" '
    "rt=1 us=200 urt=0.5",
    '10.1.2.6 - - [01/Mar/2025:00:00:04 +0000] "GET / HTTP/1.1" 200 5 "-" "agent/1.1" '
    "trace_id=t{i} rt=1 trace_id=dup{i}",
    '10.1.2.7 - - [01/Mar/2025:00:00:05 +0000] "POST /tools/get_weather HTTP/1.1" 200 9 "-" '
    '"agent/1.1" trace_id=t{i} tool_call_id=c{i} rt=0.2 upstream_addr=10.0.3.4:8080 '
    "upstream_status=200 cache=MISS pod=gw-{i} dir=C:\\tmp\\{i}",
)


def _trailing(rnd: random.Random) -> str:
    parts = []
    for _ in range(rnd.randint(0, 5)):
        r = rnd.random()
        if r < 0.08:
            parts.append('"bare quoted"')
        elif r < 0.12:
            parts.append("bare")
        else:
            parts.append(f"{rnd.choice(KEYS)}={rnd.choice(VALUES)}")
    text = rnd.choice([" ", " ", " ", "  ", "\t"]).join(parts)
    lead, end = rnd.choice([" ", " ", "", "  "]), rnd.choice(["", "", " ", "\r"])
    return lead + text + end if text else rnd.choice(["", " ", "\r"])


def varied_lines(count: int, seed: int = 5) -> list[str]:
    """Common bench-like lines (so layouts and distinct-value shortcuts kick in) mixed with odd
    ones: broken heads, escaped quotes, odd keys and values, tabs, non-ASCII, junk."""
    rnd = random.Random(seed)
    out = []
    for i in range(count):
        r = rnd.random()
        if r < 0.5:
            out.append(rnd.choice(COMMON).format(i=i))
        elif r < 0.52:
            out.append(rnd.choice(["junk line", '{"not": "json"', "", "   ", "x [error] oops"]))
        else:
            head = rnd.choice(HEADS).format(s=i % 10)
            line = f"{head} {rnd.choice(REQUESTS)}{rnd.choice(MIDS)}"
            if r > 0.55:
                line += f"{rnd.choice(REFERERS)} {rnd.choice(AGENTS)}{_trailing(rnd)}"
            out.append(line)
    return out


def fallback_frame(path: Path) -> pd.DataFrame:
    """The combined branch of the adapter on its slow paths only: COMBINED_RX for every line,
    the token reader for every trailing text."""
    all_lines, _ = read_lines(path, ParseOptions())
    lines, line_no = nonblank(all_lines)
    variables, ok = extract(lines, COMBINED_RX)
    text = pc.utf8_trim_whitespace(variables.pop("trailing"))
    known, others, extras = split_trailing_tokens(text)
    for var, arr in known.items():
        variables.setdefault(var, arr)
    extra: list[tuple[str, pa.Array, str]] = []
    if others is not None:
        extra.append(("", others, "merge"))
    if extras is not None:
        extra.append(("extra", extras, "json"))
    return build_events(
        variables,
        ok=ok,
        lines=lines,
        line_no=line_no,
        path=path,
        tz="UTC",
        extra_attrs=extra,
        reason="not a combined/common access log line",
    )


def test_fast_paths_equal_the_fallback_on_varied_lines(tmp_path: Path) -> None:
    path = tmp_path / "varied.log"
    path.write_text("\n".join(varied_lines(6000)) + "\n", encoding="utf-8")
    fast = ADAPTER.parse(path, ParseOptions())
    assert (fast["kind"] == "http_access").sum() > 3000  # the sample is mostly parseable
    assert fast["trace_id"].notna().sum() > 2000
    pd.testing.assert_frame_equal(fast, fallback_frame(path))


@pytest.mark.corpus
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: str(p.relative_to(NGINX)))
def test_fast_paths_equal_the_fallback_on_corpus(corpus: Path, path: Path) -> None:
    lines, _ = nonblank(read_lines(path, ParseOptions())[0])
    if _looks_json(lines):
        pytest.skip("a JSON access log (not the combined branch)")
    pd.testing.assert_frame_equal(ADAPTER.parse(path, ParseOptions()), fallback_frame(path))


def test_threaded_slices_equal_one_pass() -> None:
    lines = pa.array(varied_lines(3000, seed=11), pa.large_string())
    whole = _combined_part(lines)
    sliced = combined_variables(lines, part=256)
    assert sliced[1].equals(whole[1])
    for var in set(whole[0]) | set(sliced[0]):
        a, b = whole[0].get(var), sliced[0].get(var)
        a = pa.nulls(len(lines), pa.large_string()) if a is None else a.cast(pa.large_string())
        b = pa.nulls(len(lines), pa.large_string()) if b is None else b.cast(pa.large_string())
        assert a.equals(b), var
    for a, b in ((whole[2], sliced[2]), (whole[3], sliced[3])):
        if a is None:
            assert b is None or b.null_count == len(lines)
        else:
            assert b is not None and a.cast(pa.large_string()).equals(b)


TRAILING = (
    "trace_id=a session_id=b rt=1",
    "TRACE_ID=a Session_Id=b rt=1",
    "trace_id=a  session_id=b rt=1",
    "trace_id=a session_id=b rt=1 trace_id=z",
    "trace_id= session_id=- rt=",
    "trace_id=a=b session_id=b rt=1",
    "trace_id=a\tsession_id=b rt=1",
    'trace_id="a" session_id=b rt=1',
    'trace_id="a b" session_id=b rt=1',
    "trace_id=é session_id=b rt=1",
    "uſ=5 trace_id=a session_id=b rt=1",
    "trace_id=a session_id=b rt=1 cache=HIT",
    "trace_id=a session_id=b bare rt=1",
    "x_trace_id=a req_id=b urt=0.2 us=502",
    "x_trace_id=a req_id=b urt=0.2 us=502 x_tool_call_id=c",
    "rt=1\u00a0us=2",
    "trace_id=a cache=HIT pod=p-1 rt=1",
    "trace_id=a cache=HIT pod=p\\1 rt=1",
    "trace_id=a cache=HIT cache=MISS rt=1",
    "trace_id=a Cache=HIT cache=MISS rt=1",
    "trace_id=a 9cache=HIT rt=1",
    "trace_id=a cache= rt=1",
)


def test_layout_reader_equals_the_token_reader() -> None:
    rows = [TRAILING[i % len(TRAILING)] for i in range(40 * len(TRAILING))]
    rows += ["trace_id=a session_id=b rt=1"] * 400  # one layout dominates the sample
    rows += ["trace_id=a cache=HIT pod=p-1 rt=1"] * 100  # and one with other keys
    text = pa.array(rows, pa.large_string())
    has = np.ones(len(rows), bool)
    by_rows, done, others = by_layout(text, has)
    assert done.sum() >= 500
    assert not done[[r.count("cache=") > 1 for r in rows]].any()  # a repeated other key
    tokens, want_others, _ = split_trailing_tokens(text.filter(pa.array(done)))
    for var in set(by_rows) | set(tokens):
        got = by_rows[var].filter(pa.array(done)) if var in by_rows else None
        want = tokens.get(var)
        assert (got is None and want is None) or (
            got is not None and want is not None and got.equals(want.cast(got.type))
        ), var
    assert others is not None and want_others is not None
    assert others.filter(pa.array(done)).equals(want_others)
    assert others.filter(pa.array(done))[0].as_py() is None
    assert '{"cache":"HIT","pod":"p\\\\1"}' in others.to_pylist()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"a",
        b"a\n",
        b"a\r\n\r\nb\r",
        b"a\n\nb\n\n",
        b"x\r\r\ny\n",
        "é ü\nñ\n".encode(),
        b"\xff\xfeA\nB\n",
        b"nul\x00byte\n  \n\t\n",
    ],
)
def test_split_lines_equals_python_splitting(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    want = [p.rstrip("\r") for p in parts] if "\r" in text else parts
    assert split_lines(data).to_pylist() == want
    kept, line_no = nonblank(split_lines(data))
    assert kept.to_pylist() == [p for p in want if p.strip()]
    assert line_no.to_pylist() == [i + 1 for i, p in enumerate(want) if p.strip()]


def test_clf_times_equal_parse_times() -> None:
    values = [
        "01/Mar/2025:00:00:00 +0000", "1/Mar/2025:10:00:00 +0530", "17/may/2015:10:05:03 -0700",
        "31/Feb/2025:00:00:00 +0000", "01/MAR/2025:00:00:00 +0000", "01/Mar/2025:24:00:00 +0000",
        "01/Mar/2025:23:59:60 +0000", "01/Mar/0099:23:59:59 +0000", "01/Mar/2025:00:00:00 +2400",
        "01/Mar/2025:00:00:00 -1259", None, "", "garbage", "2025-03-01T00:00:00Z", "1740787200",
        "29/Feb/2024:12:00:00 +0100", "29/Feb/2025:12:00:00 +0100", "31/Apr/2025:00:00:00 +0000",
        "01/Mar/2025:00:60:00 +0000", "01/Mar/2025:00:00:00 +0060", "01/Jan/2300:00:00:00 +0000",
        "01/Mar/2025:00:00:00 +0000 ", "00/Mar/2025:00:00:00 +0000", "30/Abc/2025:00:00:00 +0000",
    ]  # fmt: skip
    arr = pa.array(values * 3, pa.large_string())
    pd.testing.assert_series_equal(
        clf_times(arr, "Europe/Berlin"), parse_times(arr, "Europe/Berlin")
    )
    assert clf_times(arr, "UTC")[0] == pd.Timestamp("2025-03-01", tz="UTC")


def test_request_and_number_shortcuts_equal_the_row_paths() -> None:
    requests = ["POST /tools/a HTTP/1.1", "GET /x", "BAD", "GET /tools/b?q=1 HTTP/2.0", "a b c d"]
    arr = pa.array([requests[i % 5] for i in range(5000)] + [None], pa.large_string())
    clean = pa.array([requests[i % 2] for i in range(5000)], pa.large_string())
    assert all(pa.types.is_dictionary(a.type) for a in _request_parts(clean)[:3])  # shortcut
    method, rpath, protocol, tool = _request_parts(arr)
    rows = _split_request_rows(arr)
    for got, want in zip((method, rpath, protocol), rows, strict=True):
        assert got.cast(pa.large_string()).equals(want.cast(pa.large_string()))
    assert tool.equals(_tools(rows[1].cast(pa.large_string()), len(arr)))
    numbers = pa.array(["200", "0.5", " 7 ", "1e3", "", None, "٣", "12"] * 800, pa.large_string())
    digits = pa.array(["200", "404", None, "0012"] * 800, pa.large_string())
    times = pa.array(["0.301", "12", "1.5", None, "0.000"] * 700, pa.large_string())
    odd_times = [pa.array(["0.3", bad] * 10, pa.large_string()) for bad in ("1.", ".5", "1.2.3")]
    for values in (numbers, digits, times, *odd_times):
        assert _numeric(values).equals(_numeric_rows(values))
        mask = pc.match_substring_regex(values, r"^\s*\d+(?:\.\d+)?\s*$")
        none = pa.scalar(None, pa.large_string())
        want = pc.cast(pc.utf8_trim_whitespace(pc.if_else(mask, values, none)), pa.float64())
        assert _numeric(values).equals(want)


def test_attrs_per_combination_equal_the_direct_objects() -> None:
    rnd = random.Random(3)
    n = 10_000  # above the size where deduplicating starts to pay

    def column(choices: tuple[str | None, ...]) -> pa.Array:
        return pa.array([rnd.choice(choices) for _ in range(n)], pa.large_string())

    method = pc.dictionary_encode(column(("GET", "POST")))
    agent = column(('say "hi"\u0007', "agent/1.0", "é", None))
    full = column(("HTTP/1.1", "HTTP/2.0"))
    nothing = pa.nulls(n, pa.large_string())
    fields = [
        ("method", method, "str"),
        ("protocol", full, "str"),
        ("user_agent", agent, "str"),
        ("referer", nothing, "str"),
    ]
    assert _row_codes(fields, n) is not None  # the shortcut was taken
    assert attrs_text(fields, n).equals(json_objects(fields, n))
    sparse_only = [("user_agent", agent, "str"), ("x", column((None, None, "1")), "str")]
    assert attrs_text(sparse_only, n).equals(json_objects(sparse_only, n))
    unique = pa.array([f"id-{i}" for i in range(n)], pa.large_string())
    many = [*fields, ("request_id", unique, "str")]
    assert _row_codes(many, n) is None  # too many distinct values: the direct path
    assert attrs_text(many, n).equals(json_objects(many, n))
    with_json = [*fields, ("extra", column(('["a"]', None)), "json")]
    assert attrs_text(with_json, n).equals(json_objects(with_json, n))
