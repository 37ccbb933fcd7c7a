"""The `attrs` JSON objects of the column-wise tool rows, written once per distinct shape.

Past the span id, a block's tool rows carry a handful of different attribute sets (the
convention, an HTTP method and path, the span kind, the server, the tool type, whether content
was captured). Each distinct set is written as text once, in Python, and every row joins its
span id to its set's text: one join over the rows instead of a test and a join per member
(the per-span equivalent is `rows.tool_rows`; the tests hold both paths to the same rows).
"""

from __future__ import annotations

from typing import Final

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

#: A member: its name, its distinct values as JSON literals, and each row's value (-1: none).
Member = tuple[str, list[str], np.ndarray]
#: Distinct sets are found with a table this long at most (else a sort).
_TABLE: Final = 1 << 20
_KEY_LIMIT: Final = 1 << 62


def encoded(name: str, values: pa.Array, literal: np.ndarray | None = None) -> Member:
    """A member whose value is *values* (text; null where the row has none), written as a JSON
    string, or as it is (a JSON value's text) in the rows *literal*."""
    if literal is not None:
        none = pa.nulls(len(values), pa.string())
        _, texts, text_codes = encoded(name, pc.if_else(pa.array(literal), none, values))
        enc = pc.dictionary_encode(pc.if_else(pa.array(literal), values, none))
        codes = pc.fill_null(enc.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
        return (
            name,
            texts + enc.dictionary.to_pylist(),
            np.where(literal, codes + len(texts), text_codes),
        )
    enc = pc.dictionary_encode(values)
    literals = [orjson.dumps(v).decode() for v in enc.dictionary.to_pylist()]
    codes = pc.fill_null(enc.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return name, literals, codes


def objects(span_ids: pa.Array, conventions: list[str], convention: np.ndarray,
            members: list[Member]) -> pa.Array:  # fmt: skip
    """`{"span_id":…,"convention":…,<members set in the row>}` for each row, members in order."""
    n = len(span_ids)
    # each row's set as one number: its convention, then each member's value + 1 (0: none)
    digits = [convention.astype(np.int64), *(codes + 1 for _, _, codes in members)]
    radices = [len(conventions), *(len(lits) + 1 for _, lits, _ in members)]
    size = int(np.prod(radices, dtype=object))
    if size < _KEY_LIMIT:
        key = np.zeros(n, dtype=np.int64)
        for digit, radix in zip(digits, radices, strict=True):
            key = key * radix + digit
    else:  # too many distinct values to number every possible set: number the rows' own
        _, key = np.unique(np.column_stack(digits), axis=0, return_inverse=True)
        key, size = key.reshape(-1).astype(np.int64), n
    if size <= _TABLE:
        row_of = np.full(size, -1, dtype=np.int64)
        row_of[key] = np.arange(n)  # any row of each set: they all hold the same members
        present = np.flatnonzero(row_of >= 0)
        slot = np.cumsum(row_of >= 0) - 1
        rows, set_of = row_of[present], slot[key]
    else:
        _, rows, set_of = np.unique(key, return_index=True, return_inverse=True)
    texts = []
    for r in rows.tolist():
        parts = [f'","convention":"{conventions[convention[r]]}"']
        for name, lits, codes in members:
            if codes[r] >= 0:
                parts.append(f',"{name}":{lits[codes[r]]}')
        parts.append("}")
        texts.append("".join(parts))
    tails = pa.array(texts, pa.string()).take(pa.array(set_of.reshape(-1)))
    out = pc.binary_join_element_wise('{"span_id":"', span_ids, tails, "")
    if span_ids.null_count:  # a record without a span id: the members only
        members = pc.binary_join_element_wise("{", pc.utf8_slice_codeunits(tails, 3), "")
        out = pc.coalesce(out, members)
    return out
