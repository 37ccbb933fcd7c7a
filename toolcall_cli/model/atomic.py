"""Writing a file atomically: a temporary file beside it, fsynced, then renamed over it.

A crash or a full disk leaves the previous file (or none), never a truncated one. Used by the
store for its data files and manifest, and by `-o/--output`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(target: Path, data: bytes, *, ordinary_mode: bool = False) -> None:
    """Replace *target* with *data* in one rename. With *ordinary_mode* the file gets the
    permissions `open()` would give it (0666 less the umask), not `mkstemp`'s 0600."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if ordinary_mode:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
