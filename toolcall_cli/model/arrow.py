"""Arrow column helpers shared by the adapters and by redaction."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa


#: Rows below which hashing a column costs more than it saves.
_MIN_ROWS = 1000
_SAMPLE = 1024
#: Most distinct values a sample may show for the column to count as repetitive.
_SAMPLE_DISTINCT = 64


def few_distinct(arr: pa.Array | pa.ChunkedArray) -> pa.DictionaryArray | None:
    """*arr* dictionary-encoded when it holds few distinct values, judged from a sample first
    (a row-local function — a regex pass, JSON quoting — can then run once per distinct value
    and be broadcast with `take(indices)`); None otherwise."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(arr)
    if n <= _MIN_ROWS or len(pc.unique(arr.slice(0, _SAMPLE))) > _SAMPLE_DISTINCT:
        return None
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    enc = pc.dictionary_encode(arr)
    return enc if len(enc.dictionary) * 8 < n else None


def text_offsets(arr: pa.Array) -> np.ndarray:
    """The n + 1 value offsets of a string or large_string array, as a view of its buffer
    (int32 or int64, as the type stores them; the array's own slice of them)."""
    import numpy as np
    import pyarrow as pa

    width = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    return np.frombuffer(arr.buffers()[1], width)[arr.offset : arr.offset + len(arr) + 1]


def text_lengths(arr: pa.Array) -> np.ndarray:
    """The byte length of each value of a string or large_string array, from its offsets
    (no kernel call; a null slot's length is whatever its offsets say, usually 0)."""
    import numpy as np

    return np.diff(text_offsets(arr))


def text_bytes(arr: pa.Array) -> np.ndarray:
    """The bytes of a string or large_string array's values end to end (a uint8 view of its
    data buffer; what a null slot spans counts too), empty when it has none."""
    import numpy as np

    data = arr.buffers()[2]
    if data is None or not len(arr):
        return np.zeros(0, np.uint8)
    offs = text_offsets(arr)
    return np.frombuffer(data, np.uint8)[offs[0] : offs[-1]]


def holds_byte(arr: pa.Array, byte: int) -> bool:
    """Whether some value of a string or large_string array holds *byte* (one scan of its
    data, not a kernel call per row; what a null slot spans counts too)."""
    return bool((text_bytes(arr) == byte).any())
