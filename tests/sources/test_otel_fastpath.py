"""The column-wise path for large OTLP/JSON trace lines: when it is taken, what it refuses, and its
parts (the rows it makes are held to committed event tables in `test_otel_goldens`). `_same`
and `_slow` serve `test_otel_fast_spans`, which holds the spans it builds for records."""

from __future__ import annotations

from pathlib import Path

import orjson
import pandas as pd
import pytest

from fixtures.gen.otel.bench import spans
from tests.conftest import FIXTURES
from toolcall_cli.sources import parse_file
from toolcall_cli.sources.otel import fast, read

OTEL = FIXTURES / "otel"


def _slow(path: Path, monkeypatch: pytest.MonkeyPatch) -> pd.DataFrame:
    with monkeypatch.context() as m:
        m.setattr(read.fast, "read", lambda *a: None)
        return parse_file(path, source="otel")


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert len(a) == len(b)
    for c in (c for c in a.columns if c != "attrs"):
        diff = (a[c].astype(object).fillna("∅") != b[c].astype(object).fillna("∅")).to_numpy()
        assert not diff.any(), (c, a[c][diff].head(2).tolist(), b[c][diff].head(2).tolist())
    parsed = [orjson.loads(x) if isinstance(x, str) else None for x in a["attrs"]]
    assert parsed == [orjson.loads(x) if isinstance(x, str) else None for x in b["attrs"]]


def test_fast_path_is_taken(tmp_path: Path) -> None:
    f = spans(tmp_path / "b.jsonl", 900, per_line=100)
    got = fast.read(f, str(f))
    assert got is not None
    assert sum(map(len, got.rows)) == 2 * (
        285 + 300
    )  # execute_tool and HTTP spans (db spans: no rows)
    assert len(got.batch.spans) == 15  # the chat spans go per span


def test_irregular_files_take_the_per_span_path(tmp_path: Path) -> None:
    line = (OTEL / "genai_loop/traces.otlp.jsonl").read_text().strip()
    for text in (line.replace('"kind": 1', '"kind": "SPAN_KIND_INTERNAL"'), f"{line}\n\n{line}"):
        f = tmp_path / "x.jsonl"
        f.write_text(text)
        assert fast.read(f, str(f)) is None
        assert len(parse_file(f)) == 19


def test_span_keys_read_the_hex_of_sliced_arrays() -> None:
    import numpy as np
    import pyarrow as pa

    from toolcall_cli.sources.otel.hexkeys import repeats, span_keys

    traces = ["0" * 31 + "1", "ff" * 16, "0123456789abcdef" * 2, "ff" * 16]
    spans_ = ["00000000000000aa", "ffffffffffffffff", "0123456789abcdef", "ffffffffffffffff"]
    keys = span_keys(pa.array(["x" * 32, *traces])[1:], pa.array(["y" * 16, *spans_])[1:])
    want = [
        [int(t[:16], 16), int(t[16:], 16), int(s, 16)] for t, s in zip(traces, spans_, strict=True)
    ]
    assert keys.tolist() == want
    assert repeats(keys).tolist() == [3]
    assert repeats(keys[:3]).tolist() == []
    same_span = np.array([[1, 2, 5], [1, 3, 5]], np.uint64)  # one span id in two traces
    assert repeats(same_span).tolist() == []


def test_all_hex_takes_only_lowercase_hex_of_the_width() -> None:
    import pyarrow as pa

    from toolcall_cli.sources.otel.hexkeys import all_hex

    good = ["0123456789abcdef", "ffffffffffffffff"]
    assert all_hex(pa.array(good), 16)
    assert all_hex(pa.array(["XXXXXXXXXXXXXXXX", *good])[1:], 16)  # a slice: its own bytes
    assert not all_hex(pa.array([*good, "0123456789ABCDEF"]), 16)
    assert not all_hex(pa.array([*good, "0123456789abcdeg"]), 16)
    assert not all_hex(pa.array([*good, "0123456789abcde"]), 16)
    assert not all_hex(pa.array([*good, None]), 16)
    assert all_hex(pa.array([], pa.string()), 16)


def test_quoted_words_read_the_span_id_out_of_attrs_text() -> None:
    import pyarrow as pa

    from toolcall_cli.sources.otel.hexkeys import quoted_words

    texts = [
        "skip",
        '{"convention":"http","span_id":"0123456789abcdef"}',
        None,
        '{"span_id":"0123456789ABCDEF"}',  # not lowercase hex: not a span id of ours
        '{"span_id":"0123456789abcdef',  # cut before the closing quote
        '{"span_id":"00000000000000ff"}',
    ]
    words, ok = quoted_words(pa.array(texts)[1:], '"span_id":"')
    assert ok.tolist() == [True, False, False, False, True]
    assert words[ok].tolist() == [0x0123456789ABCDEF, 0xFF]


@pytest.mark.parametrize("name", ["genai_loop", "openinference_loop"])
def test_attrs_sets_counted_by_sort_are_the_same_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    from toolcall_cli.sources.otel import fast_attrs

    f = spans(tmp_path / "b.jsonl", 600, per_line=50)
    for path in (f, OTEL / name / "traces.otlp.jsonl"):
        table = parse_file(path, source="otel")
        with monkeypatch.context() as m:  # every set numbered by a sort, not by a table
            m.setattr(fast_attrs, "_TABLE", 0)
            m.setattr(fast_attrs, "_KEY_LIMIT", 1)
            sorted_sets = parse_file(path, source="otel")
        assert table["attrs"].tolist() == sorted_sets["attrs"].tolist()
    rows = parse_file(f, source="otel")
    http = rows[rows["kind"] == "http_response"]["attrs"].map(orjson.loads)
    assert {a["convention"] for a in http} == {"genai", "http"}
    assert all(a["content_captured"] for a in http if a["convention"] == "genai")


def test_tool_rows_table_is_what_build_frame_makes(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.json as pj

    from toolcall_cli.model.events import build_frame
    from toolcall_cli.sources.otel.fast_columns import span_columns
    from toolcall_cli.sources.otel.fast_rows import tool_rows

    f = spans(tmp_path / "b.jsonl", 600, per_line=100)
    cols = span_columns(pj.read_json(pa.BufferReader(f.read_bytes())), str(f), 0)
    assert cols is not None
    got, _ = tool_rows(cols)
    assert len(got) == 2 * (190 + 200)
    want = build_frame({c: got[c] for c in got.columns}, n=len(got))
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert [str(t) for t in got.dtypes] == [str(t) for t in want.dtypes]
