"""nginx access-log adapter (source "nginx", kind `http_access`).

Formats: `combined`/`common` with optional trailing fields (no configuration needed), any
`log_format` given as `--nginx-format` (compiled to one regex), and `escape=json` logs. The
hot path is column-wise: lines sit in one pyarrow array; combined lines are cut by the
split path (:mod:`.fastpath`) and their trailing keys read per layout (:mod:`.combined`),
slice by slice on a thread pool; only lines of another shape see the capturing regex, and
only odd trailing text is read per row. A big plain file is read and handed over block by
block (:mod:`.blocks`), in bounded memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.events import EventChunk, assemble_chunks
from toolcall_cli.sources._shared.logtime import check_tz
from toolcall_cli.sources._shared.textlog import (
    head_lines,
    nonblank,
    read_data,
    split_lines,
)
from toolcall_cli.sources.base import HEAD_BYTES, ParseOptions
from toolcall_cli.sources.nginx.blocks import file_blocks
from toolcall_cli.sources.nginx.combined import COMBINED_RX, HEAD_RX, split_trailing
from toolcall_cli.sources.nginx.csv_columns import cut, interleave, scan_lines
from toolcall_cli.sources.nginx.escape_json import ACCESS_KEYS, json_variables
from toolcall_cli.sources.nginx.fastpath import extract_combined
from toolcall_cli.sources.nginx.log_format import compile_format
from toolcall_cli.sources.nginx.shape import FileShape
from toolcall_cli.sources.nginx.variables import build_events

#: Lines per thread before the regex is split across threads.
_CHUNK = 50_000
#: Lines per slice of the combined parser (several slices share the threads).
_PART = 131_072
#: Lines from which combined logs are cut by the CSV reader (:mod:`.csv_columns`) first.
CSV_MIN_LINES = 20_000


def extract(lines: pa.Array, regex: str) -> tuple[dict[str, pa.Array], pa.Array]:
    """Apply one regex with named groups to every line: (group → column, matched mask)."""
    n = len(lines)
    workers = min(os.cpu_count() or 1, 8, max(1, n // _CHUNK))
    if workers > 1:
        step = -(-n // workers)
        slices = [lines.slice(i, step) for i in range(0, n, step)]
        with ThreadPoolExecutor(workers) as pool:  # RE2 releases the GIL
            parts = list(pool.map(lambda s: pc.extract_regex(s, regex), slices))
        struct = pa.concat_arrays(parts)
    else:
        struct = pc.extract_regex(lines, regex)
    cols = struct.flatten()
    return {f.name: cols[i] for i, f in enumerate(struct.type)}, pc.is_valid(struct)


Combined = tuple[dict[str, pa.Array], pa.Array, pa.Array | None, pa.Array | None]


def _combined_part(lines: pa.Array) -> Combined:
    """(variables, matched mask, other trailing keys, extra fields) of combined lines."""
    variables, ok = extract_combined(lines, COMBINED_RX, extract)
    known, others, extras = split_trailing(variables.pop("trailing"))
    for var, arr in known.items():
        variables.setdefault(var, arr)
    return variables, ok, others, extras


def combined_variables(lines: pa.Array, *, part: int = _PART) -> Combined:
    """_combined_part() over slices of *part* lines on up to `cpu_count` threads (every step is
    row-local, so the slices give the same rows as one pass; pyarrow kernels release the GIL)."""
    n = len(lines)
    if n < 2 * part:
        return _combined_part(lines)
    slices = [lines.slice(i, part) for i in range(0, n, part)]
    workers = min(os.cpu_count() or 1, 4)
    if workers < 2:  # slices still pay on one core: their columns stay in cache
        parts = list(map(_combined_part, slices))
    else:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(_combined_part, slices))
    names = list(dict.fromkeys(name for p in parts for name in p[0]))
    variables = {
        name: pa.concat_arrays([_or_nulls(p[0].get(name), len(p[1])) for p in parts])
        for name in names
    }
    ok = pa.concat_arrays([p[1] for p in parts])
    others, extras = (
        None
        if all(p[k] is None for p in parts)
        else pa.concat_arrays([_or_nulls(p[k], len(p[1])) for p in parts])
        for k in (2, 3)
    )
    return variables, ok, others, extras


def _or_nulls(arr: pa.Array | None, n: int) -> pa.Array:
    return pa.nulls(n, pa.large_string()) if arr is None else arr.cast(pa.large_string())


def _with_trailing(
    variables: dict[str, pa.Array], tokens: list[pa.Array], shape: FileShape | None, quotes: bool
) -> Combined:
    """The parts combined_variables() gives, of rows the CSV reader cut (*quotes*: CsvCut's)."""
    known, others, extras = split_trailing(None, tokens, shape, quotes=quotes)
    for var, arr in known.items():
        variables.setdefault(var, arr)
    ok = pa.array(np.ones(len(variables["request"]), bool))
    return variables, ok, others, extras


CsvParts = tuple[Combined, pa.Array, pa.Array, int]


def csv_combined(data: bytes, shape: FileShape | None = None) -> CsvParts | None:
    """combined_variables() of the non-blank lines of *data*, their lines (null where the CSV
    reader took the row: only unparsed rows quote their line), line numbers and the number of
    lines (blank ones too); None when the reader does not apply (little, non-UTF-8 or JSON
    input, or no common combined shape). A block of a big file gives the file's *shape*
    (what its first block found; no JSON sniff: the file's first block was sniffed)."""
    if len(data) >= 1 << 31 or not _valid_utf8(data):
        return None
    starts, ends, quotes = scan_lines(data)
    if len(starts) < CSV_MIN_LINES:
        return None
    head = [data[s:e].decode() for s, e in zip(starts[:50], ends[:50], strict=True)]
    if shape is None and _looks_json(nonblank(pa.array(head, pa.large_string()))[0]):
        return None
    got = cut(data, starts, ends, shape, quotes)
    if got is None:
        return None
    fast = _with_trailing(got.variables, got.tokens, shape, got.quotes)
    fast_vars = fast[0]
    rest = np.ones(len(starts), bool)
    rest[got.taken] = False
    if not rest.any():
        return fast, pa.nulls(len(starts), pa.large_string()), pa.array(got.taken + 1), len(starts)
    idx = np.flatnonzero(rest)
    texts = pa.array([data[starts[i] : ends[i]].decode() for i in idx], pa.large_string())
    if b"\r" in data:  # split_lines() trims every `\r` at a line's end
        texts = pc.utf8_rtrim(texts, characters="\r")
    texts, kept = nonblank(texts)
    idx = idx[kept.to_numpy(zero_copy_only=False) - 1]
    slow = combined_variables(texts)
    rows = np.sort(np.concatenate([got.taken, idx]))  # every parsed row's position, in order
    at = np.zeros(len(rows), bool)
    at[np.searchsorted(rows, idx)] = True
    n_fast, n_slow = len(got.taken), len(idx)
    names = list(dict.fromkeys([*fast_vars, *slow[0]]))
    variables = {
        k: interleave(_or_nulls(fast_vars.get(k), n_fast), _or_nulls(slow[0].get(k), n_slow), at)
        for k in names
    }
    okm = np.ones(len(at), bool)
    okm[at] = slow[1].fill_null(False).to_numpy(zero_copy_only=False)
    ok = pa.array(okm)
    others, extras = (
        None
        if fast[k] is None and slow[k] is None
        else interleave(_or_nulls(fast[k], n_fast), _or_nulls(slow[k], n_slow), at)
        for k in (2, 3)
    )
    lines = interleave(pa.nulls(n_fast, pa.large_string()), texts, at)
    line_no = pa.array(rows + 1)
    return (variables, ok, others, extras), lines, line_no, len(starts)


def _valid_utf8(data: bytes) -> bool:
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _looks_json(lines: pa.Array) -> bool:
    sample = pc.utf8_ltrim_whitespace(lines.slice(0, 50))
    starts = pc.starts_with(sample, "{").fill_null(False)
    return bool(len(sample)) and pc.sum(starts).as_py() * 2 > len(sample)


Parsed = tuple[dict[str, pa.Array], pa.Array, list[tuple[str, pa.Array, str]], str]


def _from_combined(combined: Combined) -> Parsed:
    """(variables, ok, extra attrs, unparsed reason) of the combined branch."""
    variables, ok, others, extras = combined
    extra: list[tuple[str, pa.Array, str]] = []
    if others is not None:
        extra.append(("", others, "merge"))
    if extras is not None:
        extra.append(("extra", extras, "json"))
    return variables, ok, extra, "not a combined/common access log line"


def _parse_lines(lines: pa.Array, opts: ParseOptions) -> Parsed:
    """(variables, ok, extra attrs, unparsed reason) of non-blank lines: the --nginx-format
    regex or JSON keys, escape=json lines, or the combined parser."""
    if opts.nginx_format:
        fmt = compile_format(opts.nginx_format)
        if fmt.regex is None:
            variables, ok = json_variables(lines, fmt.json_keys)
            return variables, ok, [], "not a JSON access record"
        groups, ok = extract(lines, fmt.regex)
        variables = {fmt.groups[g]: a for g, a in groups.items()}
        return variables, ok, [], "does not match the --nginx-format log_format"
    if _looks_json(lines):
        variables, ok = json_variables(lines)
        return variables, ok, [], "not a JSON access record"
    return _from_combined(combined_variables(lines))


class NginxAdapter:
    """Access logs of nginx (and Apache/Traefik in the same CLF shape)."""

    name = "nginx"
    samples: tuple[str, ...] = (
        "fixtures/nginx/combined.log",
        "fixtures/nginx/combined_trailing.log",
        "fixtures/nginx/custom_format.log",  # parse it with custom_format.format.txt
        "fixtures/nginx/json_escape.log",
        "fixtures/nginx/tz.log",
    )

    def sniff(self, head: bytes, path: Path) -> int:
        """High for combined/common lines and JSON lines with remote_addr/request/status keys."""
        lines = head_lines(head, full=HEAD_BYTES)
        if not lines:
            return 0
        hits = 0
        for line in lines:
            s = line.lstrip()
            if s.startswith("{"):
                try:
                    obj = orjson.loads(s)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and len(ACCESS_KEYS & obj.keys()) >= 2:
                    hits += 1
            elif HEAD_RX.match(s):
                hits += 1
        if not hits:
            return 0
        return round(30 + 65 * hits / len(lines))

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Parse an access log; lines that match no format become `unparsed` rows."""
        return assemble_chunks(self.parse_chunks(path, opts))

    def parse_chunks(self, path: Path, opts: ParseOptions) -> Iterator[EventChunk]:
        """The access log's event table, block by block when it is big (:mod:`.blocks`)."""
        tz = check_tz(opts.tz)
        blocks = None if opts.nginx_format else file_blocks(path)
        if blocks is None:  # (read_data's bytes are _table's alone: it lets go of them)
            table, _, total = _table(read_data(path, opts), path, opts, tz)
            yield EventChunk(table)
            if opts.progress:
                opts.progress(total, total)
            return
        total, done, at, line0 = path.stat().st_size, 0, 0, 0
        shape = FileShape()
        for data in blocks:
            if not done and _looks_json(_head_lines(data)):  # escape=json: read it whole
                blocks.close()
                yield EventChunk(_table(read_data(path, opts), path, opts, tz)[0])
                return
            done += len(data)
            table, lines, _ = _table(data, path, opts, tz, line0=line0, shape=shape)
            del data
            yield EventChunk(table, at)
            at, line0 = at + len(table), line0 + lines
            del table
            if opts.progress:
                opts.progress(done, total)


def _head_lines(data: bytes) -> pa.Array:
    """The non-blank lines among the whole lines of a block's first 64 KiB (_looks_json()
    reads the first 50, as it reads a whole file's)."""
    head = data[: 1 << 16]
    if len(head) < len(data):
        head = head[: head.rfind(b"\n") + 1]
    lines = [line.decode(errors="replace") for line in head.split(b"\n")]
    return nonblank(pa.array(lines, pa.large_string()))[0]


def _table(
    data: bytes,
    path: Path,
    opts: ParseOptions,
    tz: str,
    *,
    line0: int = 0,
    shape: FileShape | None = None,
) -> tuple[pd.DataFrame, int, int]:
    """The event table of *data*, its numbers of lines and bytes: a whole file, or a block of one
    whose first *line0* lines came before and whose *shape* its first block found (that
    block chose between JSON and combined lines)."""
    n_bytes = len(data)
    cut_lines = None if opts.nginx_format else csv_combined(data, shape)
    if cut_lines is None:
        every = split_lines(data)
        n_lines = len(every)
        lines, line_no = nonblank(every)
        del data, every  # (not alive while the columns are built)
        if shape is None:
            variables, ok, extra, reason = _parse_lines(lines, opts)
        else:
            variables, ok, extra, reason = _from_combined(combined_variables(lines))
    else:
        del data
        combined, lines, line_no, n_lines = cut_lines
        variables, ok, extra, reason = _from_combined(combined)
    if line0:
        line_no = pc.add(line_no, line0)
    frame = build_events(
        variables,
        ok=ok,
        lines=lines,
        line_no=line_no,
        path=path,
        tz=tz,
        extra_attrs=extra,
        reason=reason,
        order=None if shape is None else shape.order,
    )
    return frame, n_lines, n_bytes


ADAPTER = NginxAdapter()
