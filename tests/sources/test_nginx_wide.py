"""Wide nginx lines (a long user agent and seven more trailing keys, the bench's `wide` shape)
parse to the events their compact lines give, and are read column-wise: a wide file once took
76 s per 100,000 lines, its other keys sent every row to the row-wise reader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pyarrow.compute as pc

from bench.cli_bench import wide_nginx
from fixtures.gen import bench_inputs
from tests.sources.test_nginx_fastpath import fallback_frame
from toolcall_cli.sources._shared.textlog import nonblank, read_lines
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.nginx import ADAPTER
from toolcall_cli.sources.nginx.fastpath import _fast
from toolcall_cli.sources.nginx.trailing_layout import by_layout

LINES = 3000
WIDE_KEYS = {
    "upstream_addr": "10.0.3.4:8080",
    "request_length": "2048",
    "ssl_protocol": "TLSv1.3",
    "cache": "MISS",
    "region": "eu-west-1",
    "pod": "gw-7f9c6d-abcde",
}


def _files(tmp_path: Path) -> tuple[Path, Path]:
    compact = bench_inputs.nginx(tmp_path / "compact.log", LINES)
    wide = tmp_path / "wide.log"
    wide_nginx(compact, wide)
    return compact, wide


def test_wide_lines_give_the_compact_events(tmp_path: Path) -> None:
    compact_path, wide_path = _files(tmp_path)
    compact, wide = (ADAPTER.parse(p, ParseOptions()) for p in (compact_path, wide_path))
    assert (wide["kind"] == "http_access").all()
    same = [c for c in compact.columns if c not in ("origin", "attrs")]
    pd.testing.assert_frame_equal(wide[same], compact[same])
    for c_text, w_text in zip(compact["attrs"], wide["attrs"], strict=True):
        c_attrs, w_attrs = orjson.loads(c_text), orjson.loads(w_text)
        assert w_attrs.pop("user_agent").startswith("Mozilla/5.0 ")
        assert w_attrs.pop("upstream_status") == "200"  # a known trailing key
        assert {k: w_attrs.pop(k) for k in WIDE_KEYS} == WIDE_KEYS  # the other keys, in order
        c_attrs.pop("user_agent", None)
        assert w_attrs == c_attrs


def test_wide_trailing_text_is_read_column_wise(tmp_path: Path) -> None:
    """The per-line cost bound, structurally: every wide line is cut by the split path and its
    trailing text read by the layout reader, so no row reaches a regex or Python per row."""
    _, wide_path = _files(tmp_path)
    lines, _ = nonblank(read_lines(wide_path, ParseOptions())[0])
    rows, variables = _fast(lines)
    assert len(rows) == len(lines)  # no line for COMBINED_RX
    text = pc.utf8_trim_whitespace(variables["trailing"])
    has = np.ones(len(text), bool)
    found, done, others = by_layout(text, has)
    assert done.all()  # no line for the token or row-wise readers
    assert others is not None and others.null_count == 0
    assert set(found) == {
        "http_x_trace_id",
        "http_x_session_id",
        "request_id",
        "http_x_tool_call_id",
        "request_time",
        "upstream_status",
    }


def test_wide_lines_equal_the_fallback(tmp_path: Path) -> None:
    _, wide_path = _files(tmp_path)
    """(COMBINED_RX and the row-wise reader for every line give the same table.)"""
    parsed = ADAPTER.parse(wide_path, ParseOptions())
    pd.testing.assert_frame_equal(parsed, fallback_frame(wide_path))
