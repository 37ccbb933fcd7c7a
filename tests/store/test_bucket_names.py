"""A component's name (its bucket) stays put as calls join it, and linking only the touched
components gives the map that linking everything would (store/buckets.py)."""

from __future__ import annotations

import random

import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.store.buckets import NAME_ORDER, KeyMap, _link_whole, link
from toolcall_cli.store.layout import bucket_of_label

SEP = "\x1f"


def _keys(*columns: list[str | None]) -> list[pa.Array]:
    """row_keys' shape: an anchor (the first key of each row), then each key column."""
    arrays = [pa.array(c, pa.large_string()) for c in columns]
    return [pc.coalesce(*arrays), *arrays]


def test_a_session_keeps_its_bucket_when_a_lower_sorting_call_id_joins_it() -> None:
    # one session, a call already stored; the next flush brings a call whose id sorts first
    first, _ = link(KeyMap.empty(), _keys([f"c{SEP}zz-9"], [f"s{SEP}sess-1"]), 64)
    after, moved = link(first, _keys([f"c{SEP}aa-1"], [f"s{SEP}sess-1"]), 64)
    labels = dict(zip(after.keys.to_pylist(), after.labels.to_pylist(), strict=True))
    assert set(labels.values()) == {f"s{SEP}sess-1"}  # named by its session, before and after
    assert moved == set()
    # named by the smallest key text, the session would have been renamed c:aa-1, and moved
    assert bucket_of_label(f"c{SEP}zz-9", 64) != bucket_of_label(f"c{SEP}aa-1", 64)


def test_two_sessions_linked_by_a_call_move_the_renamed_ones_rows() -> None:
    a, _ = link(KeyMap.empty(), _keys([f"c{SEP}1", f"c{SEP}2"], [f"s{SEP}a", f"s{SEP}b"]), 64)
    # a retry names call 2 as standing for call 1: one component, named s:a
    linked, moved = link(a, _keys([f"c{SEP}2"], [f"c{SEP}1"]), 64)
    assert set(linked.labels.to_pylist()) == {f"s{SEP}a"}
    want = {bucket_of_label(f"s{SEP}b", 64)} - {bucket_of_label(f"s{SEP}a", 64)}
    assert moved == want


def test_linking_the_touched_components_equals_linking_the_whole_map() -> None:
    rnd = random.Random(20)
    for _ in range(150):
        part = whole = KeyMap.empty()
        for _flush in range(rnd.randint(1, 6)):
            n = rnd.randint(0, 25)

            def col(tag: str, p: float, n: int = n) -> list[str | None]:
                return [f"{tag}{SEP}{rnd.randint(0, 30)}" if rnd.random() < p else None
                        for _ in range(n)]  # fmt: skip

            keys = _keys(col("c", 0.5), col("t", 0.4), col("s", 0.2), col("r", 0.3),
                         [f"f{SEP}{rnd.randint(0, 3)}"] * n)  # fmt: skip
            part, moved_part = link(part, keys, 8)
            whole, moved_whole = _link_whole(whole, keys, 8)
            got = dict(zip(part.keys.to_pylist(), part.labels.to_pylist(), strict=True))
            want = dict(zip(whole.keys.to_pylist(), whole.labels.to_pylist(), strict=True))
            assert got == want and len(got) == len(part.keys)
            assert moved_part == moved_whole
    # the stored map is sorted by name order (a one-key lookup reads one row group)
    stored = part.to_table()["key"].to_pylist()
    assert stored == sorted(stored, key=lambda k: (NAME_ORDER.index(k[0]), k))
