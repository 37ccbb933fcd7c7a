"""tshark's fields rows (one per frame) → the message table of :mod:`.http`, column-wise.

Each field keeps its first occurrence (occurrences are joined by U+001F); numbers and epoch
times are parsed by Arrow when they have the plain shape tshark writes, by pandas otherwise;
a body is the hex of the ``media``/``data`` dissector (lossless), tshark's escaped
``http.file_data`` text when there is none. A field a padded row lacks counts as empty.
"""

from __future__ import annotations

import binascii
import re
from itertools import pairwise
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.arrow import text_bytes, text_offsets
from toolcall_cli.model.events import STR
from toolcall_cli.sources.pcap.arrow_text import lit, text
from toolcall_cli.sources.pcap.http import MESSAGE_COLUMNS, NULL_NS
from toolcall_cli.sources.pcap.tshark import AGGREGATOR

_FLAG_FIELDS: Final = {
    "http.te_and_length": "te_and_length",
    "http.decompression_failed": "decompression_failed",
    "http.bad_header_name": "bad_header_name",
}
_ESCAPES = re.compile(r"\\([nrt])")
_INT: Final = r"^[0-9]{1,18}\z"
_EPOCH: Final = r"^[0-9]{1,11}\.[0-9]{1,9}\z"
_LAST: Final = rf"(?P<last>[^{AGGREGATOR}]*)\z"


def is_multi(raw: pd.DataFrame) -> np.ndarray:
    """Rows (frames) that hold more than one HTTP message."""
    req, resp = text(raw["http.request"]), text(raw["http.response"])
    several = pc.or_(
        pc.or_(pc.match_substring(req, AGGREGATOR), pc.match_substring(resp, AGGREGATOR)),
        pc.and_(pc.not_equal(req, ""), pc.not_equal(resp, "")),
    )
    return pc.fill_null(several, False).to_numpy(zero_copy_only=False)


def normalise(raw: pd.DataFrame) -> pd.DataFrame:
    """Single-message frames of the fields pass → the message table."""
    if raw.empty:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in MESSAGE_COLUMNS})
    col = {c: pc.fill_null(text(raw[c]), "") for c in raw.columns}
    is_req = pc.not_equal(col["http.request"], "")
    bodies, lossy = _bodies(col["media.type"], col["data.data"], col["http.file_data"])
    flags: list[dict[str, Any] | None] = [{"body_lossy": True} if x else None for x in lossy]
    for field, name in _FLAG_FIELDS.items():
        for i in np.flatnonzero(pc.not_equal(col[field], "").to_numpy(zero_copy_only=False)):
            flags[i] = {**(flags[i] or {}), name: True}
    return pd.DataFrame(
        {
            "frame": _ints(col["frame.number"], first=False).fillna(0).astype("int64").to_numpy(),
            "ts_ns": _epoch_ns(col["frame.time_epoch"]),
            "stream": _ints(col["tcp.stream"]),
            "is_request": is_req.to_numpy(zero_copy_only=False),
            "src": _strs(_endpoint(col["ip.src"], col["ipv6.src"], col["tcp.srcport"])),
            "dst": _strs(_endpoint(col["ip.dst"], col["ipv6.dst"], col["tcp.dstport"])),
            "method": _strs(_first(col["http.request.method"])),
            "uri": _strs(_first(col["http.request.uri"])),
            "version": _strs(
                _first(
                    pc.if_else(is_req, col["http.request.version"], col["http.response.version"])
                )
            ),
            "code": _ints(col["http.response.code"]),
            "phrase": _strs(_first(col["http.response.phrase"])),
            "request_in": _ints(col["http.request_in"]),
            "hdr": _strs(pc.if_else(is_req, col["http.request.line"], col["http.response.line"])),
            "body": pd.Series(bodies, dtype=object).to_numpy(),
            "flags": pd.Series(flags, dtype=object).to_numpy(),
        }
    )


def _strs(arr: pa.Array) -> pd.Series:
    return pd.Series(pd.arrays.ArrowStringArray(arr.cast(pa.large_string())), dtype=STR)


def _first(arr: pa.Array) -> pa.Array:
    """The first occurrence of a field that occurred several times."""
    if not _holds(arr, AGGREGATOR):
        return arr
    return pc.list_element(pc.split_pattern(arr, AGGREGATOR, max_splits=1), 0)


def _holds(arr: pa.Array, part: str) -> bool:
    """Whether any text of *arr* contains *part*: one search through its data buffer, which is
    the texts end to end (what a null slot holds counts too: then the caller splits for nothing).
    """
    return text_bytes(arr.cast(pa.large_string())).tobytes().find(part.encode()) >= 0


def _ints(arr: pa.Array, *, first: bool = True) -> pd.Series:
    """A field (its first occurrence) as Int64 (NA: empty or not a number)."""
    arr = _first(arr) if first else arr
    filled = pc.not_equal(arr, "")
    if pc.all(pc.match_substring_regex(arr.filter(filled), _INT)).as_py():
        nums = pc.cast(pc.if_else(filled, arr, pa.scalar(None, arr.type)), pa.int64())
        values = nums.fill_null(0).to_numpy()
        missing = nums.is_null().to_numpy(zero_copy_only=False)
        return pd.Series(pd.arrays.IntegerArray(values, missing))
    return pd.to_numeric(pd.Series(arr.to_pylist()), errors="coerce").astype("Int64")


def _epoch_ns(arr: pa.Array) -> np.ndarray:
    """``"1363709111.086948000"`` → int64 nanoseconds (no float rounding); bad → NULL_NS."""
    if pc.all(pc.match_substring_regex(arr, _EPOCH)).as_py():
        parts = pc.split_pattern(arr, ".", max_splits=1)
        sec = pc.cast(pc.list_element(parts, 0), pa.int64())
        frac = pc.cast(pc.utf8_rpad(pc.list_element(parts, 1), 9, "0"), pa.int64())
        return pc.add(pc.multiply(sec, 1_000_000_000), frac).to_numpy()
    col = pd.Series(arr.to_pylist(), dtype=object).str
    parts = col.partition(".")
    sec = pd.to_numeric(parts[0], errors="coerce")
    frac = pd.to_numeric(parts[2].str.ljust(9, "0").str[:9], errors="coerce").fillna(0)
    ns = sec.astype("Int64") * 1_000_000_000 + frac.astype("Int64")
    return ns.fillna(NULL_NS).to_numpy(dtype=np.int64)


def _endpoint(ip4: pa.Array, ip6: pa.Array, port: pa.Array) -> pa.Array:
    """``ip:port`` (``[ip6]:port``), null when the frame has no IP address."""
    has4 = pc.not_equal(ip4, "")
    bracketed = pc.binary_join_element_wise(lit("["), _first(ip6), lit("]"), lit(""))
    ip = pc.if_else(has4, _first(ip4), bracketed)
    out = pc.binary_join_element_wise(ip, lit(":"), _first(port), lit(""))
    return pc.if_else(pc.or_(has4, pc.not_equal(ip6, "")), out, pa.scalar(None, out.type))


def _bodies(media: pa.Array, data: pa.Array, file_data: pa.Array) -> tuple[list[bytes], list[bool]]:
    """Hex body fields (lossless) first, tshark's escaped string field as the fallback."""
    last_data = pc.struct_field(pc.extract_regex(data, _LAST), "last")
    bodies, missing = _from_hex(pc.if_else(pc.not_equal(media, ""), _first(media), last_data))
    lossy = [False] * len(bodies)
    if not missing.any():
        return bodies, lossy
    texts = file_data.to_pylist()
    for i in np.flatnonzero(missing).tolist():
        t = texts[i]
        if t:
            # tshark escapes \n \r \t but not a backslash: U+FFFD or "\\" make the text ambiguous
            lossy[i] = "\ufffd" in t or "\\" in t
            t = _ESCAPES.sub(lambda x: {"n": "\n", "r": "\r", "t": "\t"}[x.group(1)], t)
            bodies[i] = t.encode("utf-8", "surrogatepass")
    return bodies, lossy


def _from_hex(hexes: pa.Array) -> tuple[list[bytes], np.ndarray]:
    """Each hex text as bytes, and where there was none (empty, or not hex: b"").

    All the texts sit end to end in one buffer: when every one has an even length and the
    whole buffer is hex digits, it is decoded at once and cut at the halved offsets, which is
    what decoding each text alone gives."""
    if isinstance(hexes, pa.ChunkedArray):
        hexes = hexes.combine_chunks()
    hexes = hexes.cast(pa.large_string())
    if len(hexes) and not hexes.null_count:
        offsets = text_offsets(hexes)
        if not (offsets % 2).any():
            start, end = int(offsets[0]), int(offsets[-1])
            try:  # (unhexlify takes hex digits only: whitespace, which fromhex skips, fails)
                text = hexes.buffers()[2]
                whole = binascii.unhexlify(memoryview(text)[start:end]) if end > start else b""
            except binascii.Error:
                whole = None
            if whole is not None:
                cut = ((offsets - start) // 2).tolist()
                return [whole[a:b] for a, b in pairwise(cut)], offsets[1:] == offsets[:-1]
    texts = hexes.to_pylist()
    bodies = [b""] * len(texts)
    missing = np.zeros(len(texts), bool)
    for i, h in enumerate(texts):
        try:
            bodies[i] = bytes.fromhex(h)
        except ValueError:
            h = ""
        missing[i] = not h
    return bodies, missing
