"""Reading inputs: heads for sniffing, transparent gzip with a size cap, line iteration."""

from __future__ import annotations

import gzip
import io
import os
import stat
import zlib
from pathlib import Path

from toolcall_cli.errors import InputError
from toolcall_cli.model.words import plural

GZIP_MAGIC = b"\x1f\x8b"


def regular_file_problem(path: Path) -> str | None:
    """Why *path* cannot be read as an input file (None when it is a regular file).

    FIFOs, sockets and devices would block or never end on `open()`/`read()`, so they are
    refused before anything opens them; a dangling symlink is named as such.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "dangling symlink" if os.path.islink(path) else "no such file"
    except OSError as e:
        return e.strerror or str(e)
    if stat.S_ISDIR(st.st_mode):
        return "is a directory"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file (FIFO, socket or device)"
    return None


def require_regular(path: Path) -> None:
    problem = regular_file_problem(path)
    if problem:
        raise InputError(f"cannot read {path}: {problem}")


def read_head(path: Path, n: int) -> bytes:
    """First *n* bytes of the file, decompressed when it is gzip."""
    require_regular(path)
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
    require_regular(path)
    try:
        if not is_gzip(path):
            return path.read_bytes()
        out = io.BytesIO()
        with gzip.open(path, "rb") as g:
            while True:
                try:
                    chunk = g.read1(1 << 20)  # one raw read: a cut tail loses nothing before it
                except EOFError:  # truncated stream (a log copied mid-rotation): keep what inflated
                    if out.tell():
                        break
                    raise
                if not chunk:
                    break
                out.write(chunk)
                if out.tell() > limit:
                    raise InputError(
                        f"{path}: decompressed size exceeds {plural(limit, 'byte')}; "
                        "refusing (decompression bomb?)",
                        hint="raise [limits] max_decompressed or $TOOLCALL_MAX_DECOMPRESSED",
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
