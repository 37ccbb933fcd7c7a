"""A capture file's bytes: its magic numbers, and its gzip layers inflated within a budget."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Final

#: The source name captures are read under.
SOURCE: Final = "pcap"

#: Magic numbers: classic pcap (µs/ns, both byte orders, Kuznetzov's modified) and pcapng.
MAGICS: Final = (
    b"\xd4\xc3\xb2\xa1",
    b"\xa1\xb2\xc3\xd4",
    b"\x4d\x3c\xb2\xa1",
    b"\xa1\xb2\x3c\x4d",
    b"\x34\xcd\xb2\xa1",
    b"\xa1\xb2\xcd\x34",
)
PCAPNG_MAGIC: Final = b"\x0a\x0d\x0d\x0a"  # section header block type ...
PCAPNG_BOM: Final = (b"\x4d\x3c\x2b\x1a", b"\x1a\x2b\x3c\x4d")  # ... and its byte-order magic


def is_capture(head: bytes) -> bool:
    """True when *head* starts like a classic pcap or a pcapng file."""
    return head[:4] in MAGICS or (head[:4] == PCAPNG_MAGIC and head[8:12] in PCAPNG_BOM)


def gunzip(chunks: Iterator[bytes], limit: int) -> Iterator[bytes]:
    """Inflate gzip members as far as the data goes (a truncated tail simply ends the output)."""
    d = zlib.decompressobj(47)
    total = 0
    for chunk in chunks:
        while chunk:
            try:
                out = d.decompress(chunk, 1 << 20)
            except zlib.error:
                return
            total += len(out)
            if total > limit:
                raise TooBig
            yield out
            chunk = d.unconsumed_tail
            if d.eof and d.unused_data:  # next gzip member
                chunk, d = d.unused_data, zlib.decompressobj(47)


class TooBig(Exception):
    """Inflating went past the cap (max_decompressed)."""


def file_chunks(path: Path, *, stop: int | None = None) -> Iterator[bytes]:
    """*path*'s bytes, 1 MiB at a time (about *stop* bytes at most when given)."""
    with path.open("rb") as f:
        read = 0
        while (chunk := f.read(1 << 20)) and (stop is None or read < stop):
            read += len(chunk)
            yield chunk


def gzip_head(path: Path, n: int) -> bytes:
    """The first *n* inflated bytes of a (possibly truncated) gzip file."""
    out = b""
    try:
        for piece in gunzip(file_chunks(path, stop=n), n + (1 << 20)):
            out += piece
            if len(out) >= n:
                break
    except (TooBig, OSError):
        pass
    return out[:n]
