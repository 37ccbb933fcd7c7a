"""`attrs` of access rows, built once per distinct combination of their values when few.

Access logs repeat method, path, protocol, user agent and referer: a million rows may hold a
few dozen distinct attrs objects. When every field has few distinct values, the rows are
coded by their combination of values, json_objects() writes one object per combination, and a
`take` spreads them back. json_objects() is row-local once its full/sparse split is fixed, and
that split (has a field any null?) is the same over the combinations as over the rows, so the
text is identical to the direct path.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources._textlog import json_objects

Field = tuple[str, pa.Array, str]

#: Below this many rows the direct path is as cheap.
_MIN_ROWS = 4096


def attrs_objects(fields: Sequence[Field], n: int) -> pa.Array:
    """json_objects(fields, n), per distinct combination of values when that pays."""
    got = _by_combination(fields, n)
    return json_objects(fields, n) if got is None else got


def _codes(values: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """(1-based codes with 0 for null, distinct values) of a field with few distinct values."""
    if pa.types.is_dictionary(values.type):
        enc = values
        if enc.dictionary.null_count:  # its null_count would not show those nulls
            return None
    else:
        if len(pc.unique(values.slice(0, 1000))) >= 50:
            return None
        enc = pc.dictionary_encode(values)
    codes = enc.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64) + 1
    return codes, enc.dictionary


def _by_combination(fields: Sequence[Field], n: int) -> pa.Array | None:
    if n < _MIN_ROWS or any(kind != "str" or len(v) != n for _, v, kind in fields):
        return None
    live = [(key, values) for key, values, _ in fields if values.null_count < n]
    coded = []
    for _, values in live:
        got = _codes(values)
        if got is None:
            return None
        coded.append(got)
    key = np.zeros(n, np.int64)
    span = 1
    for codes, uniq in coded:
        span *= len(uniq) + 1
        if span >= 2**62:
            return None
        key = key * (len(uniq) + 1) + codes
    combos = pc.dictionary_encode(pa.array(key))
    if len(combos.dictionary) * 20 >= n:
        return None
    rest = combos.dictionary.to_numpy(zero_copy_only=False).copy()
    small: list[Field] = []
    for (name, _), (_, uniq) in reversed(list(zip(live, coded, strict=True))):
        codes = rest % (len(uniq) + 1)
        rest //= len(uniq) + 1
        small.append((name, uniq.take(pa.array(codes - 1, mask=codes == 0)), "str"))
    small.reverse()
    return json_objects(small, len(combos.dictionary)).take(combos.indices)
