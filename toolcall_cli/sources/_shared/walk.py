"""Walking the inputs named: files, and the files under directories named."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from toolcall_cli.errors import InputError


def walk_tree(
    paths: Iterable[Path], *, follow_symlinks: bool = False
) -> Iterator[tuple[Path, Path | None]]:
    """(file, the directory named that holds it; None for a file named itself).

    Symlinked directories are not descended unless *follow_symlinks*: an incident bundle
    must not pull the reader out of itself (`escapes_tree` checks file symlinks).
    """
    for p in paths:
        if not p.exists():
            problem = "dangling symlink" if p.is_symlink() else "no such file or directory"
            raise InputError(f"{problem}: '{p}'")
        if p.is_dir():
            found: list[Path] = []
            for root, dirs, files in os.walk(p, onerror=None, followlinks=follow_symlinks):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found.extend(Path(root) / f for f in files if not f.startswith("."))
            yield from ((f, p) for f in sorted(found))
        else:
            yield p, None


def escapes_tree(path: Path, top: Path) -> bool:
    """True when *path* (found under directory *top*) is a symlink leading out of *top*."""
    if not path.is_symlink():
        return False
    try:
        path.resolve().relative_to(top.resolve())
    except (ValueError, OSError, RuntimeError):  # outside, or a loop
        return True
    return False
