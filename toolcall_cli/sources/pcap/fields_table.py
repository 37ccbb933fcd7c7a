"""tshark's tab-separated fields output → a DataFrame of str columns, one per field.

Arrow's CSV reader parses it (no quoting, no escapes: tshark escapes tab and newline inside
values), about four times cheaper than pandas' C parser. What Arrow cannot take exactly as
pandas does — bytes that are not UTF-8 (pandas replaces them), a row with the wrong number
of fields (pandas skips a long one and pads a short one) — makes the whole output go
through pandas' parser instead, so the table is the same either way.
"""

from __future__ import annotations

import csv
import io
import mmap
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def parse(data: bytes | mmap.mmap, names: Sequence[str]) -> pd.DataFrame:
    """The rows of *data* (bytes, or a mapped file) as str columns named *names* (empty
    strings for empty fields)."""
    import pandas as pd

    if _blank(data):
        return pd.DataFrame({n: pd.Series([], dtype=object) for n in names})
    table = _arrow(data, names)
    return table if table is not None else _pandas(data, names)


def _blank(data: bytes | mmap.mmap) -> bool:
    """Nothing but whitespace (a big output is copied only when its head is all blank)."""
    if not len(data):
        return True
    return bytes(data[:4096]).isspace() and bytes(data).isspace()


def _arrow(data: bytes | mmap.mmap, names: Sequence[str]) -> pd.DataFrame | None:
    """Arrow's reading, or None when it would differ from pandas' (see the module doc)."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    from pyarrow import csv as pacsv

    odd: list[object] = []

    def note(row: object) -> str:
        odd.append(row)
        return "skip"

    try:
        table = pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(data)),  # (a BytesIO would be copied into Arrow)
            read_options=pacsv.ReadOptions(
                column_names=list(names), use_threads=False, block_size=max(1 << 20, len(data))
            ),
            parse_options=pacsv.ParseOptions(
                delimiter="\t",
                quote_char=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=True,
                invalid_row_handler=note,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except pa.ArrowInvalid:  # not UTF-8
        return None
    if odd:
        return None
    text = pd.StringDtype("pyarrow", na_value=np.nan)  # pandas' own dtype for str columns
    return table.to_pandas(types_mapper=lambda t: text if t == pa.string() else None)


def _pandas(data: bytes | mmap.mmap, names: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    return pd.read_csv(
        io.BytesIO(data),
        sep="\t",
        header=None,
        names=list(names),
        dtype=str,
        quoting=csv.QUOTE_NONE,
        na_filter=False,
        engine="c",
        encoding="utf-8",
        encoding_errors="replace",
        on_bad_lines="skip",
        skip_blank_lines=True,
    )
