"""A plain file read in blocks that end at line ends, into a few buffers used over and over.

Reading a large log whole costs its size in fresh memory (every page faulted in and zeroed
by the kernel) and holds it until the last line is parsed. A parser that takes the file block
by block (`sources/middleware/blocks.py`) holds a few blocks at a time instead: each block's
buffer is handed back (`release`) once it is parsed, and the next block is read into it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa


class LineBlocks:
    """The blocks of *path* (at least *size* bytes each, save the last, and each ending at a
    line end or at the end of the file) as (Arrow buffer, its memory) pairs: the buffer is
    valid until its memory is released."""

    def __init__(self, path: Path, size: int) -> None:
        self.path = path
        self.size = max(size, 1)
        self._free: list[bytearray] = []
        self._lock = threading.Lock()  # blocks are released from worker threads

    def release(self, memory: bytearray) -> None:
        """A block's *memory* is no longer read: it takes a later block."""
        with self._lock:
            self._free.append(memory)

    def _buffer(self, need: int) -> bytearray:
        with self._lock:
            for i, buf in enumerate(self._free):
                if len(buf) >= need:
                    return self._free.pop(i)
        # an eighth more: the next block (its carried line start + a block) fits it again
        return bytearray(need + (need >> 3))

    def __iter__(self) -> Iterator[tuple[pa.Buffer, bytearray]]:
        carry = b""  # the start of a line the previous block ended inside
        size = self.size
        with self.path.open("rb", buffering=0) as f:
            while True:
                buf = self._buffer(len(carry) + size)
                view = memoryview(buf)
                view[: len(carry)] = carry
                filled = len(carry)
                while filled < len(buf):
                    got = f.readinto(view[filled:])
                    if not got:
                        break
                    filled += got
                if filled < len(buf):  # the end of the file
                    if filled:
                        yield pa.py_buffer(buf).slice(0, filled), buf
                    return
                cut = buf.rfind(b"\n", 0, filled) + 1
                if cut == 0:  # one line longer than a block: read on into a bigger one
                    carry, size = bytes(view[:filled]), size * 2
                    del view
                    self.release(buf)
                    continue
                carry = bytes(view[cut:filled])
                del view
                yield pa.py_buffer(buf).slice(0, cut), buf
