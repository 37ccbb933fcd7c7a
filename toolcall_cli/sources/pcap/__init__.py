"""pcap adapter: HTTP/1.1 exchanges of pcap / pcapng captures (optionally gzip-compressed).

Recognised by magic bytes. tshark (located as pyshark locates it, see :mod:`.tshark`) reads
the capture in one streaming fields pass; :mod:`.http` turns its rows into a message
table (bodies decoded); :mod:`.events` pairs them per TCP stream and builds the events.
A capture whose tail is damaged keeps what tshark could read plus one ``unparsed`` row
saying so; a capture tshark cannot read at all is an InputError. This module only
recognises captures; :mod:`.read` reads them (pandas loads there), and :mod:`.early` may
start tshark on a named capture before that.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

from toolcall_cli.sources._shared.files import GZIP_MAGIC, is_gzip

if TYPE_CHECKING:  # the reading side (pandas, numpy) loads with the first capture read
    import pandas as pd

    from toolcall_cli.sources.base import ParseOptions

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


class PcapAdapter:
    """HTTP request/response events out of packet captures."""

    name = "pcap"
    samples: tuple[str, ...] = (
        "fixtures/pcap/tool_calls.pcap",
        "fixtures/pcap/tool_calls.pcapng",
        "fixtures/pcap/tool_calls.pcap.gz",
        "fixtures/pcap/chunked_gzip.pcap",
        "fixtures/pcap/pipelined.pcap",
        "fixtures/pcap/llm_api.pcap",
        "fixtures/pcap/llm_sse.pcap",
    )

    def sniff(self, head: bytes, path: Path) -> int:
        """100 for pcap/pcapng magic (also inside gzip, even a truncated one), else 0."""
        if is_capture(head):
            return 100
        if (not head or head[:2] == GZIP_MAGIC) and is_gzip(path):
            return 100 if is_capture(_gzip_head(path, 12)) else 0
        return 0

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Run tshark over the capture and build http_request/http_response (and LLM) events."""
        from toolcall_cli.sources.pcap.read import read_capture

        return read_capture(path, opts)


ADAPTER = PcapAdapter()


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


def _gzip_head(path: Path, n: int) -> bytes:
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
