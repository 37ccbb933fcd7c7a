"""The parts of an event's `origin`, spelled once for every package.

An origin is `path:line` (a line of a text file), `path#frame=N` (a capture's frame),
`path:line#/pointer` (a member of a JSON-lines record) or `path#/pointer` (a member of a JSON
document). Two parts are asked for:

- the *record*, everything before the first `#`: `path:line` for a JSON-lines record,
  `path` for a whole document or a capture. A messages JSONL line is one conversation, so
  the code that groups conversations wants the record, not the file.
- the *file*, the record without a trailing `:line`.

Arrow arrays in, Arrow arrays out; the `*s_of` functions take and give pandas Series (their
index kept) without making a Python list of the column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd
    import pyarrow as pa

    Texts: TypeAlias = pa.Array | pa.ChunkedArray


def record_of(origin: Texts) -> Texts:
    """The record part of each origin: `path:line` or `path` (what is before the first `#`)."""
    import pyarrow.compute as pc

    return pc.struct_field(pc.extract_regex(origin, r"(?s)^(?P<f>[^#]*)"), [0])


def file_of(origin: Texts) -> Texts:
    """The file part of each origin (`path:line`, `path#frame=N`, `path:line#/ptr`,
    `path#/ptr` all give `path`)."""
    import pyarrow.compute as pc

    return pc.replace_substring_regex(record_of(origin), r":\d+$", "")


def records_of(origin: pd.Series) -> pd.Series:
    """:func:`record_of` of a pandas column (text, same index)."""
    return _on_series(record_of, origin)


def files_of(origin: pd.Series) -> pd.Series:
    """:func:`file_of` of a pandas column (text, same index)."""
    return _on_series(file_of, origin)


def _on_series(part: Callable[[Texts], Texts], origin: pd.Series) -> pd.Series:
    import pandas as pd
    import pyarrow as pa

    # an Arrow-backed column goes over as its chunks, not copied value by value
    arr = pa.array(origin, from_pandas=True)
    if not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.large_string())  # an empty object column comes over as nulls
    out = pd.arrays.ArrowStringArray(part(arr))
    return pd.Series(out, index=origin.index, name=origin.name, copy=False)
