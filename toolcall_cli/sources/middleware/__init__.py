"""Tool-call middleware log adapter (source "middleware", kinds mw_*).

Line formats, tried in this order per line: user formats from config (`[[formats]]`), JSON
objects (column-wise through pyarrow when the block is clean), timestamped plain text, logfmt.
Anything else is an `unparsed` row. See :mod:`.phrases` for how lines become kinds.

Zeek/Bro TSV logs (`#separator` headers) are not claimed by sniffing (score 0: detection says
unknown); with `--source middleware` they ingest with every line counted as unparsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.events import EventChunk, concat_frames
from toolcall_cli.sources._shared.files import is_gzip
from toolcall_cli.sources._shared.jsonlines import read_json_lines
from toolcall_cli.sources._shared.logtime import check_tz
from toolcall_cli.sources._shared.textlog import (
    head_lines,
    nonblank,
    read_data,
    split_lines,
    unparsed_rows,
)
from toolcall_cli.sources.base import HEAD_BYTES, ParseOptions
from toolcall_cli.sources.middleware.blocks import (
    Block,
    block_tables,
    join_blocks,
    parse_blocks,
    parse_file_blocks,
    read_blocks,
)
from toolcall_cli.sources.middleware.fields import ALIASES, MARKER_KEYS, resolve
from toolcall_cli.sources.middleware.phrases import PHRASES
from toolcall_cli.sources.middleware.rows import SOURCE, build_rows
from toolcall_cli.sources.middleware.text_formats import (
    TEXT_RX,
    columns_from_dicts,
    is_logfmt,
    logfmt_columns,
    pairs,
    text_columns,
    user_format_rows,
)

_TEXT = re.compile(TEXT_RX)
# Phrases that only middleware prints (not `POST /tools/...`, which access logs carry too).
_SNIFF_PHRASES = re.compile(
    r"tool_call\.[a-z_]+|"
    + "|".join(f"(?:{p.pattern})" for p in PHRASES if "POST" not in p.pattern),
    re.IGNORECASE,
)
_TEXT_KEYS = MARKER_KEYS | {"session", "call", "trace"}
_SECTION = re.compile(r"^\s*\[\[?[A-Za-z_][\w.-]*\]\]?\s*$")
#: A log record's head: a timestamp (date and time, or a time of day) or an upper-case level
#: within its first 48 characters (after a host, instance or bracket prefix).
_LOG_SHAPE = re.compile(
    r"^.{0,48}?(?:\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\b\d{2}:\d{2}:\d{2}\b|"
    r"\b(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|CRITICAL|CRIT|FATAL|SEVERE)\b)"
)
_CONVERSATION_KEYS = frozenset({"messages", "role", "choices", "tool_calls", "content"})


def _is_middleware_json(obj: object) -> bool:
    # (sniffing only: a parse never loads the nginx package)
    from toolcall_cli.sources.nginx.escape_json import ACCESS_KEYS

    if (
        not isinstance(obj, dict)
        or len(ACCESS_KEYS & obj.keys()) >= 2
        or _CONVERSATION_KEYS & obj.keys()
    ):
        return False
    if MARKER_KEYS & obj.keys():
        return True
    text = " ".join(str(obj.get(k, "")) for k in ("event", "msg", "message", "type"))
    return bool(_SNIFF_PHRASES.search(text))


def _line_hit(line: str) -> bool:
    s = line.strip()
    if s.startswith("{"):
        try:
            return _is_middleware_json(orjson.loads(s))
        except orjson.JSONDecodeError:
            return bool(_SNIFF_PHRASES.search(s))  # a cut or broken record of the same log
    if is_logfmt(s):
        kv = pairs(s)
        return bool(MARKER_KEYS & kv.keys()) or bool(_SNIFF_PHRASES.search(s))
    m = _TEXT.match(s)
    if m and (_TEXT_KEYS & pairs(m.group("msg")).keys()):
        return True
    # a phrase on an otherwise unknown line (a custom format) counts only on a line shaped
    # like a log record: prose, markdown, source code and build files quote these phrases too
    return bool(_LOG_SHAPE.match(s)) and bool(_SNIFF_PHRASES.search(s))


def _all_json(
    data: bytes, path: Path, tz: str, *, block_bytes: int | None = None
) -> pd.DataFrame | None:
    """The hot path: a file of JSON-object lines (no blank lines) parsed by pyarrow in blocks.

    None when the file is anything else or pyarrow refuses it; the caller then goes line by line.
    """
    if not _may_be_clean_json(data):
        return None
    return read_blocks(data, path, tz, block_bytes=block_bytes)  # None on a blank line too


def _may_be_clean_json(data: bytes) -> bool:
    """Whether *data* may be JSON-object lines the block reader takes (no CR line ends)."""
    return data.startswith(b"{") and b"\r" not in data


class MiddlewareAdapter:
    """Logs of the tool-call middleware: JSON lines, logfmt, plain text, user regex formats."""

    name = SOURCE
    samples: tuple[str, ...] = (
        "fixtures/middleware/json_lines.log",
        "fixtures/middleware/logfmt.log",
        "fixtures/middleware/plain.log",
        "fixtures/middleware/mixed_bad.log",
        "fixtures/middleware/custom_format.log",
    )

    def sniff(self, head: bytes, path: Path) -> int:
        """High for JSON/logfmt lines with tool-call keys and for lines with middleware phrases."""
        lines = head_lines(head, full=HEAD_BYTES)
        # a JSON document (array, or an object pretty-printed over lines) is not a line log
        if not lines or lines[0].lstrip().startswith("[") or lines[0].strip() == "{":
            return 0
        if any(_SECTION.match(line) for line in lines):  # TOML/INI config quoting sample lines
            return 0
        hits = sum(1 for line in lines if _line_hit(line))
        return round(30 + 60 * hits / len(lines)) if hits else 0

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Parse a middleware log; lines no format understands become `unparsed` rows."""
        tz = check_tz(opts.tz)
        parsed, total = _parsed_or_data(path, opts)
        if isinstance(parsed, bytes):
            out = _line_by_line(parsed, path, tz, opts)
        else:
            out = join_blocks(parsed, path, tz)
        if opts.progress:
            opts.progress(total, total)
        return out

    def parse_chunks(self, path: Path, opts: ParseOptions) -> Iterator[EventChunk]:
        """The table `parse` gives, as one chunk per block of a clean JSON-lines file (each
        is redacted, summarised or written before the next is made), else as one chunk."""
        tz = check_tz(opts.tz)
        parsed, total = _parsed_or_data(path, opts)
        if isinstance(parsed, bytes):
            yield EventChunk(_line_by_line(parsed, path, tz, opts))
        else:
            for first, table in block_tables(parsed, path, tz):
                yield EventChunk(table, first)
        if opts.progress:
            opts.progress(total, total)


def _parsed_or_data(path: Path, opts: ParseOptions) -> tuple[list[Block] | bytes, int]:
    """A clean JSON-lines file parsed in blocks (a plain file is read block by block, never
    whole), or the file's bytes for the general path; and the bytes read."""
    size = None
    if not opts.formats and not is_gzip(path):
        size = path.stat().st_size
        if opts.progress:
            opts.progress(0, size)
        blocks = parse_file_blocks(path)
        if blocks is not None:
            return blocks, size
    data = read_data(path, opts)  # (reports 0 of its size)
    # bytes the blocks refused as a file are not tried again (unless a BOM is gone from them)
    clean = not opts.formats and len(data) != size and _may_be_clean_json(data)
    blocks = parse_blocks(data) if clean else None
    return (data if blocks is None else blocks), len(data)


def _line_by_line(data: bytes, path: Path, tz: str, opts: ParseOptions) -> pd.DataFrame:
    """The general path over the file's non-blank lines."""
    lines, line_no = nonblank(split_lines(data))
    del data  # not alive while the rows are built (the caller's reference aside)
    return read_rows(lines, line_no, path, tz, opts)


def read_rows(
    lines: pa.Array, line_no: pa.Array, path: Path, tz: str, opts: ParseOptions
) -> pd.DataFrame:
    """The general path, line by line in format order (the table _all_json gives when it
    gives one): user formats, JSON objects, timestamped text, logfmt, else unparsed rows."""
    n = len(lines)
    frames: list[pd.DataFrame] = []
    left = np.ones(n, bool)

    def rows(
        cols: dict[str, pa.Array], where: np.ndarray, json_valued: frozenset[str] = frozenset()
    ) -> None:
        if where.size:
            fields = resolve(cols, int(where.size), json_valued=json_valued)
            frames.append(
                build_rows(fields, line_no=line_no.take(pa.array(where)), path=path, tz=tz)
            )

    def bad(where: np.ndarray, reason: str) -> None:
        if where.size:
            idx = pa.array(where)
            frames.append(unparsed_rows(SOURCE, path, line_no.take(idx), lines.take(idx), reason))

    if opts.formats and n:
        found = user_format_rows(lines.to_pylist(), opts.formats)
        hit = np.array([r is not None for r in found], bool)
        where = np.flatnonzero(hit)
        rows(columns_from_dicts([found[i] for i in where], int(where.size)), where)
        left &= ~hit

    is_json = (
        pc.starts_with(pc.utf8_ltrim_whitespace(lines), "{")
        .fill_null(False)
        .to_numpy(zero_copy_only=False)
    )
    json_at = np.flatnonzero(is_json & left)
    if json_at.size:
        parsed = read_json_lines(lines.take(pa.array(json_at)), text_keys=ALIASES["ts"])
        ok = parsed.ok.to_numpy(zero_copy_only=False)
        cols = (
            parsed.columns
            if ok.all()
            else {k: a.filter(parsed.ok) for k, a in parsed.columns.items()}
        )
        rows(cols, json_at[ok], parsed.json_valued)
        bad(json_at[~ok], "invalid JSON (or not an object)")
        left[json_at] = False

    rest = np.flatnonzero(left)
    if rest.size:
        sub = lines.take(pa.array(rest))
        cols, ok_arr = text_columns(sub)
        ok = ok_arr.to_numpy(zero_copy_only=False)
        rows({k: a.filter(ok_arr) for k, a in cols.items()}, rest[ok])
        others = rest[~ok]
        texts = lines.take(pa.array(others)).to_pylist() if others.size else []
        lf = np.array([is_logfmt(t or "") for t in texts], bool)
        rows(
            logfmt_columns([t for t, f in zip(texts, lf, strict=True) if f]),
            others[lf] if lf.size else others[:0],
        )
        bad(others[~lf] if lf.size else others, "not JSON, logfmt or a timestamped text line")

    out = concat_frames(frames)
    if len(frames) > 1:
        out = out.sort_values("seq", kind="stable").reset_index(drop=True)
    return out


ADAPTER = MiddlewareAdapter()
