"""One file → a :class:`Batch`: protobuf (framed, maybe zstd), one JSON document, or JSON lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from toolcall_cli.sources._shared.files import is_gzip, read_bytes
from toolcall_cli.sources.otel import fast, jaeger, otlp_json, otlp_proto
from toolcall_cli.sources.otel.arrow_pool import system_pool
from toolcall_cli.sources.otel.model import RAW_CAP, Batch, raw_text


@dataclass
class Read:
    """A file's spans and logs for the per-span mappers, plus the rows the column-wise path
    already made (with the sessions it found per trace)."""

    batch: Batch
    #: the column-wise tables (their `seq` orders each), in a list the mapper empties as it
    #: copies them
    rows: list[pd.DataFrame] = field(default_factory=list)
    sessions: dict[str, str] | None = None


@system_pool()  # see arrow_pool: the peak of a large file
def read_file(path: Path, *, limit: int) -> Read:
    """Every span and log record of *path*, deduplicated (see `Batch.dedupe`)."""
    label = str(path)
    quick = fast.read(path, label) if not is_gzip(path) else None
    if quick is not None:  # large JSON-lines trace files: column-wise, block by block
        return Read(quick.batch, quick.rows, quick.sessions)
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
    return Read(batch)


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
    # A document on one line is a JSON-lines file of one line (origins `path:1#…`), as the
    # collector's file exporter writes it; only a document spread over lines is addressed whole.
    doc: Any = None
    if b"\n" in data.strip():
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError:
            doc = None  # not one document: JSON lines
    if isinstance(doc, list):
        for i, item in enumerate(doc):
            if not _document(item, label, batch, f"/{i}"):
                batch.unparsed.append(
                    (f"{label}#/{i}", raw_text(item), "not an OTLP or Jaeger document")
                )
        return
    if doc is not None:
        if not _document(doc, label, batch):
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
