"""Host memory: freed array buffers stay with the process for the next array of their size.

Every NumPy result is a fresh `malloc`. With glibc's defaults, freed memory at the top of the
heap beyond a few MB goes back to the kernel, so the next call's buffers are new pages again: a
page fault per 4 KB (or a 2 MB huge page to clear, where NumPy advises huge pages), about
0.15 ms per MB here, as much as the arithmetic of an elementwise step. A jitted training step
frees and reallocates the same sizes every call; measured on the MLP benchmark
(784-1024-1024-10, batch 256) a hand-written NumPy step took 8,000 page faults and 17-22 ms per
call with glibc's defaults, and no faults and 8 ms with the heap kept.

So, on glibc, numjax keeps up to `numjax_host_heap_retain_bytes` (default 256 MB) of freed
heap (`M_TRIM_THRESHOLD`) and serves buffers up to 32 MB from the heap (`M_MMAP_THRESHOLD`, the
largest threshold glibc itself would adapt to); larger buffers are mapped and unmapped per
allocation as before. glibc's size-binned free lists then act as the caching allocator: a dead
buffer's memory is handed to the next allocation of its size. 0 leaves the allocator alone at
import (and restores glibc's fixed 128 KB thresholds when set later). Elsewhere this is a no-op.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from numjax._src import config

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_GLIBC_DEFAULT = 128 * 1024
HEAP_MAX_BUFFER = 32 << 20


def _mallopt() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 (glibc only: musl's mallopt ignores options)
        return libc.mallopt
    except (OSError, AttributeError):
        return None


def _apply(retain_bytes: int) -> bool:
    """Set the heap thresholds; True if the allocator took them."""
    mallopt = _mallopt()
    if mallopt is None:
        return False
    if retain_bytes > 0:
        trim, mmap = max(retain_bytes, HEAP_MAX_BUFFER), HEAP_MAX_BUFFER
    else:
        trim = mmap = _GLIBC_DEFAULT
    return bool(mallopt(_M_MMAP_THRESHOLD, mmap)) and bool(mallopt(_M_TRIM_THRESHOLD, trim))


def _validate(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("numjax_host_heap_retain_bytes must be a non-negative int (bytes), "
                         f"got {value!r}")
    return value


def _retune(retain_bytes: int) -> None:
    global tuned
    tuned = _apply(retain_bytes) and retain_bytes > 0


heap_retain_bytes = config.State(
    "numjax_host_heap_retain_bytes", 256 << 20,
    "Freed host memory the process keeps for reuse instead of returning it to the OS (glibc "
    "only); 0 leaves the allocator's defaults.",
    parse=int, validator=_validate, env_var="NUMJAX_HOST_HEAP_RETAIN_BYTES",
    on_update=_retune)


# Whether the allocator keeps freed memory now (False off glibc or when switched off).
tuned = heap_retain_bytes.value > 0 and _apply(heap_retain_bytes.value)
