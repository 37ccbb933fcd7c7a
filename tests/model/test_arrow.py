"""The offset and byte views of text arrays the adapters and redaction read instead of kernels."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from toolcall_cli.model.arrow import holds_byte, text_bytes, text_lengths, text_offsets

VALUES = ["ab", "", None, "cdé", "-", "xyz"]


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
def test_views_equal_what_the_kernels_give(kind: pa.DataType) -> None:
    arr = pa.array(VALUES, kind).slice(1, 4)  # an offset into the buffers: "", None, "cdé", "-"
    offsets = text_offsets(arr)
    assert len(offsets) == len(arr) + 1
    assert offsets.dtype.itemsize == (8 if kind == pa.large_string() else 4)
    lengths = pc.fill_null(pc.binary_length(arr), 0).to_numpy()
    assert text_lengths(arr).tolist() == lengths.tolist() == [0, 0, 4, 1]
    assert text_bytes(arr).tobytes() == "cdé-".encode()
    assert holds_byte(arr, ord("-")) and not holds_byte(arr, ord("a"))  # "ab" is sliced off


@pytest.mark.parametrize("values", [[], [None, None], ["", ""]])
def test_bytes_of_an_array_without_text_are_empty(values: list[str | None]) -> None:
    arr = pa.array(values, pa.large_string())
    assert text_bytes(arr).size == 0
    assert text_lengths(arr).tolist() == [0] * len(values)
    assert not holds_byte(arr, 0)
