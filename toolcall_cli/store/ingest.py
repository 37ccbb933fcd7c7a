"""The `toolcall ingest` core: parsed inputs into the store, one file at a time."""

from __future__ import annotations

from collections.abc import Generator
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolcall_cli.store.bucket_writer import InputPart
    from toolcall_cli.store.engines import Engine


def ingest_into(
    parts: Generator[InputPart, None, None], *, store: Path | None, engine: Engine | None
) -> None:
    """Write each (path, source, events) part to *store* before the next is parsed (with no
    store, only read them: their summaries are the report), then close the *engine* that
    parsed them and compact the store. *parts* is closed when it ends, on error too."""
    with closing(parts):
        if store is None:
            for _ in parts:
                pass
        else:  # the store's writer (and parquet) load only for a run that writes one
            from toolcall_cli.store.write import write_files

            write_files(store, parts)
    if engine is not None:
        engine.close()
    if store is not None:
        from toolcall_cli.store.compact import compact

        compact(store)  # many small parts (one per input) become a few large ones
