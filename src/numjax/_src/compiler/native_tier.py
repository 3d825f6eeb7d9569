"""The native tier: hot compiled programs swapped to machine code made by numba.

A jitted program whose every primitive has a native lowering (`compiler/native.py`) is first
run by its NumPy executable. Its second call queues a native compile on one background thread
(calls never wait for it); when the compile succeeds, the executable's `run` becomes the
native function, so the next call (on jit's hot path too) runs it. A program without a
lowering, or one numba refuses, keeps its NumPy executable, logged at debug level.

`numjax_native` chooses: "auto" (the default when numba is installed), "off" (the default
without it), "force" (compile on the program's first compile, synchronously: for tests).
Generated modules are written to a cache directory (`NUMJAX_NATIVE_CACHE_DIR`, default
`~/.cache/numjax/native`) under a hash of their source, so numba's on-disk cache
(`cache=True`) keeps their machine code for the next process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import math
import os
import queue
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import config
from numjax._src.compiler import native, persistent_cache
from numjax._src.compiler.codegen import _host_buffer
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr
from numjax._src.runtime import blas

logger = logging.getLogger(__name__)

available = importlib.util.find_spec("numba") is not None


def _validate(value: Any) -> str:
    if value not in ("auto", "off", "force"):
        raise ValueError(f"numjax_native must be 'auto', 'off' or 'force', got {value!r}")
    return str(value)


native_mode = config.State(
    "numjax_native", "auto" if available else "off",
    "Which programs run as native code compiled by numba (the [native] extra): 'auto' compiles "
    "hot programs (called twice) in a background thread and swaps them in when ready; 'off' "
    "keeps every program on the NumPy tier; 'force' compiles each program synchronously when "
    "it is compiled (for tests).",
    parse=str, validator=_validate, env_var="NUMJAX_NATIVE", traced=True)

# Programs whose largest array has more elements than this stay on the NumPy tier: the native
# tier removes per-operation call overhead, which only dominates for small arrays (large
# elementwise work runs faster in NumPy's vectorized, threaded kernels).
MAX_ELEMENTS = 1 << 16

# The call that makes a program hot in "auto" mode.
HOT_CALLS = 2


def attach(executable: Any) -> None:
    """Give `executable` (a NumPy-tier Executable of a jit-compiled program) its native tier
    as `numjax_native` says. Never raises."""
    mode = native_mode.value
    if mode == "off" or not available:
        return
    module = getattr(executable, "module", None)
    closed = getattr(module, "closed", None)
    optimize = getattr(module, "optimize", None)
    if closed is None and optimize is not None:
        closed = optimize()  # a module read from the persistent cache
        module.closed = closed  # type: ignore[union-attr]
    if closed is None or getattr(executable, "refuses", None) or config.debug_nans.value \
            or config.debug_infs.value or not worth_compiling(closed, mode == "force"):
        return
    if mode == "force":
        fn = _compile(closed)
        if fn is not None:
            _install(executable, fn)
        return
    _HotCounter(executable, closed)


# A program without loops needs at least this many equations to be worth a native compile:
# one NumPy call costs about a microsecond, a native call a few (argument checks, wrapping).
MIN_EQUATIONS = 16


def worth_compiling(closed: ClosedJaxpr, forced: bool = False) -> bool:
    """Whether every primitive has a native rule and (unless `forced`) every array is small
    and the program loops or has `MIN_EQUATIONS` equations."""
    counts = [0, 0, 0]  # equations, loops, elements of the largest array
    if not _walk(closed.jaxpr, counts):
        return False
    return forced or (counts[2] <= MAX_ELEMENTS
                      and (counts[1] > 0 or counts[0] >= MIN_EQUATIONS))


def _walk(jaxpr: Jaxpr, counts: list[int]) -> bool:
    counts[0] += len(jaxpr.eqns)
    for v in [*jaxpr.invars, *jaxpr.constvars]:
        counts[2] = max(counts[2], math.prod(v.aval.shape))
    for eqn in jaxpr.eqns:
        rule = eqn.primitive.native
        if rule is None or eqn.effects:
            logger.debug("no native lowering: %s%s", eqn.primitive.name,
                         " (effects)" if eqn.effects else "")
            return False
        if isinstance(rule, native.ControlRule) and rule.loops:
            counts[1] += 1
        for v in eqn.outvars:
            counts[2] = max(counts[2], math.prod(v.aval.shape))
        for p in eqn.params.values():
            for sub in (p if isinstance(p, tuple | list) else (p,)):
                if isinstance(sub, ClosedJaxpr) and not _walk(sub.jaxpr, counts):
                    return False
                if isinstance(sub, Jaxpr) and not _walk(sub, counts):
                    return False
    return True


class _HotCounter:
    """Counts an executable's calls (wrapping its NumPy function) and queues its native
    compile on the hot call; the wrapper is removed when the compile ends, either way."""

    __slots__ = ("executable", "closed", "fn", "calls", "best")

    def __init__(self, executable: Any, closed: ClosedJaxpr) -> None:
        self.executable = executable
        self.closed = closed
        self.fn = executable.fn
        self.calls = 0
        self.best = math.inf  # the fastest NumPy-tier call seen, in seconds
        # The executable's first call checks output dtypes, then runs `fn` directly: counting
        # wraps `fn`.
        executable.fn = self
        if executable.run is self.fn:
            executable.run = self

    def __call__(self, *bufs: Any) -> Any:
        self.calls += 1
        if self.calls == HOT_CALLS:
            _submit(self._compile)
        start = time.perf_counter()
        out = self.fn(*bufs)
        self.best = min(self.best, time.perf_counter() - start)
        return out

    def _compile(self) -> None:
        fn = _compile(self.closed)
        executable = self.executable
        executable.fn = self.fn
        if fn is None:
            if executable.run is self:
                executable.run = self.fn
            return
        _install(executable, fn, self.best)


# Native calls timed before the tier is kept: the fastest of them must beat the fastest NumPy
# call. Native code is not faster everywhere: its transcendental functions are scalar libm
# calls where NumPy's are vectorized (an Adam step of a 32-128-10 MLP, tanh over 32K
# elements: 0.91 ms of CPU native, 0.38 ms on the NumPy tier).
TRIAL_CALLS = 3


def _install(executable: Any, fn: Callable[..., Any], numpy_best: float = 0.0) -> None:
    """Swap `fn` in as `executable`'s run. With `numpy_best` (the fastest NumPy-tier call,
    seconds), the first TRIAL_CALLS native calls are timed, and the NumPy tier comes back for
    good if none of them beat it."""
    numpy_fn = executable.fn
    trial = [TRIAL_CALLS if numpy_best > 0 else 0, math.inf]  # calls left, fastest

    def run(*bufs: Any) -> Any:
        try:
            if not trial[0]:
                return fn(*bufs)
            start = time.perf_counter()
            out = fn(*bufs)
            trial[1] = min(trial[1], time.perf_counter() - start)
            trial[0] -= 1
            if not trial[0] and trial[1] >= numpy_best:
                logger.debug("native call %.3g s, NumPy tier %.3g s: back to the NumPy tier",
                             trial[1], numpy_best)
                executable.run = numpy_fn
            return out
        except Exception as error:  # a call numba rejects: back to NumPy for good
            logger.debug("native call failed (%s); back to the NumPy tier", error)
            executable.run = numpy_fn
            return numpy_fn(*bufs)

    run.native = True  # type: ignore[attr-defined]
    executable.run = run


def is_native(executable: Any) -> bool:
    """Whether `executable` runs its native code now."""
    return bool(getattr(executable.run, "native", False))


# ---- compiling ----------------------------------------------------------------------------------

_queue: queue.Queue[Callable[[], None]] = queue.Queue()
_worker: threading.Thread | None = None
_lock = threading.Lock()
_pending = 0
_idle = threading.Condition(_lock)


def _submit(job: Callable[[], None]) -> None:
    global _worker, _pending
    with _lock:
        _pending += 1
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="numjax-native-compile", daemon=True)
            _worker.start()
    _queue.put(job)


def _work() -> None:
    global _pending
    while True:
        job = _queue.get()
        try:
            job()
        except Exception as error:  # never let the worker die
            logger.debug("native compile job failed: %s", error)
        finally:
            with _lock:
                _pending -= 1
                _idle.notify_all()


def wait_idle(timeout: float | None = None) -> bool:
    """Wait until every queued native compile has ended; False on timeout (for tests and
    benchmarks: calls themselves never wait)."""
    with _lock:
        return _idle.wait_for(lambda: _pending == 0, timeout)


def cache_dir() -> str:
    """Where generated modules (and numba's cache of their machine code) live:
    `NUMJAX_NATIVE_CACHE_DIR`, else `numjax-native` in the persistent compilation cache's
    directory when it is on, else `~/.cache/numjax/native`."""
    persistent = persistent_cache.directory()
    path = os.environ.get("NUMJAX_NATIVE_CACHE_DIR") or (
        os.path.join(persistent, "numjax-native") if persistent is not None else None
    ) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "numjax", "native")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        path = os.path.join(tempfile.gettempdir(), f"numjax-native-{os.getuid()}")
        os.makedirs(path, exist_ok=True)
    return path


def _compile(closed: ClosedJaxpr) -> Callable[..., Any] | None:
    """The native function of `closed` wrapped to take and return NumPy buffers as the
    NumPy executable does; None (logged) when it cannot be made."""
    try:
        source = native.lower(closed)
        dispatcher = _load(source)
        fn = _wrap(dispatcher, closed)
        if "np.dot(" not in source:
            return fn
        # A native program's arrays are small (MAX_ELEMENTS): its BLAS products (numba's
        # np.dot calls SciPy's OpenBLAS) run on the calling thread alone (see runtime/blas.py's
        # ONE_THREAD_MACS).
        blas.include_scipy()
        return blas.on_one_thread(fn)
    except native.Unsupported as reason:
        logger.debug("no native lowering: %s", reason)
    except Exception as error:  # numba's typing or lowering errors, among others
        logger.debug("native compile failed: %s: %s", type(error).__name__, error)
    return None


def _load(source: str) -> Any:
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    name = f"numjax_native_{digest}"
    path = os.path.join(cache_dir(), f"{name}.py")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(tmp, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return module.native_program


def _numba_type(aval: Any) -> Any:
    from numba import types
    from numba.np.numpy_support import from_dtype
    scalar = from_dtype(np.dtype(aval.dtype))
    return types.Array(scalar, len(aval.shape), "C") if aval.shape else scalar


def _wrap(dispatcher: Any, closed: ClosedJaxpr) -> Callable[..., Any]:
    jaxpr = closed.jaxpr
    consts = []
    for v, c in zip(jaxpr.constvars, closed.consts, strict=True):
        buf = np.array(_host_buffer(c), v.aval.dtype, copy=True, order="C")
        consts.append(buf[()] if not v.aval.shape else buf)
    signature = tuple(_numba_type(v.aval) for v in [*jaxpr.constvars, *jaxpr.invars])
    if signature not in dispatcher.overloads:  # a module loaded before may have it
        with _lock:
            dispatcher.disable_compile(False)
        dispatcher.compile(signature)
    # Calls never compile: a mismatched argument raises (and the caller falls back).
    dispatcher.disable_compile()
    return _caller(dispatcher, consts, [v.aval for v in jaxpr.invars],
                   [a.aval for a in jaxpr.outvars])


def _caller(dispatcher: Any, consts: Sequence[Any], in_avals: Sequence[Any],
            out_avals: Sequence[Any]) -> Callable[..., Any]:
    """A Python function taking the NumPy executable's buffers: scalars are read out of 0-d
    buffers, arrays made C-contiguous and writable; scalar results become 0-d arrays."""
    args = [f"b{i}" for i in range(len(in_avals))]
    conv = []
    for name, aval in zip(args, in_avals, strict=True):
        if not aval.shape:
            conv.append(f"{name}[()]")
        else:
            conv.append(f"{name} if {name}.flags.carray else np.array({name})")
    outs = []
    for i, aval in enumerate(out_avals):
        outs.append(f"asarray(r[{i}], {dtype_global(aval.dtype)})" if not aval.shape
                    else f"r[{i}]")
    source = (f"def run({', '.join(args)}):\n"
              f"    r = fn(*consts, {', '.join(conv)})\n"
              f"    return ({', '.join(outs)}{',' if len(outs) == 1 else ''})\n")
    namespace: dict[str, Any] = {"fn": dispatcher, "consts": tuple(consts), "np": np,
                                 "asarray": np.asarray}
    namespace.update({dtype_global(a.dtype): np.dtype(a.dtype) for a in out_avals})
    exec(compile(source, "<numjax native caller>", "exec"), namespace)
    return namespace["run"]  # type: ignore[no-any-return]


def dtype_global(dtype: Any) -> str:
    return f"dt_{np.dtype(dtype).name}"
