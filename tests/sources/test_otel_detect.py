"""otel detection: the top score on every otel sample, zero on every other adapter's samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT
from toolcall_cli.sources import SOURCES, detect, scores
from toolcall_cli.sources.otel import ADAPTER

OTEL_FILES = sorted(
    p for p in (FIXTURES / "otel").rglob("*") if p.is_file() and "as_messages" not in p.parts
)
OTHER_SAMPLES = sorted(
    {s for name, ad in SOURCES.items() if name != "otel" for s in ad.samples}
    | {str(p.relative_to(ROOT)) for p in (FIXTURES / "otel" / "as_messages").iterdir()}
)


def test_samples_cover_every_encoding() -> None:
    names = {Path(s).name for s in ADAPTER.samples}
    for suffix in (".otlp.jsonl", ".otlp.pb", ".otlp.pb.zst", ".tempo.json", ".jaeger.json"):
        assert any(n.endswith(suffix) for n in names), suffix


@pytest.mark.parametrize("path", OTEL_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_otel_wins_on_every_otel_file(path: Path) -> None:
    sc = scores(path)
    others = max(v for k, v in sc.items() if k != "otel")
    assert sc["otel"] >= 90
    assert others == 0, sc
    assert detect(path) == "otel"


@pytest.mark.parametrize("sample", OTHER_SAMPLES)
def test_zero_on_other_adapters_samples(sample: str) -> None:
    path = ROOT / sample
    head = path.read_bytes()[: 64 * 1024]
    assert ADAPTER.sniff(head, path) == 0


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b'{"messages": [{"role": "user", "content": "resourceSpans"}]}',
        b"# README\nWe export resourceSpans to the collector.\n",
        b'{"data": [{"id": 1}]}',
        b"\x00\x00\x00\x05hello",
        b'{"batches": [1, 2]}',
    ],
)
def test_zero_on_lookalikes(head: bytes) -> None:
    assert ADAPTER.sniff(head, Path("x")) == 0
