"""Arrow column helpers shared by the adapters and by redaction."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
