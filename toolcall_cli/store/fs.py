"""Where a store lives: a directory, or an fsspec URL, and the file operations the store does.

`--store` takes a path or a URL. A URL is resolved through fsspec: one of the local file system
(`file://`, `local://`) names the same directory as the plain path and comes back as a `Path`;
any other protocol fsspec has installed (`memory://`, `s3://`, `gs://`, ...) comes back as a
:class:`FsspecPath`, a `PurePosixPath` that does the handful of file operations the store uses
(exists, glob, mkdir, unlink, read and write whole files) through fsspec, and that hands pyarrow
the file system with each path (:func:`read_table`, :func:`parquet_file`, ...). It has no
`__fspath__`, so nothing writes the local disk by mistake under the store's object name.

The store's crash-safety contract (store/write.py) holds where the file system gives what it
needs:

- local disk, NFS, a FUSE mount: an `flock` on `.lock` keeps one writer at a time; data files
  are staged and renamed; the commit is one atomic rename of the manifest.
- an object store (or fsspec's in-memory file system): every file is written in one put
  (:func:`write_whole`), which object stores make visible whole or not at all, so the commit —
  the put of `manifest.json` — is still atomic: a reader sees the old ingest or the new one.
  What is not atomic there is the step after the commit, moving staged files into place
  (`mv` is a copy then a delete); it is idempotent, and the next reader or writer finishes it
  (the manifest lists them as pending). One writer at a time is best effort: the lock is an
  object created only when absent (exclusively where fsspec can, else checked then created),
  removed when the ingest ends; an ingest that crashed leaves it, and the next says so.

A URL comes only from the command line (`--store`), never from an input file: the manifest
names inputs and parts by key, and every store path is built under the store given.
"""

from __future__ import annotations

import os
import posixpath
import re
from contextlib import contextmanager
from functools import cache
from pathlib import Path, PurePosixPath
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar

from toolcall_cli.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pyarrow as pa
    import pyarrow.parquet as pq

#: `scheme://…`: the shape of an fsspec URL (a Windows drive `C:\…` has no `//`).
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


def is_url(value: str) -> bool:
    """Whether *value* names a store by URL rather than by path."""
    return _URL.match(value) is not None


class FsspecPath(PurePosixPath):
    """A path on a non-local fsspec file system (each file system gets its own subclass, which
    carries it: paths derived with `/`, `.parent` or `.with_name` keep it)."""

    fs: ClassVar[Any]
    protocol: ClassVar[str]

    def __str__(self) -> str:
        return f"{self.protocol}://{self.fs_path}"

    def __fspath__(self) -> str:
        raise TypeError(f"{self} is not a local path")  # never read or write the disk by mistake

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return store_location, (str(self),)  # pickled as its URL (tasks of a process pool)

    @property
    def fs_path(self) -> str:
        """The path as the file system names it (no protocol)."""
        return PurePosixPath.__str__(self)

    def exists(self) -> bool:
        return bool(self.fs.exists(self.fs_path))

    def is_dir(self) -> bool:
        return bool(self.fs.isdir(self.fs_path))

    def is_file(self) -> bool:
        return bool(self.fs.isfile(self.fs_path))

    def is_symlink(self) -> bool:
        return False  # object stores have none

    def resolve(self) -> FsspecPath:
        return self

    def stat(self) -> SimpleNamespace:
        return SimpleNamespace(st_size=int(self.fs.size(self.fs_path)))

    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        self.fs.makedirs(self.fs_path, exist_ok=True)  # object stores have no directories

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            self.fs.rm_file(self.fs_path)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def glob(self, pattern: str) -> Iterator[FsspecPath]:
        for found in sorted(self.fs.glob(posixpath.join(self.fs_path, pattern))):
            yield type(self)("/" + found.lstrip("/") if self.is_absolute() else found)

    def read_bytes(self) -> bytes:
        return bytes(self.fs.cat_file(self.fs_path))

    def write_bytes(self, data: bytes) -> int:
        self.fs.pipe_file(self.fs_path, data)
        return len(data)


@cache
def _path_class(fs: Any) -> type[FsspecPath]:
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return type(f"{type(fs).__name__}Path", (FsspecPath,), {"fs": fs, "protocol": protocol})


def store_location(value: str) -> Path:
    """The store that `--store VALUE` names: a path as given, the local directory a local URL
    names, or an :class:`FsspecPath` (typed as a `Path`: it has the part of pathlib the store
    uses). An unknown protocol, or one whose package is not installed, is a usage error."""
    if not is_url(value):
        return Path(value)
    try:
        from fsspec.core import url_to_fs
        from fsspec.implementations.local import LocalFileSystem

        fs, path = url_to_fs(value)
    except ImportError as e:  # the protocol is known, its package is not installed
        raise UsageError(
            f"{value}: {str(e).splitlines()[0][:200]}",
            hint="install the package fsspec names, or give a directory",
        ) from None
    except (ValueError, TypeError, OSError) as e:  # an unknown protocol or a malformed URL
        raise UsageError(
            f"{value}: {str(e).splitlines()[0][:200]}",
            hint="give a directory, or a URL of a protocol fsspec knows (file://, memory://, ...)",
        ) from None
    if isinstance(fs, LocalFileSystem):
        return Path(path)
    return _path_class(fs)(path)  # type: ignore[return-value]


def is_local(store: Path | str) -> bool:
    """Whether *store* is on the local file system (a plain path)."""
    return not isinstance(store, FsspecPath) and not (isinstance(store, str) and is_url(store))


def as_store_path(value: str | Path) -> Path:
    """A path or a store URL (as a task carries it: a string) back as a path to read."""
    if isinstance(value, str) and is_url(value):
        return store_location(value)
    return Path(value) if isinstance(value, str) else value


#: Protocols whose files exist in one process only: workers elsewhere cannot read them.
PROCESS_LOCAL = frozenset({"memory"})


def require_shared(store: Path) -> None:
    """A store other processes (a pool, a cluster) can read; a usage error for `memory://`,
    which lives in this process only."""
    if isinstance(store, FsspecPath) and store.protocol in PROCESS_LOCAL:
        raise UsageError(
            f"{store} lives in this process only, so workers elsewhere cannot read it",
            hint="drop --workers/--engine dask, or put the store where every worker reads it",
        )


def arrow_source(pf: str | Path) -> tuple[Any, Any]:
    """(path, pyarrow file system) for *pf*: the file system is None for a local path."""
    path = as_store_path(pf)
    if not isinstance(path, FsspecPath):
        return path, None
    from pyarrow.fs import FSSpecHandler, PyFileSystem

    return path.fs_path, PyFileSystem(FSSpecHandler(path.fs))


def read_table(pf: str | Path, **kwargs: Any) -> pa.Table:
    """`pq.read_table` of a store file, wherever it lives."""
    import pyarrow.parquet as pq

    src, fs = arrow_source(pf)
    return pq.read_table(src, filesystem=fs, **kwargs)


def parquet_file(pf: str | Path) -> pq.ParquetFile:
    """`pq.ParquetFile` of a store file (a context manager: close it)."""
    import pyarrow.parquet as pq

    src, fs = arrow_source(pf)
    return pq.ParquetFile(src, filesystem=fs)


def read_schema(pf: str | Path) -> pa.Schema:
    """`pq.read_schema` of a store file."""
    import pyarrow.parquet as pq

    src, fs = arrow_source(pf)
    return pq.read_schema(src, filesystem=fs)


def write_whole(target: Path, data: bytes) -> None:
    """Replace *target* with *data*, all or nothing: a rename of a synced temporary file on a
    local disk, one put on an object store (visible whole or not at all)."""
    if isinstance(target, FsspecPath):
        target.write_bytes(data)
        return
    from toolcall_cli.model.atomic import atomic_write

    atomic_write(target, data)


@contextmanager
def object_lock(lock: Path) -> Iterator[None]:
    """Best-effort single writer on an object store: *lock* is created only when absent
    (exclusively where the file system can) and removed when the block ends."""
    from toolcall_cli.errors import InputError

    if not isinstance(lock, FsspecPath):
        raise TypeError(f"{lock} is a local path: lock it with flock")
    busy = InputError(
        f"the store {lock.parent} is being written by another toolcall ingest, or one that "
        f"crashed left its lock {lock.name}",
        hint=f"wait for it to finish; if none runs, delete {lock}",
    )
    try:
        with lock.fs.open(lock.fs_path, "xb") as f:  # fails when the lock exists
            f.write(b"toolcall ingest\n")
    except FileExistsError:
        raise busy from None
    except (ValueError, NotImplementedError):  # no exclusive create here: check, then create
        if lock.exists():
            raise busy from None
        lock.write_bytes(b"toolcall ingest\n")
    except OSError as e:
        raise InputError(f"cannot write the store {lock.parent}: {e}") from None
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)


def replace(src: Path, dst: Path) -> None:
    """Move *src* over *dst*: atomic on a local disk; on an object store a copy then a delete
    (the store only does it after its commit, and redoes it when interrupted)."""
    if isinstance(src, FsspecPath) and isinstance(dst, FsspecPath):
        src.fs.mv(src.fs_path, dst.fs_path)
        return
    os.replace(src, dst)
