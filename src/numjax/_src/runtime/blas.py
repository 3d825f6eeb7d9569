"""How many threads the BLAS libraries use on the calling thread.

Local devices run their programs on threads of their own, side by side; each of them calling a
BLAS that starts a thread per core would run devices x cores threads on the machine's cores.
A device's thread therefore asks OpenBLAS for `cores // local devices` threads for its own
calls (`openblas_set_num_threads_local`, OpenBLAS 0.3.26 and later: NumPy 2's and SciPy's
wheels). Small products run on the calling thread alone (`on_one_thread`). Every OpenBLAS
loaded is set (NumPy's, which the NumPy tier's products call, and SciPy's, which native
programs' products call). Where a BLAS offers no per-thread setting (older OpenBLAS, other
BLAS libraries) nothing is changed for it, and BLAS calls of several devices may
oversubscribe the cores.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

_setters: list[Any] | None = None

_SYMBOLS = ("openblas_set_num_threads_local", "scipy_openblas_set_num_threads_local",
            "openblas_set_num_threads_local64_")


def _find_setters() -> list[Any]:
    """The per-thread thread-count setter of each OpenBLAS loaded now (found once, after
    NumPy and SciPy's BLAS have been loaded)."""
    global _setters
    if _setters is not None:
        return _setters
    import numpy  # noqa: F401  (its BLAS must be loaded before it can be found)
    import scipy.linalg.cython_blas  # noqa: F401  (the BLAS native programs call)

    found: list[Any] = []
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        paths = set()
    for path in sorted(paths):
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for symbol in _SYMBOLS:
            setter = getattr(library, symbol, None)
            if setter is not None:
                setter.argtypes = [ctypes.c_int]
                setter.restype = ctypes.c_int
                found.append(setter)
                break
    _setters = found
    return found


def limit_this_thread(devices_running: int) -> bool:
    """Give the calling thread's BLAS calls `cores // devices_running` threads (at least 1).
    Returns whether a BLAS allowed it."""
    setters = _find_setters()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)
    for setter in setters:
        setter(max(1, cores // max(1, devices_running)))
    return bool(setters)


# OpenBLAS threads a GEMM from OPENBLAS_THREADS_MACS multiply-adds; up to ONE_THREAD_MACS the
# threads' start and hand-back cost more than the split saves, and on a busy machine its
# spinning workers take the cores from the caller (an Adam step of a 32-128-10 MLP, three
# such products: 21 ms of CPU with threaded BLAS under load, 0.37 ms on one thread).
OPENBLAS_THREADS_MACS = 1 << 18
ONE_THREAD_MACS = 1 << 21


def for_product(kernel: Any, macs: int) -> Any:
    """`kernel`, a matrix product of `macs` multiply-adds, with BLAS on the calling thread
    alone when OpenBLAS would thread it at a loss (`on_one_thread`)."""
    if OPENBLAS_THREADS_MACS <= macs <= ONE_THREAD_MACS:
        return on_one_thread(kernel)
    return kernel


def on_one_thread(fn: Any) -> Any:
    """`fn` with its BLAS calls made on the calling thread alone (the thread's settings put
    back after each call); `fn` itself where no BLAS has a per-thread setting."""
    setters = _find_setters()
    if not setters:
        return fn
    if len(setters) == 1:
        setter = setters[0]

        def one_thread(*args: Any) -> Any:
            previous = setter(1)
            try:
                return fn(*args)
            finally:
                setter(previous)

        return one_thread

    def one_thread_each(*args: Any) -> Any:
        previous = [setter(1) for setter in setters]
        try:
            return fn(*args)
        finally:
            for setter, count in zip(setters, previous, strict=True):
                setter(count)

    return one_thread_each
