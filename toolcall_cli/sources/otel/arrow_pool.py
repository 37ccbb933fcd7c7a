"""The allocator a large trace file is parsed with: the C library's, not Arrow's mimalloc.

The column-wise path allocates a block's transient columns between the rows it keeps, block
after block; mimalloc keeps the freed segments of those transients mapped, so on a large
file the resident set grows well past what is alive. With the system allocator the large
buffers are mapped and unmapped one by one, and the peak is the table plus the column being
gathered. Scoped to one parse: buffers remember
the pool that made them, so those that outlive it are freed correctly afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa


@contextmanager
def system_pool() -> Iterator[None]:
    """Arrow's default memory pool is the system allocator inside the block."""
    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(before)
        pa.system_memory_pool().release_unused()  # malloc_trim: the freed pages back to the OS
