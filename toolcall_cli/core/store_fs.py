"""Where a store lives: a directory, or an fsspec URL naming one.

`--store` takes a path or a URL (`file:///srv/incident/.toolcall`, `local://…`). A store is
written under the crash-safety contract of core/store.py: one writer at a time (an `flock` on
`.lock`), data files staged and renamed into place, and the commit a single atomic rename of the
manifest. That needs a file system that can lock and rename atomically, so a URL is resolved
through fsspec to the file system behind it and kept only when that is a local one (fsspec's
`LocalFileSystem`: a local disk, or any mount the cluster shares — NFS, a FUSE-mounted bucket),
where it names the same directory as the plain path and every worker of a Dask cluster that
mounts it reads the same files.

Object stores (`s3://`, `gs://`, `memory://`, …) give neither a lock nor an atomic rename: a
crash half-way through a commit there would leave a torn store that readers take for whole. They
are refused with a usage error (exit 2) that says why, rather than risked.
"""

from __future__ import annotations

import re
from pathlib import Path

from toolcall_cli.errors import UsageError

#: `scheme://…`: the shape of an fsspec URL (a Windows drive `C:\…` has no `//`).
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


def is_url(value: str) -> bool:
    """Whether *value* names a store by URL rather than by path."""
    return _URL.match(value) is not None


def store_location(value: str) -> Path:
    """The store directory that `--store VALUE` names: a path as given, or the local directory
    an fsspec URL resolves to. A URL of a file system that cannot lock and rename atomically is
    a usage error (the store's commit depends on both)."""
    if not is_url(value):
        return Path(value)
    try:
        from fsspec.core import url_to_fs
        from fsspec.implementations.local import LocalFileSystem

        fs, path = url_to_fs(value)
    except (ImportError, ValueError) as e:  # an unknown protocol, or its package is missing
        raise UsageError(
            f"{value}: {str(e).splitlines()[0][:200]}",
            hint="give a directory, or a file:// URL of one",
        ) from None
    if not isinstance(fs, LocalFileSystem):
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        raise UsageError(
            f"{value}: toolcall keeps a store only where it can lock and rename atomically (its "
            f"crash-safe commit needs both), and {protocol}:// gives neither",
            hint="use a directory every worker mounts (local disk, NFS, a FUSE-mounted bucket), "
            "as a path or a file:// URL",
        )
    return Path(path)
