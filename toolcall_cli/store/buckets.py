"""Correlation buckets: which store bucket each event belongs in (DESIGN §6b).

A bucket holds whole connected components of the key graph, so a trace (and a session) is
read from one bucket and a bucket can be analysed alone. The graph is built from the key
columns alone, as text, so it can be kept between ingests (`keys.parquet`, store/layout):

- `c:` a `tool_call_id`, or an `X-Original-ID` (the call a retry stands for);
- `t:` a `trace_id`, or the trace id inside a W3C `traceparent`;
- `r:` a `request_id`; `s:` a `session_id` (a session's traces stay together);
- `p:` a capture's TCP stream (a request and the id-less response that answers it);
- `f:` the input (and session) of a conversation's rows, whose user and assistant messages
  carry no id; any row with no key at all takes its input's `f:` key.

Ids are not scoped here (alignment scopes them, align/scope.py): a reused `call_0` glues
conversations into one component. That only makes a component larger than a trace, never
splits one, and a larger bucket is still self-contained. A component is named by its first key
in (kind, text) order, kinds ranked `s t r c p f` (`NAME_ORDER`): a session's key, else a
trace's, and so on. That name does not depend on the order its inputs were ingested in, and it
stays put as calls join it. Named by its smallest key text instead (`c:` ids sort first), a
session would take a new name, most often in another bucket, whenever a call id sorting lower
joined it, so with a thousand sessions open at a time in a fleet's logs every flush of an ingest
would move rows out of every bucket.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.align.arrays import attr_fields, nonempty, true_mask
from toolcall_cli.align.keys import LINK_ATTRS, traceparent_ids
from toolcall_cli.align.union_find import union_find
from toolcall_cli.model.events import CONVERSATION_SOURCES, WIRE_SOURCES
from toolcall_cli.store.layout import bucket_of_label

if TYPE_CHECKING:
    import pandas as pd

FILE = "_file"  # the hidden input-key column of a store table
_SEP = "\x1f"
#: Key kinds in the order a component's name is chosen (see the module's docstring).
NAME_ORDER = "strcpf"
_KINDS = pa.array(list(NAME_ORDER), pa.large_string())


def _tagged(tag: str, values: pa.Array) -> pa.Array:
    """`tag` + SEP + text for non-blank *values*, null elsewhere."""
    values = nonempty(values.cast(pa.large_string()))
    prefix = pa.scalar(f"{tag}{_SEP}", pa.large_string())
    return pc.binary_join_element_wise(prefix, values, pa.scalar("", pa.large_string()))


def row_keys(table: pa.Table) -> list[pa.Array]:
    """The key text of every row of a store table (with `_file`), one array per key kind;
    the first array has a key for every row (its anchor in the graph)."""
    col = {name: table[name].combine_chunks() for name in table.column_names}
    n = table.num_rows
    fields = attr_fields(col["attrs"], LINK_ATTRS) if n else {k: col["attrs"] for k in LINK_ATTRS}
    origin_file = pc.if_else(
        pc.match_substring(col["origin"], "#frame="),
        pc.replace_substring_regex(col["origin"], r"(?s)^(.*)#frame=.*$", r"\1"),
        col["origin"],
    )
    wire = true_mask(pc.is_in(col["source"], value_set=pa.array(WIRE_SOURCES)))
    joined = pc.binary_join_element_wise(
        origin_file.cast(pa.large_string()),
        fields["stream"].cast(pa.large_string()),
        pa.scalar("|", pa.large_string()),
    )
    stream = pc.if_else(pa.array(wire), joined, pa.scalar(None, pa.large_string()))
    keys = [
        _tagged("c", col["tool_call_id"]),
        _tagged("c", fields["x_original_id"]),
        _tagged("t", col["trace_id"]),
        _tagged("t", traceparent_ids(fields["traceparent"])),
        _tagged("r", col["request_id"]),
        _tagged("s", col["session_id"]),
        _tagged("p", stream),
    ]
    session = pc.fill_null(col["session_id"].cast(pa.large_string()), "")
    sep = pa.scalar(_SEP, pa.large_string())
    own = pc.binary_join_element_wise(col[FILE].cast(pa.large_string()), session, sep)
    talk = true_mask(pc.is_in(col["source"], value_set=pa.array(CONVERSATION_SOURCES)))
    keys.append(_tagged("f", pc.if_else(pa.array(talk), own, pa.scalar(None, pa.large_string()))))
    anchor = keys[0]
    for k in keys[1:]:
        anchor = pc.coalesce(anchor, k)
    anchor = pc.coalesce(anchor, _tagged("f", col[FILE]))  # a row with no key at all
    return [anchor, *keys]


@dataclass(frozen=True, slots=True)
class KeyMap:
    """Each known key and the label (name, `NAME_ORDER`) of its component; in memory in no
    particular order, stored sorted (:meth:`to_table`)."""

    keys: pa.Array
    labels: pa.Array

    @classmethod
    def empty(cls) -> KeyMap:
        return cls(pa.array([], pa.large_string()), pa.array([], pa.large_string()))

    def label_of(self, keys: pa.Array) -> pa.Array:
        """The label of each key in *keys* (null for a key the map does not hold)."""
        return self.labels.take(pc.index_in(keys, value_set=self.keys))

    def to_table(self) -> pa.Table:
        """The map as `keys.parquet` holds it: sorted in `NAME_ORDER`, so a one-key lookup
        reads one row group (a map in memory is in no particular order)."""
        order = _name_order(self.keys)
        return pa.table({"key": self.keys.take(order), "label": self.labels.take(order)})


def link(old: KeyMap, new_keys: list[pa.Array], buckets: int) -> tuple[KeyMap, set[int]]:
    """The map after adding rows with *new_keys* (from :func:`row_keys`), and the buckets
    holding rows that must move: their component was linked to another, or gained a key that
    renames it, and its new label hashes to another bucket.

    Only the components the new keys touch are linked again; the rest of the map is carried
    over as it is. An ingest links at every flush, and re-coding and sorting the whole map each
    time made a fleet-day ingest (2.9 M keys, 69 flushes) quadratic in its size."""
    new_keys = [k.cast(pa.large_string()) for k in new_keys]
    if not len(old.keys):
        return _link_whole(old, new_keys, buckets)
    seen = old.labels.take(pc.index_in(pc.unique(pa.concat_arrays(new_keys)), value_set=old.keys))
    touched = pc.is_in(old.labels, value_set=pc.unique(seen.drop_null()))  # labels: no nulls
    carried = pc.invert(touched)
    linked, moved = _link_whole(
        KeyMap(old.keys.filter(touched), old.labels.filter(touched)), new_keys, buckets
    )
    keys = pa.concat_arrays([old.keys.filter(carried), linked.keys])
    labels = pa.concat_arrays([old.labels.filter(carried), linked.labels])
    return KeyMap(keys, labels), moved


def _link_whole(old: KeyMap, new_keys: list[pa.Array], buckets: int) -> tuple[KeyMap, set[int]]:
    """:func:`link` over the whole of *old* (whose labels are among its keys).

    Every key text (the map's and the rows') is coded by one dictionary encoding, ranked by one
    sort (so the smallest code of a component is its name, `NAME_ORDER`), and the union-find
    runs on the codes: no hash table per key column, no Python per row."""
    arrays = [old.keys, old.labels, *new_keys]
    enc = pc.dictionary_encode(pa.concat_arrays(arrays))
    order = _name_order(enc.dictionary)
    nodes = enc.dictionary.take(order)
    rank = np.empty(len(nodes), dtype=np.int64)
    rank[np.asarray(order)] = np.arange(len(nodes), dtype=np.int64)
    ranked = np.append(rank, -1)  # a null key → -1
    idx = np.asarray(enc.indices.fill_null(len(nodes)).to_numpy(zero_copy_only=False))
    codes, at = [], 0
    for arr in arrays:
        codes.append(ranked[idx[at : at + len(arr)]])
        at += len(arr)
    old_keys, old_labels, anchor, *others = codes
    u, v = [old_keys], [old_labels]
    for c in others:
        u.append(anchor[c >= 0])
        v.append(c[c >= 0])
    roots = union_find(np.concatenate(u), np.concatenate(v), len(nodes))
    labels = nodes.take(pa.array(roots))
    new = KeyMap(nodes, labels)
    if not len(old.keys):
        return new, set()
    after = labels.take(pa.array(old_keys))
    changed = pc.not_equal(after, old.labels)
    pairs = pa.table({"old": old.labels.filter(changed), "new": after.filter(changed)})
    pairs = pairs.group_by(["old", "new"]).aggregate([])
    before, now = bucket_array(pairs["old"], buckets), bucket_array(pairs["new"], buckets)
    return new, {int(b) for b in before[before != now]}


def _name_order(keys: pa.Array) -> pa.Array:
    """Indices that sort distinct *keys* by kind (`NAME_ORDER`), then text."""
    kind = pc.index_in(pc.utf8_slice_codeunits(keys, 0, 1), value_set=_KINDS)
    kind = pc.fill_null(kind, len(NAME_ORDER))
    by = [("kind", "ascending"), ("key", "ascending")]
    return pc.sort_indices(pa.table({"kind": kind, "key": keys}), sort_keys=by)


def bucket_array(labels: pa.Array | pa.ChunkedArray, buckets: int) -> np.ndarray:
    """Bucket of each label (computed once per distinct label)."""
    if isinstance(labels, pa.ChunkedArray):
        labels = labels.combine_chunks()
    enc = pc.dictionary_encode(labels)
    per = np.array(
        [bucket_of_label(str(x), buckets) for x in enc.dictionary.to_pylist()], dtype=np.int64
    )
    idx = np.asarray(enc.indices.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)
    return per[idx] if len(per) else np.zeros(len(labels), dtype=np.int64)


def split_components(table: pa.Table, parts: int) -> np.ndarray:
    """Which of *parts* parts each row of a store table (with `_file`) goes to, whole
    components each: a bucket too large to diagnose at once is diagnosed in parts, and each
    part is still self-contained. The components are those of the bucket's own rows (a
    bucket holds whole components: its rows name every key they link by)."""
    keys = row_keys(table)
    keymap, _ = link(KeyMap.empty(), keys, parts)
    return bucket_array(keymap.label_of(keys[0].cast(pa.large_string())), parts)


def deal_rows(table: pa.Table, parts: int) -> list[np.ndarray]:
    """Row positions of *table* (with `_file`) per part, at most *parts*, none empty, each in
    row order: whole components of the key graph (the store's buckets' definition, so a part
    is as self-contained as a bucket), dealt largest first onto the lightest part so the parts
    are even (an in-memory table split for `--workers` or a Dask cluster)."""
    import heapq

    n = table.num_rows
    if parts <= 1 or n == 0:
        return [np.arange(n)]
    keys = row_keys(table)
    keymap, _ = link(KeyMap.empty(), keys, parts)
    labels = keymap.label_of(keys[0].cast(pa.large_string()))  # every row has an anchor key
    comp = np.asarray(pc.dictionary_encode(labels).indices.to_numpy(zero_copy_only=False))
    sizes = np.bincount(comp)
    load = [(0, p) for p in range(parts)]
    part_of = np.zeros(len(sizes), dtype=np.int64)
    for c in np.argsort(-sizes, kind="stable"):
        used, p = heapq.heappop(load)
        part_of[c] = p
        heapq.heappush(load, (used + int(sizes[c]), p))
    row_part = part_of[comp]
    order = np.argsort(row_part, kind="stable")
    bounds = np.searchsorted(row_part[order], np.arange(parts + 1))
    split = [order[bounds[p] : bounds[p + 1]] for p in range(parts)]
    return [s for s in split if len(s)]


#: The event columns :func:`row_keys` reads.
KEY_SOURCE_COLUMNS = (
    "tool_call_id", "trace_id", "request_id", "session_id", "source", "origin", "attrs",
)  # fmt: skip


def key_table(events: pd.DataFrame) -> pa.Table:
    """The columns of an in-memory event table that :func:`row_keys` reads, with each row's
    input file (its origin's file part) as `_file`."""
    from toolcall_cli.model.origins import file_of

    cols = {c: pa.array(events[c].astype(object), pa.large_string()) for c in KEY_SOURCE_COLUMNS}
    cols[FILE] = file_of(cols["origin"]).cast(pa.large_string())
    return pa.table(cols)
