"""Eager execution: one primitive on concrete arrays, through a cached per-primitive executable.

The cache key is the primitive, its params and its input avals; a miss builds the executable
through `backend_compile` (so eager compiles are visible to compile hooks), a hit runs the
primitive's NumPy kernel and wraps the result. The hit path is the eager-op overhead budget
(about 1.5 us over the NumPy call): it avoids abstract evaluation by storing the output avals.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import compiler, config, dtypes
from numjax._src.compiler import compile_log
from numjax._src.compiler.buffers import unshare_results
from numjax._src.compiler.codegen import check_invalid, reports_shown, rerun_quietly
from numjax._src.core.avals import get_aval
from numjax._src.core.canonicalize import canonicalize_dtype_handlers
from numjax._src.core.errors import user_source_line
from numjax._src.core.trace import (
    Primitive,
    Tracer,
    escaped_tracer_error,
    running_eagerly,
    set_eager_apply,
)
from numjax._src.runtime import devices, host_memory, placement, stream, transfer_guard
from numjax._src.runtime.array import ArrayImpl, make_array


class EagerModule:
    """The lowered form of one primitive application: what `backend_compile` compiles."""

    __slots__ = ("primitive", "params", "in_avals", "out_avals")

    def __init__(self, primitive: Primitive, params: dict[str, Any], in_avals: list[Any],
                 out_avals: list[Any]) -> None:
        self.primitive = primitive
        self.params = params
        self.in_avals = in_avals
        self.out_avals = out_avals

    def compile(self, options: Any = None) -> EagerExecutable:
        too_big = host_memory.oversized(self.out_avals)
        if too_big:  # refused at each call, before the kernel runs (as XLA's allocation)
            return EagerExecutable(host_memory.refusing(too_big), self.out_avals,
                                   self.primitive.multiple_results)
        if self.primitive.broadcast_result:
            factory = self.primitive.owning_kernel_factory
            if factory is not None:
                kernel = factory(self.in_avals, **self.params)
            else:
                kernel = _owning(self.primitive.kernel_for(self.in_avals, self.params),
                                 self.primitive.multiple_results)
        else:
            kernel = self.primitive.kernel_for(self.in_avals, self.params)
        return EagerExecutable(kernel, self.out_avals, self.primitive.multiple_results,
                               rerun=not self.primitive.host_callback)

    @property
    def host_callbacks(self) -> list[Any]:
        if self.primitive.host_callback:
            return [self.params["callback"]]
        return []

    def as_text(self) -> str:
        args = ", ".join(a.str_short() for a in self.in_avals)
        return f"{self.primitive.name}[{self.params}]({args})"


def _owning(kernel: Callable[..., Any], multiple_results: bool) -> Callable[..., Any]:
    """`kernel` whose broadcast views become buffers of their own: an Array owns its memory."""
    if multiple_results:
        return lambda *bufs: [host_memory.owned(o) for o in kernel(*bufs)]
    return lambda *bufs: host_memory.owned(kernel(*bufs))


class EagerExecutable:
    __slots__ = ("kernel", "out_avals", "multiple_results", "checked", "rerun", "float0")

    def __init__(self, kernel: Callable[..., Any], out_avals: list[Any],
                 multiple_results: bool, rerun: bool = True) -> None:
        self.kernel = kernel
        self.out_avals = out_avals
        self.multiple_results = multiple_results
        # Whether a kernel whose floating-point report escaped as an exception runs again
        # quietly (`codegen.rerun_quietly`); not a host callback, which must not run twice.
        self.rerun = rerun
        # The first outputs are checked against the avals' dtypes (a few NumPy calls widen,
        # e.g. integer sums); a kernel that matched once matches always for the same input
        # dtypes (NumPy's promotion does not depend on values), so later calls skip the check.
        self.checked = False
        # A float0 result (the tangent of an integer value) is handed back as a NumPy array of
        # zeros, as JAX's executables hand it back: no Array holds one. Such an executable is
        # never `checked`, so the hot paths (which make Arrays) leave it to `__call__`.
        self.float0 = any(a.dtype == dtypes.float0 for a in out_avals)

    def __call__(self, bufs: Sequence[Any]) -> Any:
        if self.rerun and reports_shown():
            # A report the user's filters would show or record is never made (XLA makes none).
            with np.errstate(all="ignore"):
                out = self.kernel(*bufs)
        else:
            try:
                out = self.kernel(*bufs)
            except (RuntimeWarning, FloatingPointError) as error:
                if not self.rerun:
                    raise
                out = rerun_quietly(self.kernel, bufs, error)
        if self.float0:
            return self._with_float0(out)
        if self.multiple_results:
            return [make_array(self._check(o, a), a)
                    for o, a in zip(out, self.out_avals, strict=True)]
        aval = self.out_avals[0]
        if self.checked:
            return make_array(out, aval)
        return make_array(self._check(out, aval), aval)

    def _check(self, buf: Any, aval: Any) -> Any:
        if buf.dtype != aval.dtype:
            return buf.astype(aval.dtype)
        if not self.multiple_results and not self.float0:
            self.checked = True
        return buf

    def _with_float0(self, out: Any) -> Any:
        outs = [np.zeros(a.shape, dtypes.float0) if a.dtype == dtypes.float0
                else make_array(self._check(o, a), a)
                for o, a in zip(out if self.multiple_results else [out], self.out_avals,
                                strict=True)]
        return outs if self.multiple_results else outs[0]


_cache: dict[Any, EagerExecutable] = {}
CACHE_LIMIT = 16384


# True once jax_debug_nans or jax_debug_infs has been turned on anywhere; until then the eager
# paths skip the option reads.
_checks_enabled = False


def _note_debug_option(value: Any) -> None:
    global _checks_enabled
    if value:
        _checks_enabled = True


for _state in (config.debug_nans, config.debug_infs):
    _state._on_use = _note_debug_option
    _note_debug_option(_state.value)


def apply_primitive(primitive: Primitive, args: Sequence[Any], params: dict[str, Any],  # noqa: C901
                    check: bool = True) -> Any:
    """Run `primitive` on concrete values: Arrays, NumPy values or Python scalars."""
    if _checks_enabled and check:
        return _checked_apply(primitive, args, params)
    if not params and len(args) <= 2:
        # Hot path: one or two Arrays, no params, an executable already verified.
        if len(args) == 2:
            x, y = args
            if type(x) is ArrayImpl and type(y) is ArrayImpl:
                executable = _cache.get((primitive, None, x._aval, y._aval))
                if executable is not None and executable.checked and not reports_shown():
                    try:
                        return make_array(executable.kernel(x._buf, y._buf),
                                          executable.out_avals[0])
                    except (RuntimeWarning, FloatingPointError):
                        return executable([x._buf, y._buf])  # reruns quietly

        elif len(args) == 1:
            x = args[0]
            if type(x) is ArrayImpl:
                executable = _cache.get((primitive, None, x._aval))
                if executable is not None and executable.checked and not reports_shown():
                    try:
                        return make_array(executable.kernel(x._buf), executable.out_avals[0])
                    except (RuntimeWarning, FloatingPointError):
                        return executable([x._buf])  # reruns quietly

    if primitive.eager_impl is not None:
        for x in args:
            if isinstance(x, Tracer):
                raise escaped_tracer_error(x)
        return primitive.eager_impl(*args, **params)
    bufs = []
    avals = []
    committed = False
    hosts = None
    for x in args:
        if type(x) is ArrayImpl:
            aval = x._aval
            if aval is None:  # committed or pending Arrays keep `_aval` unset (off hot paths)
                if _split_apply is not None and placement.split_across_devices(x):
                    # JAX runs an eager operation as a jitted one: operands split across
                    # devices (of this process or of several, whose whole value no process
                    # holds) give a sharded jit of the primitive, their devices checked and
                    # the split carried to the results.
                    return _split_apply(primitive, args, params)
                aval = x.aval
                committed = committed or x._committed
                bufs.append(stream.resolve(x._buf))
            else:
                bufs.append(x._buf)
            avals.append(aval)
        else:
            if isinstance(x, Tracer):
                raise escaped_tracer_error(x)
            buf, aval = host_value(x)
            bufs.append(buf)
            avals.append(aval)
            if isinstance(x, np.ndarray):
                hosts = [x] if hosts is None else [*hosts, x]
    key: tuple[Any, ...] | None = (primitive, tuple(params.items()) if params else None,
                                   *avals)
    try:
        executable = _cache.get(key)
    except TypeError:
        # A library's primitive bound with unhashable params (a dict, a list): JAX calls such
        # a primitive's impl directly, with no cache; it is compiled for this call alone.
        key, executable = None, None
    if executable is None:
        executable = _compile(primitive, params, avals)
        if key is not None:
            if len(_cache) >= CACHE_LIMIT:
                # Bounded: a program making ever new shapes or callbacks would otherwise keep
                # every executable alive. The older half goes (dicts keep insertion order).
                for old in list(_cache)[:len(_cache) - CACHE_LIMIT // 2]:
                    _cache.pop(old, None)  # another thread may be evicting too
            _cache[key] = executable
    if committed:
        out = _committed_apply(executable, bufs, args, primitive, params)
    else:
        out = executable(bufs)
    if hosts is not None:
        unshare_results(out if primitive.multiple_results else [out], hosts)
    return out


_split_apply: Callable[[Primitive, Sequence[Any], dict[str, Any]], Any] | None = None


def set_split_apply(fn: Callable[[Primitive, Sequence[Any], dict[str, Any]], Any]) -> None:
    """Install how an operation on Arrays split across devices runs (the api layer's sharded
    jit of the primitive)."""
    global _split_apply
    _split_apply = fn


def _committed_apply(executable: EagerExecutable, bufs: list[Any], args: Sequence[Any],
                     primitive: Primitive, params: dict[str, Any]) -> Any:
    """An operation on committed Arrays runs on their device and commits its results there,
    as in JAX: operands committed to different devices are an error, uncommitted ones on
    another device are copied (an implicit device-to-device transfer)."""
    device = placement.computation_device(
        args, lambda: [f"args[{i}]" for i in range(len(args))], primitive.name)
    if device is None:  # only arrays split across pmap's devices, which pin nothing
        return executable(bufs)
    placement.move_arguments(args, device, explicit=False)
    out = executable(bufs)
    placement.place([o for o in (out if primitive.multiple_results else [out])
                     if type(o) is ArrayImpl], device)
    return out


def _checked_apply(primitive: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
    """`apply_primitive` with jax_debug_nans / jax_debug_infs: a floating result holding a NaN
    (Inf) raises FloatingPointError naming the primitive and the user's line."""
    out = apply_primitive(primitive, args, params, check=False)
    nans, infs = bool(config.debug_nans.value), bool(config.debug_infs.value)
    if nans or infs:
        for x in out if primitive.multiple_results else (out,):
            buf = getattr(x, "_buf", None)
            if buf is None or buf.dtype.kind not in "fc":
                continue
            check_invalid(buf, primitive.name, user_source_line, nans, infs)
    return out


def host_value(x: Any, guard: bool = True) -> tuple[Any, Any]:
    """A non-Array operand as a NumPy value of its canonical dtype, with its aval. With
    `guard`, a value the user passed is checked as a host-to-device transfer."""
    aval = get_aval(x)
    if isinstance(x, ArrayImpl):
        return x._buf, aval
    if hasattr(x, "__jax_array__"):
        return host_value(x.__jax_array__(), guard)
    handler = canonicalize_dtype_handlers.get(type(x))
    buf = np.asarray(x) if handler is None else handler(x)
    if guard and transfer_guard._in_use:
        transfer_guard.host_operand(x, aval.dtype)
    if buf.dtype != aval.dtype:
        buf = buf.astype(aval.dtype)
    return buf, aval


def _compile(primitive: Primitive, params: dict[str, Any], avals: list[Any]) -> EagerExecutable:
    rule = primitive.abstract_eval
    if rule is None:
        raise NotImplementedError(f"{primitive.name} has no abstract evaluation rule")
    # An eager operation compiles like a one-equation jit and is logged like one, in the same
    # four steps (JAX runs it as a jitted function named after the operation). A primitive
    # folded while a program is staged (a Python scalar's dtype conversion) is no compile in
    # JAX, so it is not logged.
    log = compile_log.active() and running_eagerly()
    start = time.perf_counter() if log else 0.0
    out_avals, _ = rule(*avals, **params)
    if not primitive.multiple_results:
        out_avals = [out_avals]
    module = EagerModule(primitive, params, avals, list(out_avals))
    if not log:
        return compiler.backend_compile(devices.get_backend(), module, None, module.host_callbacks)  # type: ignore[no-any-return]
    name = primitive.name
    compile_log.log_trace(name, time.perf_counter() - start)
    compile_log.log_compile(name, avals)
    compile_log.log_lowering(name, 0.0)  # the module is the primitive itself: no lowering
    start = time.perf_counter()
    executable = compiler.backend_compile(devices.get_backend(), module, None,
                                          module.host_callbacks)
    compile_log.log_backend_compile(name, time.perf_counter() - start)
    return executable  # type: ignore[no-any-return]


def clear_cache() -> None:
    _cache.clear()


set_eager_apply(apply_primitive)
