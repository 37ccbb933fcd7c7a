"""Compaction: merging a bucket's small parts into one, so a store never holds thousands of
tiny files.

Most of it happens as the store is written (store/bucket_writer.py): an ingest buffers small
inputs and writes one part per bucket a flush touches, and a bucket that holds `MAX_SMALL`
small parts has them merged into the next part written there. :func:`compact` is the explicit
pass (the end of `toolcall ingest` runs it): every bucket with more than one small part gets
them merged.

Crash safety is the ingest's: the merged parts are staged, one manifest rename commits them
(listed under `"pending"`, rolled forward by the next reader), and only then are the merged-away
files removed; a crash before the commit leaves the old parts, which the manifest still names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from toolcall_cli.errors import InputError
from toolcall_cli.store import manifest as store_manifest
from toolcall_cli.store import write as store
from toolcall_cli.store.bucket_writer import SMALL_ROWS, BucketWriter, remove_unnamed
from toolcall_cli.store.layout import LAYOUT, buckets_of


def small_groups(parts: dict[str, dict[str, Any]]) -> dict[int, list[str]]:
    """Bucket -> its small parts, for the buckets holding more than one."""
    by: dict[int, list[str]] = {}
    for key in sorted(parts):
        entry = parts[key]
        if int(entry["rows"]) < SMALL_ROWS:
            by.setdefault(int(entry["bucket"]), []).append(key)
    return {b: ps for b, ps in by.items() if len(ps) > 1}


def needs_compaction(manifest: dict[str, Any]) -> bool:
    """A bucket holding more than one small part."""
    return bool(manifest["files"]) and bool(small_groups(manifest["parts"]))


def compact(store_dir: Path) -> int:
    """Merge each bucket's small parts; parts merged away.

    Takes the writer lock, so it fails like an ingest (InputError) while another one writes.
    """
    with store.writer_lock(store_dir):
        manifest = store_manifest.read_manifest(store_dir)
        if not needs_compaction(manifest):
            return 0
        store.sweep(store_dir)
        before = len(store_manifest.part_paths(store_dir, manifest))
        writer = BucketWriter(store_dir, manifest["parts"], buckets_of(manifest))
        try:
            for bucket, group in small_groups(writer.parts).items():
                tables = [writer.read_part(p) for p in group]
                for p in group:
                    writer.drop_part(p)
                writer.write_bucket(bucket, pa.concat_tables(tables))
                _staged_hook(bucket)
            pending = writer.finish()
        except BaseException:
            store.sweep(store_dir)  # nothing committed: the old parts stay named
            raise
        manifest["files"] = {
            k: {f: v[f] for f in store_manifest.ENTRY_KEYS} for k, v in manifest["files"].items()
        }
        manifest.update(
            layout=LAYOUT,
            buckets=writer.buckets,
            parts=writer.parts,
            pending=pending,
            pending_keys=writer.keymap_changed,
        )
        try:
            store_manifest.write_atomic(
                store_dir / store_manifest.MANIFEST, store_manifest.manifest_bytes(manifest)
            )
        except OSError as e:
            store.sweep(store_dir)
            raise InputError(f"cannot write the store {store_dir}: {e.strerror or e}") from None
        done = store_manifest.roll_forward(store_dir, manifest)
        remove_unnamed(store_dir, done)
        return before - len(store_manifest.part_paths(store_dir, done))


def _staged_hook(bucket: int) -> None:
    """Called after each merged part is staged; tests raise here to simulate a crash."""
