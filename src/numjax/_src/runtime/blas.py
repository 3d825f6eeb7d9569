"""How many threads NumPy's BLAS uses on the calling thread.

Local devices run their programs on threads of their own, side by side; each of them calling a
BLAS that starts a thread per core would run devices x cores threads on the machine's cores.
A device's thread therefore asks OpenBLAS for `cores // local devices` threads for its own
calls (`openblas_set_num_threads_local`, OpenBLAS 0.3.26 and later: NumPy 2's wheels). Where
the BLAS offers no per-thread setting (older OpenBLAS, other BLAS libraries) nothing is
changed, and BLAS calls of several devices may oversubscribe the cores.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

_setter: Any = None
_searched = False


def _find_setter() -> Any:
    """The per-thread thread-count setter of the OpenBLAS NumPy loaded, or None."""
    global _setter, _searched
    if _searched:
        return _setter
    _searched = True
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for symbol in ("openblas_set_num_threads_local", "scipy_openblas_set_num_threads_local",
                       "openblas_set_num_threads_local64_"):
            setter = getattr(library, symbol, None)
            if setter is not None:
                setter.argtypes = [ctypes.c_int]
                setter.restype = ctypes.c_int
                _setter = setter
                return setter
    return None


def limit_this_thread(devices_running: int) -> bool:
    """Give the calling thread's BLAS calls `cores // devices_running` threads (at least 1).
    Returns whether the BLAS allowed it."""
    import numpy  # noqa: F401  (its BLAS must be loaded before it can be found)

    setter = _find_setter()
    if setter is None:
        return False
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)
    setter(max(1, cores // max(1, devices_running)))
    return True


def on_one_thread(fn: Any) -> Any:
    """`fn` with its BLAS calls made on the calling thread alone (the thread's setting put
    back after each call); `fn` itself where the BLAS has no per-thread setting."""
    setter = _find_setter()
    if setter is None:
        return fn

    def one_thread(*args: Any) -> Any:
        previous = setter(1)
        try:
            return fn(*args)
        finally:
            setter(previous)

    return one_thread
