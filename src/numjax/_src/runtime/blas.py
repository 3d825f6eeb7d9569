"""How many threads the BLAS libraries use on the calling thread.

Local devices run their programs on threads of their own, side by side; each of them calling a
BLAS that starts a thread per core would run devices x cores threads on the machine's cores.
A device's thread therefore asks OpenBLAS for `cores // local devices` threads for its own
calls (`openblas_set_num_threads_local`, OpenBLAS 0.3.26 and later: NumPy 2's and SciPy's
wheels). Small products run on the calling thread alone (`on_one_thread`). Every OpenBLAS
loaded is set: NumPy's, which the NumPy tier's products call, and SciPy's, which native
programs' products call (loaded by the native tier, `include_scipy`). An older OpenBLAS
(NumPy 1.26's wheels) has only a process-wide setting: while several devices run side by side
(`devices_side_by_side`) it is set to `cores // devices` and put back after. Other BLAS
libraries are left alone, and BLAS calls of several devices may oversubscribe the cores there.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import importlib.util
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

from numjax._src.runtime import distributed

_setters: list[Any] | None = None
# (set, get) of each loaded OpenBLAS with a process-wide thread count only.
_global_only: list[tuple[Any, Any]] = []
_seen: set[str] = set()
_find_lock = threading.Lock()

_SYMBOLS = ("openblas_set_num_threads_local", "scipy_openblas_set_num_threads_local",
            "openblas_set_num_threads_local64_")


def _find_setters() -> list[Any]:
    """The per-thread thread-count setter of each OpenBLAS loaded when first asked (NumPy's,
    loaded with NumPy), and of SciPy's once `include_scipy` has loaded it."""
    if _setters is not None:
        return _setters
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        paths = set()
    return _add(paths)


def include_scipy() -> list[Any]:
    """`_find_setters` with SciPy's OpenBLAS among them, loaded if SciPy has not loaded it yet:
    the native tier's products call it (numba's `np.dot`). Only the native tier asks, from its
    compile thread: loading the library cost 7 ms of CPU in a fresh process's first compile of
    a matrix product, and the thread it starts 15-20 ms more during the first call."""
    _find_setters()
    return _add(_scipy_openblas())


def _add(paths: set[str]) -> list[Any]:
    global _setters
    with _find_lock:
        found = list(_setters or ())
        for path in sorted(paths - _seen):
            _seen.add(path)
            _add_library(path, found)
        _setters = found
    return found


def _add_library(path: str, found: list[Any]) -> None:
    try:
        library = ctypes.CDLL(path)
    except OSError:
        return
    for symbol in _SYMBOLS:
        setter = getattr(library, symbol, None)
        if setter is not None:
            setter.argtypes = [ctypes.c_int]
            setter.restype = ctypes.c_int
            found.append(setter)
            return
    for set_name, get_name in _GLOBAL_SYMBOLS:
        set_all, get_all = getattr(library, set_name, None), getattr(library, get_name, None)
        if set_all is not None and get_all is not None:
            set_all.argtypes, set_all.restype = [ctypes.c_int], None
            get_all.argtypes, get_all.restype = [], ctypes.c_int
            _global_only.append((set_all, get_all))
            return


def _scipy_openblas() -> set[str]:
    """The OpenBLAS SciPy's wheels bundle (`scipy.libs/` beside the package), found without
    importing SciPy: importing `scipy.linalg` for it cost 60-160 ms. Loading it by its path
    gives the library SciPy loads later."""
    try:
        spec = importlib.util.find_spec("scipy")
    except (ImportError, ValueError):
        return set()
    if spec is None or not spec.submodule_search_locations:
        return set()
    bundled = os.path.join(os.path.dirname(list(spec.submodule_search_locations)[0]),
                           "scipy.libs")
    return set(glob.glob(os.path.join(bundled, "*openblas*.so*")))


_GLOBAL_SYMBOLS = (("openblas_set_num_threads", "openblas_get_num_threads"),
                   ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
                   ("openblas_set_num_threads64_", "openblas_get_num_threads64_"))
_side_by_side_lock = threading.Lock()
_side_by_side_depth = 0
_saved_counts: list[int] = []


@contextlib.contextmanager
def devices_side_by_side(devices_running: int) -> Iterator[None]:
    """While `devices_running` devices run at once: each OpenBLAS that has only a process-wide
    thread count uses `cores // devices_running` threads (put back when the last such run
    ends), so the devices' BLAS calls do not oversubscribe the cores."""
    global _side_by_side_depth
    _find_setters()
    if not _global_only or devices_running <= 1:
        yield
        return
    with _side_by_side_lock:
        if _side_by_side_depth == 0:
            _saved_counts[:] = [get_all() for _, get_all in _global_only]
            for set_all, _ in _global_only:
                set_all(max(1, _cores() // devices_running))
        _side_by_side_depth += 1
    try:
        yield
    finally:
        with _side_by_side_lock:
            _side_by_side_depth -= 1
            if _side_by_side_depth == 0:
                for (set_all, _), count in zip(_global_only, _saved_counts, strict=True):
                    set_all(count)


def _cores() -> int:
    """The cores this process's BLAS calls may use: those it may run on, shared with the
    job's other processes on this host unless the launcher bound each process to its own."""
    total = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else total
    if usable < total:  # bound by the launcher: these cores are this process's
        return usable
    return max(1, usable // distributed.state.host_processes)


def limit_this_thread(devices_running: int) -> bool:
    """Give the calling thread's BLAS calls `cores // devices_running` threads (at least 1).
    Returns whether a BLAS allowed it."""
    setters = _find_setters()
    cores = _cores()
    for setter in setters:
        setter(max(1, cores // max(1, devices_running)))
    return bool(setters)


# OpenBLAS threads a GEMM from OPENBLAS_THREADS_MACS multiply-adds; up to ONE_THREAD_MACS the
# threads' start and hand-back cost more than the split saves, and on a busy machine its
# spinning workers take the cores from the caller (an Adam step of a 32-128-10 MLP, three
# such products: 21 ms of CPU with threaded BLAS under load, 0.37 ms on one thread). Larger
# products of dot_general and conv_general_dilated are split over the worker threads, one BLAS
# thread each (lax/dot.py `_split_product`); below 8M multiply-adds that costs more than it
# saves (an MLP's 10-wide last layer, 2.6M: 0.14-0.32 ms of CPU on one thread, 0.36-0.61 split).
OPENBLAS_THREADS_MACS = 1 << 18
ONE_THREAD_MACS = 1 << 23


def threads_settable() -> bool:
    """Whether every OpenBLAS loaded takes a thread count per calling thread, so that
    `on_one_thread` keeps a product on its thread (not NumPy 1.26's, nor another BLAS)."""
    return bool(_find_setters()) and not _global_only


def for_product(kernel: Any, macs: int) -> Any:
    """`kernel`, a matrix product of `macs` multiply-adds, with BLAS on the calling thread
    alone when OpenBLAS would thread it at a loss (`on_one_thread`)."""
    if OPENBLAS_THREADS_MACS <= macs <= ONE_THREAD_MACS:
        return on_one_thread(kernel)
    return kernel


def on_one_thread(fn: Callable[..., Any]) -> Callable[..., Any]:
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
