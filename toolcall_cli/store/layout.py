"""Where the store keeps its tables, and which columns each holds (the contract for readers).

The store is Parquet under `.toolcall/` (or `--store DIR`), three tables partitioned by
correlation bucket, Hive style, so any engine that reads Parquet reads it::

    .toolcall/manifest.json                      inputs, parts and their buckets (the commit point)
    .toolcall/keys.parquet                       correlation key -> bucket (re-bucketing state)
    .toolcall/events/bucket=NN/<part>.parquet    the event table (DESIGN §3) plus `_file`, `_row`
    .toolcall/events/bucket=NN/<part>.index      a part's id index (store/index.py)
    .toolcall/calls/bucket=NN/<run>.parquet      one row per tool call, from the last diagnose
    .toolcall/findings/bucket=NN/<run>.parquet   the findings of every diagnose run

`NN` is two digits, `00` to `63` (`BUCKETS`). A bucket is the hash of a trace's connected
component: events that share a `trace_id`, `tool_call_id`, `request_id` or `session_id` (and a
capture's request with its id-less response, by TCP stream) are one component, computed at
ingest from those key columns alone. Every event of a trace is in one bucket, so a one-trace
read opens one bucket, and a bucket can be diagnosed alone. When a new input links components
that lived in different buckets, their rows move to the bucket of the merged component.

DuckDB::

    SELECT * FROM read_parquet('.toolcall/events/bucket=*/*.parquet', hive_partitioning=true)

gives the `bucket` column (an integer) from the directory name; the files do not hold it.
Readers that glob should skip names starting with `.` and anything not ending in `.parquet`
(staged `*.parquet.new` and temporary `.*.tmp` files of an ingest in progress); the manifest
names the live parts.

Columns (Arrow types):

events
    `ts` timestamp[ns, UTC] · `seq` int64 · `source` `origin` `kind` string ·
    `session_id` `trace_id` `tool_call_id` `request_id` `tool` `args` `status` string ·
    `http_status` int64 (nullable) · `duration_ms` float64 · `size` int64 (nullable) ·
    `instance` `client` `detail` string · `attrs` string (a JSON object) — strings are
    Arrow `large_string`;
    and two hidden columns: `_file` (string, the store key of the input the row came from)
    and `_row` (int64, the row's position among its part's inputs). See DESIGN §3.
calls
    `run_id` string · `run_at` timestamp[us, UTC] · `trace_id` string (the trace's id as the
    timeline names it) · `session_id` `tool_call_id` `tool` `outcome` string ·
    `initiation_ms` `service_ms` `injection_ms` `end_to_end_ms` float64 · `breaches` list<string>
    · `origin` string (first evidence pointer of the call) · `cancelled_by` string (`user`: the
    user aborted the turn; `client`: the client withdrew the call) · `cancelled_at`
    timestamp[ns, UTC] · `cancelled_origin` `cancelled_note` string (the cancelling event's
    evidence pointer and own words) — the four null but for a `cancelled` call, and absent
    from files written before them (`toolcall query` gives them null). Replaced by each
    diagnose of the whole store (no PATH, no scope), so it describes the events as last
    diagnosed.
findings
    `run_id` string (one per diagnose run) · `run_at` timestamp[us, UTC] (when it ran) ·
    `config_fingerprint` string (sha256 of the effective config, 16 hex digits) ·
    `id` `code` `name` `severity` `message` `trace_id` `session_id` string ·
    `tool_call_ids` list<string> · `caused_by` string · `symptoms` list<string> ·
    `tool` `explanation` `fix` string · `evidence` string (JSON list of `{origin, text, ...}`)
    · `extra` string (JSON object of rule-specific facts). Written by every diagnose that
    reads the store (no PATH; a scoped run records only its findings); a run repeating an
    earlier one (same store contents, scope and selection, config: store/results.py)
    replaces its findings, so "the latest run" is `WHERE run_at = (SELECT max(run_at) ...)`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

LAYOUT = 4  # bucketed parts of sorted, row-grouped, indexed files; a store of another is refused
BUCKETS = 64  # buckets per table; a trace's bucket is `bucket_of(its component)`
TABLES = ("events", "calls", "findings")
KEYS_FILE = "keys.parquet"
ROW = "_row"  # hidden column: the event's position in the adapter's table
FILE = "_file"  # hidden column of a part holding several inputs: the row's input key
HIDDEN = (ROW, FILE)


def bucket_dir(store: Path, table: str, bucket: int) -> Path:
    """The directory of *table*'s bucket *bucket* (`<store>/<table>/bucket=NN`)."""
    return store / table / f"bucket={bucket:02d}"


def bucket_of_label(label: str, buckets: int) -> int:
    """The bucket of a component named by *label* (its first key in align.buckets.NAME_ORDER)
    in a store of *buckets* buckets (the manifest records the count: a store keeps the one it
    was written with)."""
    digest = hashlib.blake2b(label.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % buckets


def buckets_of(manifest: dict[str, Any]) -> int:
    """The bucket count of a store (new stores take `BUCKETS`)."""
    n = manifest.get("buckets")
    return n if isinstance(n, int) and 1 <= n <= 100 else BUCKETS
