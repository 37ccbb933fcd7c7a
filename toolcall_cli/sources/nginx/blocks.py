"""A big plain access log read block by block, each block one chunk of the event table.

A whole-file parse holds the bytes, the reader's columns, the variables and the event columns
of every line at once (2.2 GB for a million wide lines, and the fresh pages cost system time
by the gigabyte). Instead a plain file larger than two blocks is read BLOCK_BYTES at a time,
cut after its last line end; each block's lines are parsed as the whole file's would be and
handed over as an `EventChunk`, line numbers counted on from the blocks before. Every step
of the combined parser is row-local, so the rows are those of one pass; `attrs` objects are
laid out as the first block laid them out (:class:`MemberOrder`). gzip inputs, small files,
`--nginx-format` and escape=json logs are parsed whole, as before.
"""

from __future__ import annotations

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
    # each block is read into a buffer of its own, cut after its last line end in place (no
    # copy of the block); the rest of its last line starts the next buffer
    with path.open("rb") as f:
        carry = f.read(3)
        if carry == b"\xef\xbb\xbf":
            carry = b""
        while True:
            buf = bytearray(len(carry) + size)
            buf[: len(carry)] = carry
            with memoryview(buf) as view:
                got = f.readinto(view[len(carry) :])
            if not got:
                break
            del buf[len(carry) + got :]
            cut = buf.rfind(b"\n", len(carry)) + 1
            if not cut:  # one line longer than a block: it goes on
                carry = bytes(buf)
                continue
            carry = bytes(buf[cut:])
            del buf[cut:]
            yield cast(bytes, buf)  # (a bytearray: the parsers only read it, as bytes)
        if carry:
            yield carry
