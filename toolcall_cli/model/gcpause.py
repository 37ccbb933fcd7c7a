"""The cyclic garbage collector paused around work that builds many objects at once.

Each collection rescans every live container object, and a collection runs every few hundred
new ones: building hundreds of thousands of records, rows or views in one go makes that
quadratic. What such work builds holds no reference cycles worth collecting mid-way.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector inside the block (as it was after it)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
