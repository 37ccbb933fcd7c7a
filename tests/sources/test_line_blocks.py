"""A plain file read in line-aligned blocks into reused buffers: the blocks are the file."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from toolcall_cli.sources._shared.line_blocks import LineBlocks


@pytest.mark.parametrize("seed", range(40))
def test_the_blocks_end_at_line_ends_and_join_to_the_file(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    lines = [b"x" * rnd.randint(0, 40) for _ in range(rnd.randint(0, 30))]
    data = b"\n".join(lines) + (b"\n" if rnd.random() < 0.5 else b"")
    path = tmp_path / "log"
    path.write_bytes(data)
    reader = LineBlocks(path, rnd.randint(1, 50))  # often shorter than a line: blocks grow
    seen = []
    for buf, memory in reader:
        block = buf.to_pybytes()
        seen.append(block)
        assert block.endswith(b"\n") or sum(map(len, seen)) == len(data)  # only the last may not
        reader.release(memory)  # its memory takes the next block
    assert b"".join(seen) == data
    assert all(seen)


def test_released_memory_is_used_again(tmp_path: Path) -> None:
    path = tmp_path / "log"
    path.write_bytes(b"".join(b"line %d\n" % i for i in range(1000)))
    reader = LineBlocks(path, 100)
    memories = set()
    for _, memory in reader:
        memories.add(id(memory))
        reader.release(memory)
    assert len(memories) == 1
