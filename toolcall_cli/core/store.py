"""The store: the event table as Parquet under `./.toolcall/`, one file per ingested input.

Layout::

    .toolcall/manifest.json          {"schema_version": N, "files": {key: {...}}}
    .toolcall/events/<key>.parquet   events of one input file

The key is a hash of the input's absolute path, so re-ingesting a file replaces its events.
Every write goes to a temporary name first and is renamed into place, so an interrupted
ingest leaves the previous store readable.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from toolcall_cli.core.events import COLUMNS, EVENTS_SCHEMA_VERSION, concat_frames, empty_frame
from toolcall_cli.errors import InputError

DEFAULT_STORE = Path(".toolcall")
MANIFEST = "manifest.json"


@dataclass(frozen=True, slots=True)
class StoredFile:
    """One input recorded in the store."""

    key: str
    path: str
    source: str
    events: int
    unparsed: int


def file_key(path: Path) -> str:
    """Stable key of an input file (its resolved path)."""
    return hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:20]


def _atomic_write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_manifest(store: Path) -> dict[str, Any]:
    """The manifest, checked for the schema version; an empty one when there is no store."""
    mf = store / MANIFEST
    if not mf.exists():
        return {"schema_version": EVENTS_SCHEMA_VERSION, "files": {}}
    try:
        data = orjson.loads(mf.read_bytes())
    except (OSError, orjson.JSONDecodeError) as e:
        raise InputError(f"store manifest {mf} is unreadable: {e}", hint="delete the store and re-ingest") from None
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version != EVENTS_SCHEMA_VERSION:
        raise InputError(
            f"store {store} was written with event schema version {version!r}; "
            f"this toolcall reads version {EVENTS_SCHEMA_VERSION}",
            hint=f"re-ingest the evidence (rm -r {store} && toolcall ingest ...)",
        )
    return data


def write_files(store: Path, parts: Iterable[tuple[Path, str, pd.DataFrame]]) -> list[StoredFile]:
    """Write each (input path, source, events) part, replacing earlier events of that input."""
    manifest = read_manifest(store)
    written: list[StoredFile] = []
    schema = pa.Schema.from_pandas(empty_frame(), preserve_index=False)
    for path, source, df in parts:
        key = file_key(path)
        table = pa.Table.from_pandas(df.astype(COLUMNS), schema=schema, preserve_index=False)
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd")
        _atomic_write(store / "events" / f"{key}.parquet", sink.getvalue().to_pybytes())
        n_bad = int((df["kind"] == "unparsed").sum())
        entry = {"path": str(path), "source": source, "events": len(df) - n_bad, "unparsed": n_bad}
        manifest["files"][key] = entry
        written.append(StoredFile(key=key, **entry))
    manifest["schema_version"] = EVENTS_SCHEMA_VERSION
    _atomic_write(store / MANIFEST, orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    return written


def load_events(store: Path, *, filters: list[tuple[str, str, Any]] | None = None) -> pd.DataFrame:
    """All stored events (optionally filtered on columns via Parquet predicate push-down)."""
    manifest = read_manifest(store)
    if not manifest["files"]:
        raise InputError(
            f"the store {store} is empty", hint="run `toolcall ingest PATH...` first, or pass PATHs"
        )
    frames = []
    for key in sorted(manifest["files"]):
        pf = store / "events" / f"{key}.parquet"
        try:
            table = pq.read_table(pf, filters=filters) if filters else pq.read_table(pf)
        except (OSError, pa.ArrowInvalid) as e:
            raise InputError(f"store file {pf} is unreadable: {e}", hint="re-ingest its input") from None
        frames.append(table.to_pandas().astype(COLUMNS))
    return concat_frames(frames)


def stored_files(store: Path) -> list[StoredFile]:
    """The inputs recorded in the store."""
    manifest = read_manifest(store)
    return [StoredFile(key=k, **v) for k, v in sorted(manifest["files"].items())]
