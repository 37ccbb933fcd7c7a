"""The hot path: OTLP/JSON trace lines (the collector's file exporter) read column-wise.

The file is read in blocks of whole lines; pyarrow parses each block in C++, spans are the
flattened `resourceSpans[].scopeSpans[].spans[]` lists and each wanted attribute becomes one
column by key (:mod:`fast_columns`). Tool executions and HTTP spans — the bulk of a large trace
file — become event rows with array operations (:mod:`fast_rows`). The few spans that need a
convention's message parser (model calls, spans with events or errors, indexed attribute
families) go to the per-span path as ordinary records, and so does the whole file whenever it
is not perfectly regular (ids that are not hex, odd enums, times out of range, logs, blank
lines, gzip): that path counts what is wrong; this one only goes fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from toolcall_cli.sources.otel import fast_spans, otlp_json
from toolcall_cli.sources.otel.fast_columns import SpanColumns, span_columns
from toolcall_cli.sources.otel.fast_rows import tool_rows
from toolcall_cli.sources.otel.hexkeys import repeats
from toolcall_cli.sources.otel.model import Batch

#: Bytes of whole lines parsed at a time (bounds memory: the peak is a small multiple of this).
BLOCK: Final = 16 << 20
_HEAD: Final = b'{"resourceSpans"'
#: Blocks between two returns of freed memory to the OS: each return makes the next blocks
#: fault their pages in again (costing system time), never returning lets the freed blocks
#: pile up (raising the peak); returning every eighth block leaves the peak where it is
RELEASE_EVERY = 8
_ARROW_ERRORS = (
    pa.ArrowInvalid,
    pa.ArrowNotImplementedError,
    pa.ArrowTypeError,
    KeyError,
    AttributeError,  # a column pyarrow typed as null (no record had a value there)
)


@dataclass
class FastRead:
    """What the column-wise path made of a file."""

    rows: list[pd.DataFrame]  # one table per block, each ordered by its `seq`
    batch: Batch
    sessions: dict[str, str] = field(default_factory=dict)


def read(path: Path, label: str) -> FastRead | None:
    """The file's simple spans as rows and the rest as a Batch; None when not for this path."""
    try:
        with path.open("rb") as f:
            if f.read(len(_HEAD)) != _HEAD:
                return None
            f.seek(0)
            return _blocks(f, label)
    except OSError:
        return None


def _blocks(f: object, label: str) -> FastRead | None:
    read_into = f.readinto  # type: ignore[attr-defined]
    batch = Batch(label=label, encoding="otlp-json")
    frames: list[pd.DataFrame] = []
    row_span: list[np.ndarray] = []  # global span number of each row
    keys: list[np.ndarray] = []  # trace id + span id of every span, in file order
    slow_no: list[int] = []  # global span number of each span in batch.spans
    sessions: dict[str, str] = {}
    # one buffer read into block after block: a fresh `bytes` per block (and another for
    # joining it to the previous block's cut line) would fault new pages in for every block;
    # Arrow's parser copies what it keeps, so nothing parsed refers to it
    buf = bytearray(BLOCK)
    line0, spans0, have = 0, 0, 0  # have: bytes of a cut line carried to the buffer's front
    while True:
        if len(buf) - have < BLOCK:  # a line longer than a block: room for more of it
            buf.extend(bytes(BLOCK))
        with memoryview(buf) as room:
            got = read_into(room[have : have + BLOCK])
        end = have + got
        if not end:
            break
        cut = buf.rfind(b"\n", 0, end) + 1 if got else end
        if cut == 0:
            have = end
            continue
        # the block is a view of the buffer's whole lines, not a copy of them
        block = pa.py_buffer(buf).slice(0, cut)
        lines = _lines(buf, cut)
        if lines is None or not buf.startswith(_HEAD) or buf.find(b"\r", 0, cut) >= 0:
            return None
        try:
            # one thread and one Arrow block per block: the goal is CPU seconds, and Arrow's
            # reader spends more of them splitting a block over threads, then the chunks it
            # made cost a copy of the whole parsed block to join
            one = pj.ReadOptions(use_threads=False, block_size=max(cut, 1 << 20))
            table = pj.read_json(pa.BufferReader(block), read_options=one)
            if table.column_names != ["resourceSpans"]:
                return None
            cols = span_columns(table, label, line0)
            if cols is None:
                return None
            frame, at = tool_rows(cols)
        except _ARROW_ERRORS:
            return None
        del table, block  # the buffer is not exported while its cut line moves to the front
        if len(frames) % RELEASE_EVERY == 0:  # the parsed blocks' buffers: back to the OS
            pa.default_memory_pool().release_unused()
        frames.append(frame)
        row_span.append(at + spans0)
        keys.append(cols.keys)
        for t, s in cols.sessions.items():
            sessions.setdefault(t, s)
        _slow_spans(cols, label, batch)
        slow_no.extend((np.flatnonzero(cols.slow) + spans0).tolist())
        line0 += lines
        spans0 += cols.n
        del cols  # its raw span records hold the parsed block: not alive while the next is read
        if not got:
            break
        buf[: end - cut] = buf[cut:end]
        have = end - cut
    return _finish(frames, row_span, keys, slow_no, sessions, batch)


def _lines(block: bytes | bytearray, end: int) -> int | None:
    """How many lines the first *end* bytes of *block* hold, or None when one is blank (line
    numbers would drift from the parsed rows). One `find` per line: a line is a whole batch of
    spans, and memchr is several times faster than counting or a two-byte search."""
    n, at = 0, 0
    while at < end:
        nl = block.find(b"\n", at, end)
        nl = end if nl < 0 else nl
        if nl == at:
            return None
        n, at = n + 1, nl + 1
    return n


def _slow_spans(cols: SpanColumns, label: str, batch: Batch) -> None:
    """The spans only the per-span mappers read, as ordinary records."""
    at = np.flatnonzero(cols.slow)
    if not at.size:
        return
    origins = cols.origins(at)[0].to_pylist()
    made = fast_spans.spans(cols, at, origins, batch)
    rest = [j for j, s in enumerate(made) if s is None]  # the spans fast_spans leaves to it
    records: list[Any] = []
    if rest:
        records = fast_spans.strip(cols.spans.take(pa.array(at[rest])).to_pylist())  # type: ignore[assignment]
    for j, rec in zip(rest, records, strict=True):
        service, scope = cols.service_scope(int(at[j]))
        made[j] = otlp_json._span(rec, origins[j], service, scope, batch)
    batch.spans.extend(s for s in made if s is not None)


def _finish(
    frames: list[pd.DataFrame],
    row_span: list[np.ndarray],
    keys: list[np.ndarray],
    slow_no: list[int],
    sessions: dict[str, str],
    batch: Batch,
) -> FastRead:
    """Drop repeated deliveries (first one wins) and give rows their trace's session, in arrow
    (a million ids as Python strings would cost more than the rows themselves)."""
    all_keys = np.concatenate(keys) if keys else np.zeros((0, 3), np.uint64)
    keys.clear()
    dup_no = repeats(all_keys)
    batch.problems["duplicate_span"] += int(dup_no.size)
    if dup_no.size:
        for i, at in enumerate(row_span):
            keep = ~np.isin(at, dup_no)
            if not keep.all():
                frames[i] = frames[i][keep].reset_index(drop=True)
        drop = set(dup_no.tolist())
        batch.spans = [s for s, no in zip(batch.spans, slow_no, strict=True) if no not in drop]
    if sessions:
        traces = pa.array(list(sessions), pa.string())
        names = pa.array(list(sessions.values()), pa.string())
        for f in frames:
            if len(f):
                f["session_id"] = _with_sessions(f, traces, names)
    return FastRead(frames, batch, sessions)


def _with_sessions(rows: pd.DataFrame, traces: pa.Array, names: pa.Array) -> pd.Series:
    """`session_id`, with the trace's session where the row had none (*traces*: the traces
    that have a session, *names*: their sessions)."""
    own = rows["session_id"].array._pa_array.chunks
    trace = rows["trace_id"].array._pa_array.chunks
    # a tool table's two halves (requests, responses) hold the same spans: fill one half
    twice = len(own) == len(trace) == 2 and own[0].equals(own[1]) and trace[0].equals(trace[1])
    if twice:
        own, trace = own[:1], trace[:1]
    at = pc.index_in(pa.chunked_array(trace).combine_chunks().cast(pa.string()), value_set=traces)
    own_text = pa.chunked_array(own).combine_chunks().cast(pa.string())
    filled = pc.coalesce(own_text, names.take(at)).cast(pa.large_string())
    return pd.Series(
        pd.arrays.ArrowStringArray(pa.chunked_array([filled, filled] if twice else [filled])),
        index=rows.index,
    )
