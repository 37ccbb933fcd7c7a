"""One file → a :class:`Batch`: protobuf (framed, maybe zstd), one JSON document, or JSON lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from toolcall_cli.sources._io import read_bytes
from toolcall_cli.sources.otel import jaeger, otlp_json, otlp_proto
from toolcall_cli.sources.otel.model import RAW_CAP, Batch, raw_text


def read_file(path: Path, *, limit: int) -> Batch:
    """Every span and log record of *path*, deduplicated (see `Batch.dedupe`)."""
    label = str(path)
    data = otlp_proto.decompress(read_bytes(path, limit=limit), limit=limit, label=label)
    batch = Batch(label=label)
    if otlp_proto.looks_framed(data):
        batch.encoding = "otlp-protobuf"
        otlp_proto.read(data, label, batch)
    else:
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        _read_json(data, label, batch)
    batch.dedupe()
    return batch


def _document(doc: Any, loc: str, batch: Batch, prefix: str = "") -> bool:
    if jaeger.is_jaeger(doc):
        batch.encoding = batch.encoding or "jaeger"
        jaeger.walk(doc, loc, batch)
        return True
    if otlp_json.is_otlp(doc):
        batch.encoding = batch.encoding or (
            "tempo" if isinstance(doc.get("batches"), list) else "otlp-json"
        )
        otlp_json.walk(doc, loc, batch, prefix)
        return True
    return False


def _read_json(data: bytes, label: str, batch: Batch) -> None:
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        doc = None
    else:
        if isinstance(doc, list):
            for i, item in enumerate(doc):
                if not _document(item, label, batch, f"/{i}"):
                    batch.unparsed.append(
                        (f"{label}#/{i}", raw_text(item), "not an OTLP or Jaeger document")
                    )
            return
        if _document(doc, label, batch):
            return
        batch.unparsed.append((label, raw_text(doc), "not an OTLP or Jaeger document"))
        return
    for n, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            batch.unparsed.append(
                (f"{label}:{n}", line[:RAW_CAP].decode("utf-8", "replace"), f"not JSON: {e}"[:200])
            )
            continue
        if not _document(obj, f"{label}:{n}", batch):
            batch.unparsed.append((f"{label}:{n}", raw_text(obj), "not an OTLP or Jaeger document"))
