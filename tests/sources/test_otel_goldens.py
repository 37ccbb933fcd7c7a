"""The otel reader held to committed event tables (`ingest --no-store -f jsonl`) of every
OpenTelemetry and Langfuse fixture — each encoding (OTLP/JSON lines, one document, protobuf,
zstd, Tempo, Jaeger, Langfuse exports) — and of bench-generator files read block by block,
with repeated deliveries and a last line cut short of its newline."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.gen.otel.bench import spans
from tests.conftest import FIXTURES, ROOT, assert_golden
from toolcall_cli.sources.otel import fast

_FILES = sorted(
    str(p.relative_to(ROOT))
    for d in ("otel", "langfuse")
    for p in (FIXTURES / d).rglob("*")
    if p.is_file() and "as_messages" not in p.parts and p.suffix != ".md"
)


@pytest.mark.parametrize("path", _FILES)
def test_fixture_event_table(path: str, update_goldens: bool) -> None:
    args = ["ingest", "--no-store", "-f", "jsonl", "--source", "otel", path]
    assert_golden(f"events/{path}", args, update=update_goldens)


def _generated(tmp_path: Path, shape: str) -> Path:
    f = spans(tmp_path / f"{shape}.jsonl", 150, per_line=10)
    if shape == "repeated":  # a retrying exporter wrote batch 1 again
        lines = f.read_bytes().splitlines(keepends=True)
        f.write_bytes(b"".join([*lines, lines[0]]))
    elif shape == "cut":  # the last line cut short of its newline
        f.write_bytes(f.read_bytes().rstrip(b"\n"))
    return f


@pytest.mark.parametrize("block", [1 << 12, 1 << 24])
@pytest.mark.parametrize("shape", ["plain", "repeated", "cut"])
def test_generated_event_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update_goldens: bool, shape: str, block: int
) -> None:
    f = _generated(tmp_path, shape)
    monkeypatch.setattr(fast, "BLOCK", block)  # many blocks, or one: the same table
    assert fast.read(f, str(f)) is not None  # the column-wise path takes it
    args = ["ingest", "--no-store", "-f", "jsonl", "--source", "otel", f.name]
    assert_golden(f"events/generated/otel_{shape}", args, update=update_goldens, cwd=tmp_path)


def test_edge_values_the_column_path_leaves_to_records() -> None:
    # spans with a value that is not text read as records where the text reads otherwise (a
    # float status code, a number as a name); a number id and an empty name stay in columns
    f = FIXTURES / "otel/edges/traces.otlp.jsonl"
    got = fast.read(f, str(f))
    assert got is not None
    assert sorted(s.name for s in got.batch.spans) == [
        "POST",
        "POST /tools/{name}",
        "execute_tool lookup",
        "lookup_tool",
        "tools/call lookup",
    ]
