"""tshark's version, remembered on disk per binary so each run does not pay for ``tshark -v``.

Asking tshark its version starts the whole dissector registry (a noticeable part of a small
diagnose). The answer only changes when the binary does, so it is kept in the user's cache
directory (``$XDG_CACHE_HOME/toolcall``, else ``~/.cache/toolcall``) under a key made of the
binary's resolved path, device, inode, size and modification time. Any trouble reading or
writing the cache (read-only home, a damaged file) just means asking tshark again.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import orjson

from toolcall_cli.model.atomic import atomic_write

FILE_NAME: Final = "tshark-version.json"
_MAX_ENTRIES: Final = 16  # a few binaries at most (PATH's, TOOLCALL_TSHARK's)


def cache_file() -> Path:
    """Where the cache lives (the XDG base-directory rule)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "toolcall" / FILE_NAME


def key_of(binary: str) -> str | None:
    """The identity of *binary* as it is now, or None when it cannot be stat'ed."""
    try:
        real = os.path.realpath(binary)
        st = os.stat(real)
    except OSError:
        return None
    return f"{real}|{st.st_dev}|{st.st_ino}|{st.st_size}|{st.st_mtime_ns}"


def recall(key: str) -> tuple[int, ...] | None:
    """The version remembered for *key*, if any (and well-formed)."""
    entries = _entries()
    value = entries.get(key)
    if isinstance(value, list) and value and all(isinstance(x, int) for x in value):
        return tuple(value)
    return None


def remember(key: str, version: tuple[int, ...]) -> None:
    """Keep *version* for *key*; best effort (a cache that cannot be written is no cache)."""
    entries = {k: v for k, v in _entries().items() if k != key}
    entries[key] = list(version)
    kept = dict(list(entries.items())[-_MAX_ENTRIES:])
    path = cache_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, orjson.dumps(kept))
    except OSError:
        pass


def _entries() -> dict[str, object]:
    try:
        data = orjson.loads(cache_file().read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}
