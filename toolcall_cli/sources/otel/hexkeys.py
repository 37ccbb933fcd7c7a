"""Span identities as numbers: trace id + span id (lowercase hex, already checked) → three
uint64 per span, read straight from the Arrow text buffers. Finding repeated deliveries among
a million spans is then a sort of integers, not hashing a million 48-character strings."""

from __future__ import annotations

from typing import Final

import numpy as np
import pyarrow as pa

_LUT: Final = np.zeros(256, dtype=np.uint64)
_LUT[np.frombuffer(b"0123456789", np.uint8)] = np.arange(10, dtype=np.uint64)
_LUT[np.frombuffer(b"abcdef", np.uint8)] = np.arange(10, 16, dtype=np.uint64)
_SHIFTS: Final = np.arange(60, -1, -4, dtype=np.uint64)  # 16 nibbles, most significant first


def _fixed(arr: pa.Array, width: int) -> np.ndarray:
    """The characters of *arr* (every value exactly *width* ASCII bytes) as an n × width array."""
    arr = arr.cast(pa.large_string()) if arr.type != pa.large_string() else arr
    n = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset : arr.offset + n + 1]
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8)
    return data[offsets[0] : offsets[0] + n * width].reshape(n, width)


def _words(chars: np.ndarray) -> np.ndarray:
    """16 hex characters per row → one uint64 per row."""
    return np.bitwise_or.reduce(_LUT[chars] << _SHIFTS, axis=1)


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
