"""Running a long elementwise NumPy kernel over cache-sized blocks, split across threads.

The threefry hash is ~100 uint32 ufunc passes and float32 `erf_inv` ~30; over whole arrays
each pass streams the operands through memory. Walking the flat range in blocks keeps the
intermediates in cache, and NumPy releases the GIL inside ufunc loops, so the halves of the
range run on two threads (the compiler's fusion pool). Elementwise results do not depend on
the blocking, so the output bits are the same as one whole-array pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numjax._src.compiler import fusion

# Elements per block. Measured on the threefry hash over 5M counters (2 cores, loaded, best of
# 5): 8K 71 ms, 16K 54 ms, 32K 35-45 ms, 64K 29-42 ms, 128K 25-45 ms, 512K 27-51 ms; whole
# arrays 83-128 ms.
BLOCK = 65536
# Below this many elements one whole-array pass is as fast and has no per-block overhead.
MIN_SIZE = 1 << 16


def map_blocks(block_fn: Callable[[int, int], None], n: int) -> None:
    """Call `block_fn(lo, hi)` for cache-sized blocks covering `[0, n)`, over threads when large.

    >>> seen = []
    >>> map_blocks(lambda lo, hi: seen.append((lo, hi)), 10)
    >>> seen
    [(0, 10)]
    """
    if n < MIN_SIZE:
        block_fn(0, n)
        return

    def run_range(lo: int, hi: int) -> None:
        for start in range(lo, hi, BLOCK):
            block_fn(start, min(start + BLOCK, hi))

    fusion.run_blocks(run_range, n, (), BLOCK)


def flat_operand(x: Any, n: int) -> Any:
    """`x` as a flat array of `n` elements, or as a 0-d scalar when it is broadcast from one."""
    if x.size == 1:
        return x.reshape(())
    assert x.size == n, (x.shape, n)
    return x.reshape(-1)


def block_of(x: Any, lo: int, hi: int) -> Any:
    """The `[lo, hi)` block of a flat operand (a scalar operand is its own block)."""
    return x if x.ndim == 0 else x[lo:hi]
