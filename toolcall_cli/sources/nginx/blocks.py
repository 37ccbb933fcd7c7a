"""A big plain access log read block by block, each block one chunk of the event table.

A whole-file parse holds the bytes, the reader's columns, the variables and the event columns
of every line at once (gigabytes for a large file of wide lines, and the fresh pages cost
system time). Instead a plain file larger than two blocks is read BLOCK_BYTES at a time,
cut after its last line end; each block's lines are parsed as the whole file's would be and
handed over as an `EventChunk`, line numbers counted on from the blocks before. Every step
of the combined parser is row-local, so the rows are those of one pass; `attrs` objects are
laid out as the first block laid them out (:class:`MemberOrder`). gzip inputs, small files,
`--nginx-format` and escape=json logs are parsed whole.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from pathlib import Path
from typing import cast

from toolcall_cli.sources._shared.files import is_gzip, require_regular

#: Bytes per block: large enough that a block's fixed costs (samples, kernel calls) stay
#: small beside its rows, small enough that its columns stay a fraction of a big file.
BLOCK_BYTES = 32 << 20


def file_blocks(path: Path, size: int | None = None) -> Generator[bytes, None, None] | None:
    """The bytes of *path* in blocks of about *size* (BLOCK_BYTES) bytes, each ending at a line
    end (the last at the end of the file; a BOM dropped), or None when the file is read whole
    (gzip, or not more than two blocks)."""
    size = size or BLOCK_BYTES
    require_regular(path)
    if is_gzip(path) or path.stat().st_size <= 2 * size:
        return None
    return _blocks(path, size)


def _blocks(path: Path, size: int) -> Generator[bytes, None, None]:
    # each block is read into one buffer, cut after its last line end in place (no copy of the
    # block); the rest of its last line starts the next block, read into the same buffer when
    # nothing holds on to it (_reuse)
    with path.open("rb", buffering=0) as f:
        carry = f.read(3)
        if carry == b"\xef\xbb\xbf":
            carry = b""
        buf: bytearray | None = None
        while True:
            buf = _reuse(buf, len(carry) + size, size + (size >> 3))
            buf[: len(carry)] = carry
            filled = len(carry)
            with memoryview(buf) as view:
                while filled < len(buf):  # (a raw read may return less than asked)
                    got = f.readinto(view[filled:])
                    if not got:
                        break
                    filled += got
            if filled == len(carry):
                break
            del buf[filled:]
            cut = buf.rfind(b"\n", len(carry)) + 1
            if not cut:  # one line longer than a block: it goes on
                carry, buf = bytes(buf), None
                continue
            carry = bytes(buf[cut:])
            del buf[cut:]
            yield cast(bytes, buf)  # (a bytearray: the parsers only read it, as bytes)
        if carry:
            yield carry


def _reuse(buf: bytearray | None, need: int, capacity: int) -> bytearray:
    """*buf* again, *need* bytes long, when nothing else can see its memory; else a new buffer.

    A fresh 32 MB buffer per block costs its pages twice (the kernel zeroes each one as it is
    first touched, then takes it back when the block is freed), a large share of a big file's
    parse. The last block's buffer is written over only when no one holds a
    reference to it (refcount) and no view of it is alive (a bytearray with exports refuses to
    resize: numpy and Arrow views of it raise BufferError here), so no array a parser built on
    the last block ever sees its bytes change. Trimming a bytearray by less than half keeps its
    memory (CPython), so a buffer allocated at *capacity* takes every block whose carried line
    fits beside it.
    """
    if buf is not None and need < capacity and sys.getrefcount(buf) <= 3:
        try:
            del buf[len(buf) - 1 :]  # a resize: fails while a view of the buffer is alive
            if len(buf) > need:
                del buf[need:]
            else:
                buf.extend(bytes(need - len(buf)))
            return buf
        except BufferError:
            pass
    fresh = bytearray(capacity)
    del fresh[need:]  # (less than half: its memory stays allocated for the next blocks)
    return fresh
