"""Streaming a HAR document: `log.entries` one entry at a time, never the whole tree.

A HAR of 100,000 entries is hundreds of MiB; loading it whole (orjson, json) builds every
header and body as Python objects at once. Here the text is decoded chunk by chunk and the
C scanner of the standard library (`JSONDecoder.raw_decode`) reads one value at a time at the
current position: each entry is decoded, handed over and dropped. Only the members of `log`
other than `entries` (version, creator, pages) are kept whole, and they are small.

A value cut by the end of a chunk is retried with more text (the read size doubles, so a
huge entry costs linear time); a value still undecodable at the end of the file is a cut or
broken document: what came before it is kept and :class:`HarCut` says where it stopped.

This is a streaming decoder for files too large to hold as objects, not a second copy of
`model.jsonscan`'s bracket scanner (which reads one text already in memory for what it leaves
open).
"""

from __future__ import annotations

import codecs
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Final

#: Text decoded per read; doubled while one value does not fit.
CHUNK: Final = 8 << 20
_WS: Final = " \t\r\n"
_DECODER: Final = json.JSONDecoder(strict=False)  # raw control characters in strings: tolerated


class HarCut(Exception):
    """The document stops being a HAR here (cut file, broken JSON, not a HAR at all)."""

    def __init__(self, reason: str, entries: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.entries = entries


@dataclass(slots=True)
class _Text:
    """Decoded text with a read position; refilled from the byte stream on demand."""

    raw: IO[bytes]
    limit: int
    buf: str = ""
    pos: int = 0
    eof: bool = False
    read: int = 0
    dec: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
    )

    def more(self, size: int = CHUNK) -> bool:
        """Append about *size* bytes of text; False at the end of the file."""
        if self.eof:
            return False
        try:
            data = self.raw.read(size)
        except (EOFError, OSError, zlib.error) as e:  # a cut or corrupt gzip stream
            raise HarCut(f"compressed stream ends early ({e})", 0) from None
        self.read += len(data)
        if self.read > self.limit:
            raise HarCut(f"more than {self.limit} bytes (decompression bomb?)", 0)
        self.eof = not data
        self.buf = self.buf[self.pos :] + self.dec.decode(data, final=self.eof)
        self.pos = 0
        return bool(data) or bool(self.buf)

    def peek(self) -> str:
        """The next non-blank character ("" at the end), the position left on it."""
        while True:
            buf, n = self.buf, len(self.buf)
            while self.pos < n and buf[self.pos] in _WS:
                self.pos += 1
            if self.pos < n:
                return buf[self.pos]
            if not self.more():
                return ""

    def expect(self, chars: str) -> str:
        """Consume the next non-blank character, which must be one of *chars*."""
        got = self.peek()
        if not got or got not in chars:
            raise ValueError(f"expected {' or '.join(repr(c) for c in chars)}, found {got!r}")
        self.pos += 1
        return got

    def value(self) -> Any:
        """Decode the JSON value at the position (more text is read while it is cut)."""
        self.peek()
        size = CHUNK
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as e:
                if self.more(size):
                    size *= 2
                    continue
                raise ValueError(str(e)) from None
            # a number ending the buffer may go on in the next chunk
            if end == len(self.buf) and not self.eof and isinstance(obj, int | float):
                self.more()
                continue
            self.pos = end
            return obj


def iter_entries(raw: IO[bytes], meta: dict[str, Any], *, limit: int) -> Iterator[Any]:
    """Yield each element of ``log.entries`` in order; the other members of ``log`` go into
    *meta* as they are met. Raises :class:`HarCut` where the document stops being readable."""
    text = _Text(raw, limit)
    count = 0
    try:
        text.expect("{")
        for key in _keys(text):
            if key != "log":
                text.value()  # a member beside `log`: not ours
                continue
            text.expect("{")
            for member in _keys(text):
                if member != "entries":
                    meta[member] = text.value()
                    continue
                meta["entries"] = True
                text.expect("[")
                if text.peek() == "]":
                    text.pos += 1
                    continue
                while True:
                    yield text.value()
                    count += 1
                    if text.expect(",]") == "]":
                        break
    except ValueError as e:
        raise HarCut(str(e), count) from None
    except HarCut as e:
        raise HarCut(e.reason, count) from None


def _keys(text: _Text) -> Iterator[str]:
    """The member names of the object just opened, leaving the position on each value."""
    if text.peek() == "}":
        text.pos += 1
        return
    while True:
        key = text.value()
        if not isinstance(key, str):
            raise ValueError(f"expected a member name, found {key!r}")
        text.expect(":")
        yield key
        if text.expect(",}") == "}":
            return
