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
import math
import os
import sys
from typing import Any

import numpy as np

from numjax._src import config
from numjax._src.core.errors import XlaRuntimeError

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


# ---- buffers of their own --------------------------------------------------------------------
#
# Kernels may return broadcast views (np.broadcast_to: zero strides, every element one memory
# cell), which later steps of a compiled program read as cheaply as the real thing. An Array
# a caller holds must own memory of its size instead, as on a device: `jnp.zeros((10**6,
# 10**6))` is refused at once (as JAX's allocator refuses it) rather than handed out as a 4 TB
# view that a later `.sum()` walks for minutes.


def owned(buf: Any) -> Any:
    """`buf`, or, when it is a broadcast view, a copy in memory of its own."""
    strides = getattr(buf, "strides", ())
    if 0 not in strides or buf.size <= 1:
        return buf
    if not any(s == 0 and n > 1 for s, n in zip(strides, buf.shape, strict=True)):
        return buf
    # What is broadcast: the view with each zero-stride axis cut to one element.
    source = buf[tuple(slice(0, 1) if s == 0 else slice(None) for s in strides)]
    return broadcast(source, buf.shape)


def broadcast(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """`x` (of `shape`'s rank) broadcast to `shape`, in memory of its own."""
    try:
        if x.size == 1 and not x.tobytes().strip(b"\0"):
            # All bits zero (not -0.0): calloc's pages are zero until written.
            return np.zeros(shape, x.dtype)
        nbytes = math.prod(shape) * x.dtype.itemsize
        if nbytes >= _CHECKED_FILL and nbytes > available_memory():
            # Filling it would page in more than the machine has free: refused, rather than
            # left to the kernel's out-of-memory killer.
            raise MemoryError
        out = np.empty(shape, x.dtype)
    except MemoryError:
        raise out_of_memory(math.prod(shape) * x.dtype.itemsize) from None
    np.copyto(out, x)
    return out


_CHECKED_FILL = 1 << 30  # below this, reading /proc/meminfo would cost more than it protects


def available_memory() -> int:
    """Memory the machine can give now without swapping (Linux's MemAvailable), in bytes."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return physical_memory()


def oversized(avals: Any) -> int:
    """The size in bytes of the first of `avals` larger than the machine's memory, else 0: a
    computation with such an output is refused when called, before it runs (as XLA fails
    allocating its output buffers)."""
    limit = physical_memory()
    for aval in avals:
        shape = getattr(aval, "shape", None)
        itemsize = getattr(getattr(aval, "dtype", None), "itemsize", None)
        if shape is None or itemsize is None:  # not an array (a token, a key's extended type)
            continue
        nbytes = int(math.prod(shape)) * int(itemsize)
        if nbytes > limit:
            return nbytes
    return 0


def refusing(nbytes: int) -> Any:
    """A stand-in for a computation whose output cannot be allocated: raises when called."""
    def refuse(*args: Any) -> Any:
        raise out_of_memory(nbytes)
    return refuse


def out_of_memory(nbytes: int) -> XlaRuntimeError:
    """JAX's error (XLA's on CPU) for an allocation that cannot be made."""
    return XlaRuntimeError(f"RESOURCE_EXHAUSTED: Out of memory allocating {nbytes} bytes.")


_physical: int | None = None


def physical_memory() -> int:
    """The machine's RAM in bytes: no buffer larger than it can be written (without swap)."""
    global _physical
    if _physical is None:
        try:
            _physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            _physical = 1 << 62  # unknown: let the allocator decide
    return _physical
