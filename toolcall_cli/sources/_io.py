"""Reading inputs: heads for sniffing, transparent gzip with a size cap, line iteration."""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

from toolcall_cli.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"


def read_head(path: Path, n: int) -> bytes:
    """First *n* bytes of the file, decompressed when it is gzip."""
    try:
        with path.open("rb") as f:
            raw = f.read(n)
            if raw[:2] != GZIP_MAGIC:
                return raw
        with gzip.open(path, "rb") as g:
            return g.read(n)
    except (OSError, EOFError, zlib.error) as e:
        if isinstance(e, PermissionError | FileNotFoundError | IsADirectoryError):
            raise InputError(f"cannot read {path}: {e.strerror or e}") from None
        # A corrupt gzip stream still has a readable head; give what we have.
        return b""


def is_gzip(path: Path) -> bool:
    """True when the file starts with the gzip magic."""
    try:
        with path.open("rb") as f:
            return f.read(2) == GZIP_MAGIC
    except OSError:
        return False


def read_bytes(path: Path, *, limit: int) -> bytes:
    """The file's bytes, gunzipped when needed; refuses more than *limit* decompressed bytes."""
    try:
        if not is_gzip(path):
            return path.read_bytes()
        out = io.BytesIO()
        with gzip.open(path, "rb") as g:
            while chunk := g.read(1 << 20):
                out.write(chunk)
                if out.tell() > limit:
                    raise InputError(
                        f"{path}: decompressed size exceeds {limit} bytes; refusing (decompression bomb?)"
                    )
        return out.getvalue()
    except (OSError, EOFError, zlib.error) as e:
        if isinstance(e, PermissionError | FileNotFoundError | IsADirectoryError):
            raise InputError(f"cannot read {path}: {e.strerror or e}") from None
        raise InputError(f"{path}: corrupt gzip stream: {e}") from None


def decode_text(data: bytes) -> str:
    """UTF-8 with invalid bytes replaced (logs are not always clean); a BOM is dropped."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="replace")
