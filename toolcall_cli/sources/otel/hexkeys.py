"""Span identities as numbers: trace id + span id (lowercase hex, already checked) → three
uint64 per span, read straight from the Arrow text buffers. Finding repeated deliveries among
a million spans is then a sort of integers, not hashing a million 48-character strings."""

from __future__ import annotations

from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.arrow import text_offsets

_HEX_DIGITS: Final = b"0123456789abcdef"
_HEX: Final = np.zeros(256, dtype=bool)
_HEX[np.frombuffer(b"0123456789abcdef", np.uint8)] = True


def _fixed(arr: pa.Array, width: int) -> np.ndarray:
    """The characters of *arr* (every value exactly *width* ASCII bytes) as an n × width array."""
    arr = arr.cast(pa.large_string()) if arr.type != pa.large_string() else arr
    n = len(arr)
    offsets = text_offsets(arr)
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8)
    return data[offsets[0] : offsets[0] + n * width].reshape(n, width)


def all_hex(arr: pa.Array, width: int) -> bool:
    """Whether every value of *arr* is exactly *width* lowercase hex characters (one pass over
    the text buffer: a regex per value costs ten times more)."""
    if arr.null_count:
        return False
    arr = arr.cast(pa.large_string()) if arr.type != pa.large_string() else arr
    n = len(arr)
    offsets = text_offsets(arr)
    if not (np.diff(offsets) == width).all():
        return False
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8) if n else np.zeros(0, np.uint8)
    # deleting the hex digits leaves nothing: one C pass (a numpy table lookup costs more)
    return not data[offsets[0] : offsets[-1]].tobytes().translate(None, _HEX_DIGITS)


def _words(chars: np.ndarray) -> np.ndarray:
    """16 lowercase hex characters per row → one uint64 per row (`bytes.fromhex` decodes the
    block in C; a lookup table and shifts in numpy cost ten times more)."""
    text = np.ascontiguousarray(chars).tobytes().decode("ascii")
    return np.frombuffer(bytes.fromhex(text), dtype=">u8").astype(np.uint64)


def span_keys(trace: pa.Array, span: pa.Array) -> np.ndarray:
    """n × 3 uint64: trace id high and low words, span id."""
    t = _fixed(trace, 32)
    return np.column_stack([_words(t[:, :16]), _words(t[:, 16:]), _words(_fixed(span, 16))])


def repeats(keys: np.ndarray) -> np.ndarray:
    """Positions of the keys seen before (the first occurrence is not a repeat)."""
    n = len(keys)
    spans = np.sort(keys[:, 2])  # a sort: numpy's hash-based unique is slower on a million
    if not n or not (spans[1:] == spans[:-1]).any():  # span ids alone all differ: no repeat
        return np.zeros(0, np.int64)
    _, first = np.unique(keys, axis=0, return_index=True)
    repeat = np.ones(n, dtype=bool)
    repeat[first] = False
    return np.flatnonzero(repeat)


def quoted_words(text: pa.Array, marker: str) -> tuple[np.ndarray, np.ndarray]:
    """The 16 lowercase hex characters between *marker* and a closing quote in each value
    (the first occurrence), as uint64, and whether the value had them: a span id read out of
    a million JSON texts without a regex or a Python string per row."""
    arr = text.cast(pa.large_string()) if text.type != pa.large_string() else text
    n, width = len(arr), len(marker.encode())
    found = pc.fill_null(pc.find_substring(arr, marker), -1).to_numpy(zero_copy_only=False)
    offsets = text_offsets(arr)
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8) if n else np.zeros(0, np.uint8)
    lengths = offsets[1:] - offsets[:-1]
    ok = (found >= 0) & (found + width + 17 <= lengths)
    at = np.flatnonzero(ok)
    # rows of a sliding 17-byte view: one gather of n short rows, no n × 17 index array
    windows = np.lib.stride_tricks.sliding_window_view(data, 17) if data.size >= 17 else data[:0]
    chars = windows.reshape(-1, 17)[offsets[at] + found[at] + width]
    good = _HEX[chars[:, :16]].all(axis=1) & (chars[:, 16] == ord('"'))
    words = np.zeros(n, dtype=np.uint64)
    words[at[good]] = _words(chars[good, :16])
    ok[at[~good]] = False
    return words, ok
