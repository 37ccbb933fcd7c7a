"""The log_format compiler: nginx.conf directives → one regex (RE2 and Python) or a JSON key map."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from tests.conftest import need_corpus
from toolcall_cli.errors import UsageError
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.nginx import ADAPTER
from toolcall_cli.sources.nginx.log_format import COMBINED, compile_format, format_text

#: As it stands in a real nginx.conf (the `main` format of the stock config plus timings).
NGINX_CONF = r"""
log_format  main  '$remote_addr - $remote_user [$time_local] "$request" '
                  '$status $body_bytes_sent "$http_referer" '
                  '"$http_user_agent" "$http_x_forwarded_for" '
                  'rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" '
                  'urt="$upstream_response_time" $http_x_trace_id $request_id';
"""
MAIN_LINE = (
    '203.0.113.9 - - [01/Mar/2025:12:00:01 +0000] "POST /tools/get_weather HTTP/1.1" 200 512 "-" '
    '"toolcall/2.3" "10.1.2.3" rt=0.081 uct="0.001" uht="0.079" urt="0.079" tr-9 5d41402abc4b2a76'
)


def test_directive_pieces_are_joined() -> None:
    text, json_escape = format_text(NGINX_CONF)
    assert not json_escape
    assert text.startswith("$remote_addr - $remote_user [$time_local]")
    assert text.endswith("$http_x_trace_id $request_id")


def test_realistic_config_compiles_to_one_regex_for_re2_and_python() -> None:
    fmt = compile_format(NGINX_CONF)
    assert fmt.regex is not None
    m = re.match(fmt.regex, MAIN_LINE)
    assert m is not None
    got = {fmt.groups[k]: v for k, v in m.groupdict().items()}
    assert got["remote_addr"] == "203.0.113.9"
    assert got["time_local"] == "01/Mar/2025:12:00:01 +0000"
    assert got["request"] == "POST /tools/get_weather HTTP/1.1"
    assert got["http_x_forwarded_for"] == "10.1.2.3"
    assert got["upstream_header_time"] == "0.079"
    assert got["http_x_trace_id"] == "tr-9"
    assert got["request_id"] == "5d41402abc4b2a76"
    st = pc.extract_regex(pa.array([MAIN_LINE, "garbage"]), fmt.regex)
    assert st.is_valid().to_pylist() == [True, False]


def test_realistic_config_end_to_end(tmp_path: Path) -> None:
    p = tmp_path / "access.log"
    p.write_text(MAIN_LINE + "\nnot a line\n", encoding="utf-8")
    df = ADAPTER.parse(p, ParseOptions(nginx_format=NGINX_CONF))
    assert list(df["kind"]) == ["http_access", "unparsed"]
    row = df.iloc[0]
    assert (row["trace_id"], row["request_id"], row["tool"]) == (
        "tr-9",
        "5d41402abc4b2a76",
        "get_weather",
    )
    assert row["duration_ms"] == pytest.approx(81.0)


def test_combined_matches_the_builtin_parser() -> None:
    fmt = compile_format(COMBINED)
    line = '1.2.3.4 - - [17/May/2015:10:05:03 +0200] "GET / HTTP/1.1" 200 5 "-" "curl/8"'
    assert fmt.regex and re.match(fmt.regex, line)


def test_iso_time_msec_and_braced_variables(tmp_path: Path) -> None:
    spec = '${time_iso8601}|$msec|$remote_addr|"$request"|$status|$bytes_sent|$http_x_session_id'
    p = tmp_path / "a.log"
    p.write_text(
        '2025-03-01T13:00:00+01:00|1740830400.250|10.0.0.1|"GET /tools/x HTTP/1.1"|200|99|s-1\n',
        encoding="utf-8",
    )
    df = ADAPTER.parse(p, ParseOptions(nginx_format=spec))
    row = df.iloc[0]
    assert row["kind"] == "http_access"
    assert str(row["ts"]) == "2025-03-01 12:00:00+00:00"  # $time_iso8601 wins over $msec
    assert (row["size"], row["session_id"], row["tool"]) == (99, "s-1", "x")


def test_escape_json_directive_maps_custom_keys(tmp_path: Path) -> None:
    spec = (
        'log_format jlog escape=json \'{"t":"$msec","ip":"$remote_addr",\' '
        '\'"req":"$request","code":"$status","tid":"$http_x_trace_id"}\';'
    )
    fmt = compile_format(spec)
    assert fmt.is_json
    assert fmt.json_keys == {
        "t": "msec",
        "ip": "remote_addr",
        "req": "request",
        "code": "status",
        "tid": "http_x_trace_id",
    }
    p = tmp_path / "j.log"
    p.write_text(
        '{"t":"1740830400.500","ip":"10.0.0.1","req":"POST /tools/get_weather HTTP/1.1",'
        '"code":"201","tid":"tr-1"}\n'
        "{broken\n",
        encoding="utf-8",
    )
    df = ADAPTER.parse(p, ParseOptions(nginx_format=spec))
    assert list(df["kind"]) == ["http_access", "unparsed"]
    row = df.iloc[0]
    assert (row["client"], row["http_status"], row["trace_id"]) == ("10.0.0.1", 201, "tr-1")
    assert str(row["ts"]) == "2025-03-01 12:00:00.500000+00:00"


def test_format_without_variables_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        compile_format("just text")


def test_lnav_custom_vhost_format_on_real_lines() -> None:
    """The corpus' JIRA access log: vhost:port, session cookie and a µs duration after the UA."""
    path = need_corpus() / "nginx_logs" / "lnav_tests" / "logfile_regexp_access_log.0"
    spec = (
        '$host:$server_port $remote_addr $cookie_session $remote_user [$time_local] "$request" '
        '$status $body_bytes_sent "$http_referer" "$http_user_agent" $request_time_us'
    )
    df = ADAPTER.parse(path, ParseOptions(nginx_format=spec))
    assert list(df["kind"]) == ["http_access", "http_access"]
    assert list(df["client"]) == ["178.20.184.42", "154.57.4.229"]
    assert str(df["ts"][0]) == "2023-07-26 07:01:26+00:00"
    assert '"request_time_us":"116075"' in df["attrs"][0]
