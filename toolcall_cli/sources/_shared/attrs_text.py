"""The `attrs` JSON text of log rows, built once per distinct row when rows repeat.

Logs repeat their attrs: middleware event names, levels, reasons and rules; access-log
methods, paths, protocols, agents and referers. A million rows often hold a handful of
distinct member combinations. When a sample says every member repeats a lot, the
rows are keyed by their members' dictionary codes, json_objects() runs on one row per key and
the texts are broadcast. A member is null on some representative row exactly when it is null
on some row, so json_objects() lays the objects out as it would over all rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources._shared.textlog import MemberOrder, broadcast, json_objects

#: (key, values, json_objects kind) members of the `attrs` object, in order.
AttrFields = list[tuple[str, pa.Array, str]]

_SAMPLE = 2048
_MAX_SAMPLE_DISTINCT = 64


def attrs_text(fields: AttrFields, n: int, order: MemberOrder | None = None) -> pa.Array:
    """json_objects(fields, n, order), computed per distinct row when the rows repeat."""
    codes = _row_codes(fields, n)
    if codes is None:
        return json_objects(fields, n, order)
    keys, uniques = pd.factorize(codes)
    if len(uniques) * 16 > n:
        return json_objects(fields, n, order)
    # keys are numbered in order of appearance: a key's first row is where the running max rises
    top = np.maximum.accumulate(keys)
    rises = np.ones(n, bool)
    rises[1:] = top[1:] > top[:-1]
    rep = pa.array(np.flatnonzero(rises))
    texts = json_objects([(k, v.take(rep), kind) for k, v, kind in fields], len(rep), order)
    return broadcast(texts, keys)


def _row_codes(fields: AttrFields, n: int) -> np.ndarray | None:
    """One int64 per row that is equal exactly when all members are; None when some member has
    many distinct values (or cannot be hashed) and deduplication would not pay."""
    if n < 4 * _SAMPLE:
        return None
    members = [values for _, values, _ in fields if values.null_count < n]
    try:
        if any(len(pc.unique(v.slice(0, _SAMPLE))) > _MAX_SAMPLE_DISTINCT for v in members):
            return None
        encoded = [pc.dictionary_encode(v) for v in members]
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
        return None  # nested members: no hashing kernel
    codes = np.zeros(n, np.int64)
    span = 1
    for enc in encoded:
        radix = len(enc.dictionary) + 1  # + null
        span *= radix
        if span >= 1 << 62:
            return None
        idx = enc.indices.fill_null(radix - 1).to_numpy(zero_copy_only=False)
        codes = codes * radix + idx.astype(np.int64)
    return codes
