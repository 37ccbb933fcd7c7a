"""The store's manifest: which inputs and data files a store holds, and its commit point.

`manifest.json` records each ingested input under `files` (keyed by a hash of its absolute
path, so re-ingesting a file replaces its events: path, source, counts) and each data file
under `parts`: its bucket, rows, and the inputs it holds rows of. Every reader starts here: the
manifest names the live data files (store/layout.py has their paths), so staged or left-over
files are never read. A store has one layout (`LAYOUT`, store/layout.py); a manifest of
another (the flat layouts of older toolcalls) is refused with exit 3: re-ingest.

A manifest listing staged parts under `"pending"` is a committed ingest that did not finish
renaming them (store/write.py writes it): the first reader rolls it forward, so no reader sees
half an ingest.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from toolcall_cli.errors import InputError
from toolcall_cli.model.atomic import atomic_write
from toolcall_cli.model.events import EVENTS_SCHEMA_VERSION
from toolcall_cli.store import index as store_index
from toolcall_cli.store.layout import KEYS_FILE, LAYOUT, bucket_dir, buckets_of

MANIFEST = "manifest.json"
LOCK = ".lock"  # held (flock) by the one ingest writing the store
STAGED = ".new"  # suffix of files staged by an ingest that has not committed yet
ENTRY_KEYS = {"path": str, "source": str, "events": int, "unparsed": int}
STORE_KEY = re.compile(r"[0-9a-f]{20}")  # what file_key() makes, and all a manifest may name


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


def write_atomic(target: Path, data: bytes) -> None:
    """Replace *target* with *data*, all or nothing, wherever the store lives."""
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, data)


def read_manifest(store: Path) -> dict[str, Any]:
    """The manifest, checked for the layout and the schema version; an empty one when there is
    no store."""
    mf = store / MANIFEST
    if not mf.exists():
        return {"schema_version": EVENTS_SCHEMA_VERSION, "layout": LAYOUT, "files": {}, "parts": {}}
    try:
        data = orjson.loads(mf.read_bytes())
    except (OSError, orjson.JSONDecodeError) as e:
        raise InputError(
            f"store manifest {mf} is unreadable: {e}", hint="delete the store and re-ingest"
        ) from None
    if isinstance(data, dict) and data.get("layout") != LAYOUT:
        _refuse_layout(store, data.get("layout"))
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version != EVENTS_SCHEMA_VERSION:
        raise InputError(
            f"store {store} was written with event schema version {version!r}; "
            f"this toolcall reads version {EVENTS_SCHEMA_VERSION}",
            hint=f"re-ingest the evidence (rm -r {store} && toolcall ingest ...)",
        )
    _check_entries(mf, data)
    if data.get("pending"):
        data = roll_forward(store, data)
    return data


def _refuse_layout(store: Path, layout: object) -> None:
    """A store of another layout is not read: its evidence is re-ingested into a new one."""
    newer = isinstance(layout, int) and layout > LAYOUT
    raise InputError(
        f"the store {store} was written by {'a newer' if newer else 'an older'} toolcall",
        hint="re-ingest the evidence into a new store",
    )


def _check_entries(mf: Path, data: dict[str, Any]) -> None:
    """A manifest of the right version but the wrong shape is refused, not half-read.

    Keys become file names under `events/`, so only the store's own (`file_key`) are taken:
    a key such as `../../x` would make a reader rename or read files outside the store.
    """
    files = data.get("files")
    pending = data.get("pending", [])
    ok = isinstance(files, dict) and isinstance(pending, list)
    keys = [*(files if isinstance(files, dict) else ()), *(pending if ok else ())]
    for key in keys:
        if not (isinstance(key, str) and STORE_KEY.fullmatch(key)):
            raise InputError(
                f"store manifest {mf} names {str(key)[:80]!r}, which is not a store key",
                hint="delete the store and re-ingest",
            )
    for entry in files.values() if isinstance(files, dict) else ():
        ok = (
            ok
            and isinstance(entry, dict)
            and all(isinstance(entry.get(k), t) for k, t in ENTRY_KEYS.items())
        )
    parts = data.get("parts")
    ok = ok and isinstance(parts, dict)
    for key, entry in parts.items() if isinstance(parts, dict) else ():
        ok = (
            ok
            and STORE_KEY.fullmatch(str(key)) is not None
            and isinstance(entry, dict)
            and isinstance(entry.get("bucket"), int)
            and 0 <= entry["bucket"] < buckets_of(data)
            and isinstance(entry.get("rows"), int)
            and isinstance(entry.get("inputs"), list)
        )
    if not ok:
        raise InputError(f"store manifest {mf} is malformed", hint="delete the store and re-ingest")


def no_symlinks(store: Path) -> None:
    """Refuse to write through a symlink inside the store: a symlinked `events/` (say, one
    that came with an incident bundle) would make an ingest sweep and rename files elsewhere."""
    for part in (store / "events", store / MANIFEST, store / LOCK):
        if part.is_symlink():
            raise InputError(
                f"the store {store} holds a symlink ({part.name}); refusing to write through it",
                hint="ingest into a fresh --store",
            )


def roll_forward(store: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """Finish a committed ingest: move its staged event files into place."""
    no_symlinks(store)
    try:
        for key in manifest["pending"]:
            where = bucket_dir(store, "events", manifest["parts"][key]["bucket"])
            for name in (f"{key}.parquet", f"{key}{store_index.SUFFIX}"):
                staged = where / f"{name}{STAGED}"
                if staged.exists():
                    os.replace(staged, where / name)
                elif name.endswith(".parquet") and not (where / name).exists():
                    # never commit a manifest that names events nobody can read
                    raise InputError(
                        f"store {store}: the committed events of {key} are missing",
                        hint="delete the store and re-ingest",
                    )
        keys = store / f"{KEYS_FILE}{STAGED}"
        if manifest.get("pending_keys") and keys.exists():
            os.replace(keys, store / KEYS_FILE)
        done = {k: v for k, v in manifest.items() if k not in ("pending", "pending_keys")}
        write_atomic(store / MANIFEST, manifest_bytes(done))
    except OSError as e:
        raise InputError(
            f"store {store} holds an unfinished ingest that cannot be completed: {e}",
            hint="make the store writable, or delete it and re-ingest",
        ) from None
    return done


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)


def part_paths(
    store: Path, manifest: dict[str, Any], buckets: set[int] | None = None
) -> list[Path]:
    """The store's data files (only those of *buckets* when given), in bucket order."""
    parts = manifest["parts"]
    return [
        bucket_dir(store, "events", parts[k]["bucket"]) / f"{k}.parquet"
        for k in sorted(parts, key=lambda k: (parts[k]["bucket"], k))
        if buckets is None or parts[k]["bucket"] in buckets
    ]


def stored_files(store: Path) -> list[StoredFile]:
    """The inputs recorded in the store."""
    manifest = read_manifest(store)
    return [
        StoredFile(key=k, **{f: v[f] for f in ENTRY_KEYS})
        for k, v in sorted(manifest["files"].items())
    ]


def data_files(store: Path) -> list[Path]:
    """The live data files of the store (what its manifest names), in reader order."""
    return part_paths(store, read_manifest(store))
