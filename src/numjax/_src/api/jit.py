"""`jit`: trace once per argument signature, lower to generated NumPy code, cache, call.

On the eager path (no transformation active) a call is: flatten the arguments, build the cache
key (static args, input tree, avals, trace context), and run the cached executable on the
arguments' buffers. Under a transformation, `jit` binds the `pjit` primitive with the traced
jaxpr, and that primitive's rules transform the jaxpr (jvp, vmap) or inline it (partial
evaluation for linearize/grad).
"""

from __future__ import annotations

import functools
import gc
import inspect
import logging
import sys
import time
import traceback
import types
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from numjax._src import compiler, config, traceback_util
from numjax._src.api import cache_miss
from numjax._src.api.flatten import debug_info, flatten_fun
from numjax._src.compiler import compile_log, executables, passes
from numjax._src.compiler.codegen import Executable, lower_jaxpr
from numjax._src.compiler.cost import cost_analysis
from numjax._src.compiler.executables import compile_jaxpr, executable_for
from numjax._src.core import trace as trace_mod
from numjax._src.core.avals import ShapedArray, get_aval, shaped_abstractify
from numjax._src.core.errors import XlaRuntimeError
from numjax._src.core.jaxpr import ClosedJaxpr, param_printers
from numjax._src.core.trace import Primitive, Tracer, eval_trace, set_current_trace
from numjax._src.dtypes import canonicalize_dtype
from numjax._src.interpreters import ad, batching, jaxpr_transforms, partial_eval
from numjax._src.interpreters.staging import (
    StagingTrace,
    eval_jaxpr_keeping_sources,
    trace_to_jaxpr,
)
from numjax._src.runtime import devices, placement, stream, transfer_guard
from numjax._src.runtime.array import ArrayImpl, make_array
from numjax._src.runtime.sharding import SingleDeviceSharding
from numjax._src.tree_util import PyTreeDef, tree_flatten, tree_unflatten

logger = logging.getLogger("numjax._src.dispatch")

# ---- the pjit primitive --------------------------------------------------------------------

pjit_p = Primitive("pjit")
pjit_p.multiple_results = True
passes.call_primitives.add(pjit_p)


@pjit_p.def_effectful_abstract_eval
def _pjit_abstract_eval(*avals: Any, jaxpr: ClosedJaxpr, name: str) -> Any:
    return jaxpr.out_avals, jaxpr.effects


def _pjit_impl(*bufs: Any, jaxpr: ClosedJaxpr, name: str) -> list[Any]:
    return executable_for(jaxpr, name)(*bufs)


pjit_p.def_impl(_pjit_impl)


def _pjit_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, jaxpr: ClosedJaxpr,
              name: str) -> tuple[list[Any], list[Any]]:
    has_tangent = [type(t) is not ad.Zero for t in tangents]
    jvp_jaxpr = jaxpr_transforms.jvp_jaxpr(jaxpr, has_tangent)
    nonzero = [t for t in tangents if type(t) is not ad.Zero]
    outs = pjit_p.bind(*primals, *nonzero, jaxpr=jvp_jaxpr, name=name)
    m = len(jaxpr.out_avals)
    return outs[:m], outs[m:]


def _pjit_batch(args: Sequence[Any], dims: Sequence[Any], *, jaxpr: ClosedJaxpr, name: str
                ) -> tuple[list[Any], list[Any]]:
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None)
    args = [batching.bdim_at_front(x, d, size) if d is not None else x
            for x, d in zip(args, dims, strict=True)]
    batched = jaxpr_transforms.batch_jaxpr(jaxpr, size, [d is not None for d in dims])
    outs = pjit_p.bind(*args, jaxpr=batched, name=name)
    return outs, [0] * len(outs)


def _pjit_transpose(cts: Sequence[Any], *args: Any, jaxpr: ClosedJaxpr, name: str
                    ) -> list[Any]:
    linear = [ad.is_undefined_primal(x) for x in args]
    known = [x for x, lin in zip(args, linear, strict=True) if not lin]
    cts = [ad.instantiate_zeros(c) for c in cts]
    transposed = jaxpr_transforms.transpose_jaxpr(jaxpr, linear)
    outs = pjit_p.bind(*known, *cts, jaxpr=transposed, name=name)
    it = iter(outs)
    return [next(it) if lin else None for lin in linear]


def _pjit_partial_eval(trace: Any, args: Sequence[Any], params: dict[str, Any]) -> list[Any]:
    """Under linearize: a known jit computes the primal outputs and the residuals now; an
    unknown jit, staged, computes the tangents from them."""
    closed: ClosedJaxpr = params["jaxpr"]
    name = params["name"]
    unknowns = [partial_eval.is_unknown(trace, x) for x in args]
    split = partial_eval.partial_eval_jaxpr(closed, unknowns)
    known_args = [x for x, u in zip(args, unknowns, strict=True) if not u]
    with set_current_trace(trace.parent):
        known_outs = pjit_p.bind(*known_args, jaxpr=split.known, name=name)
    n_res = len(split.res_avals)
    residuals = known_outs[len(known_outs) - n_res:]
    known_vals = iter(known_outs[:len(known_outs) - n_res])
    unknown_args = [x for x, u in zip(args, unknowns, strict=True) if u]
    unknown_vals = iter(StagingTrace.process_primitive(
        trace, pjit_p, [*residuals, *unknown_args], {"jaxpr": split.unknown, "name": name}))
    return [next(unknown_vals) if u else next(known_vals) for u in split.out_unknowns]


pjit_p.def_jvp(_pjit_jvp)
pjit_p.def_batch(_pjit_batch)
pjit_p.def_transpose(_pjit_transpose)
pjit_p.def_partial_eval(_pjit_partial_eval)


def _pjit_params(params: dict[str, Any]) -> dict[str, Any]:
    return {"name": _Name(params["name"]), "jaxpr": params["jaxpr"]}


def _cycle_collection_paused(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run `fn` (tracing, lowering, compiling) with Python's cycle collector paused. Tracing
    allocates tens of thousands of linked objects that stay alive until it ends, so collections
    that run meanwhile traverse them (and every long-lived object) only to free nothing:
    measured 1.7 ms of a 5.3 ms compile of an MLP's value_and_grad. The collector is switched
    back on afterwards (unless it was already off) and collects as usual."""

    @functools.wraps(fn)
    def paused(*args: Any, **kwargs: Any) -> Any:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return paused


class _Name(str):
    pass


param_printers[pjit_p] = _pjit_params


# ---- the jit API ---------------------------------------------------------------------------


class _CacheEntry:
    __slots__ = ("executable", "out_tree", "out_avals", "closed", "donated", "in_avals",
                 "single", "async_", "aliased")

    def __init__(self, executable: Executable, out_tree: PyTreeDef, out_avals: list[Any],
                 closed: ClosedJaxpr, donated: tuple[bool, ...], in_avals: list[Any]) -> None:
        self.executable = executable
        self.out_tree = out_tree
        self.out_avals = out_avals
        self.closed = closed
        self.donated = donated
        self.in_avals = in_avals
        self.aliased = _aliased_inputs(executable)
        # The aval of the only output when the output tree is a single leaf (hot-path shortcut).
        self.single = out_avals[0] if out_tree.num_leaves == 1 and out_tree.num_nodes == 1 \
            else None
        # Large computations run on the device's stream (see runtime/stream.py); effectful ones
        # stay inline, in program order with the caller, and so do checked ones (debug_nans
        # raises at the call, as in JAX) and any calling back into Python (a pure callback may
        # itself dispatch to the stream it would be running on).
        calls_host = getattr(getattr(executable, "module", None), "host_callbacks", None)
        self.async_ = (not closed.jaxpr.effects and not calls_host
                       and not config.debug_nans.value
                       and not config.debug_infs.value
                       and cost_analysis(closed)["bytes accessed"] >= stream.async_min_bytes.value)


def _normalize_argnums(argnums: int | Sequence[int] | None) -> tuple[int, ...]:
    if argnums is None:
        return ()
    if isinstance(argnums, int):
        return (argnums,)
    return tuple(int(a) for a in argnums)


def _normalize_argnames(argnames: str | Sequence[str] | None) -> tuple[str, ...]:
    if argnames is None:
        return ()
    if isinstance(argnames, str):
        return (argnames,)
    return tuple(argnames)


def _signature(fun: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def _infer_argnums_and_argnames(sig: inspect.Signature | None, argnums: Any, argnames: Any
                                ) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """JAX's rule: given only numbers, the names are those of the positional-or-keyword
    parameters at those positions; given only names, the numbers are theirs; given both (or
    no signature), each is used as given."""
    if argnums is None and argnames is None:
        return (), ()
    if argnums is not None and argnames is not None or sig is None:
        return _normalize_argnums(argnums), _normalize_argnames(argnames)
    params = list(sig.parameters.items())
    if argnums is None:
        names = _normalize_argnames(argnames)
        return tuple(i for i, (k, p) in enumerate(params)
                     if p.kind is p.POSITIONAL_OR_KEYWORD and k in names), names
    nums = _normalize_argnums(argnums)
    return nums, tuple(k for i, (k, p) in enumerate(params)
                       if p.kind is p.POSITIONAL_OR_KEYWORD and i in nums)


def _validate_argnums(sig: inspect.Signature | None, argnums: tuple[int, ...], option: str
                      ) -> None:
    if sig is None or not argnums:
        return
    positional = 0
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positional += 1
        elif p.kind is p.VAR_POSITIONAL:
            return  # any number of positional arguments
    if -min(argnums) > positional or max(argnums) >= positional:
        raise ValueError(f"Jitted function has {option}={argnums}, but only accepts "
                         f"{positional} positional arguments.")


def _validate_argnames(sig: inspect.Signature | None, argnames: tuple[str, ...], option: str
                       ) -> None:
    if sig is None or not argnames:
        return
    valid, positional_only, var_kwargs = set(), set(), False
    for name, p in sig.parameters.items():
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            valid.add(name)
        elif p.kind is p.VAR_KEYWORD:
            var_kwargs = True
        elif p.kind is p.POSITIONAL_ONLY:
            positional_only.add(name)
    invalid = positional_only & set(argnames)
    if invalid:
        raise ValueError(f"Jitted function has invalid argnames {invalid} in {option}. These "
                         "are positional-only")
    invalid = set(argnames) - valid
    if invalid and not var_kwargs:
        raise ValueError(f"Jitted function has invalid argnames {invalid} in {option}. "
                         "Function does not take these args.")


class _SharedState:
    """The caches of a function jitted with given options, shared by every `jit` of it (as in
    JAX, `jax.jit(f)(x)` in a loop traces and compiles once)."""

    __slots__ = ("entries", "traces", "signatures", "placements", "__weakref__")

    def __init__(self) -> None:
        self.entries: dict[Any, _CacheEntry] = {}
        # Traced programs by (argument avals, statics, tree, context): lower, trace,
        # eval_shape, calls under transformations and compiles share one trace.
        self.traces: dict[Any, tuple[ClosedJaxpr, PyTreeDef]] = {}
        self.signatures: list[cache_miss.Signature] = []
        # (cache entry, device, argument devices) of the pinned calls made so far.
        self.placements: set[tuple[Any, ...]] = set()


# Keyed weakly on the function: its caches go when it does.
_shared: weakref.WeakKeyDictionary[Any, dict[Any, _SharedState]] = weakref.WeakKeyDictionary()


def _state_for(fun: Any, options: tuple[Any, ...]) -> _SharedState:
    try:
        by_options = _shared.get(fun)
        if by_options is None:
            by_options = _shared[fun] = {}
        state = by_options.get(options)
        if state is None:
            state = by_options[options] = _SharedState()
        return state
    except TypeError:  # not weakly referenceable, or options not hashable: not shared
        return _SharedState()


# Every live jitted function, for clear_caches (weakly: a jitted closure must not leak).
_wrappers: weakref.WeakSet[JitWrapped] = weakref.WeakSet()


class JitWrapped:
    """A jitted function. Calling it compiles on the first call per signature, then runs the
    cached executable.

    >>> import numjax, numjax.numpy as jnp
    >>> f = numjax.jit(lambda x: jnp.sin(x) * 2.0)
    >>> f(0.0)
    Array(0., dtype=float32, weak_type=True)
    """

    def __init__(self, fun: Callable[..., Any], static_argnums: Any = None,
                 static_argnames: Any = None, donate_argnums: Any = None,
                 donate_argnames: Any = None, device: Any = None, backend: Any = None,
                 inline: bool = False, keep_unused: bool = False,
                 abstracted_axes: Any = None) -> None:
        if isinstance(fun, staticmethod):
            raise TypeError(f"staticmethod arguments are not supported, got {fun}")
        if not callable(fun):
            raise TypeError(f"Expected a callable value, got {fun}")
        functools.update_wrapper(self, fun)  # type: ignore[arg-type]
        self._fun = fun
        sig = _signature(fun)
        self._static_argnums, self._static_argnames = _infer_argnums_and_argnames(
            sig, static_argnums, static_argnames)
        donate_nums, donate_names = _infer_argnums_and_argnames(
            sig, donate_argnums, donate_argnames)
        _validate_argnums(sig, self._static_argnums, "static_argnums")
        _validate_argnames(sig, self._static_argnames, "static_argnames")
        _validate_argnums(sig, donate_nums, "donate_argnums")
        _validate_argnames(sig, donate_names, "donate_argnames")
        both = set(self._static_argnames) & set(donate_names)
        if both:
            raise ValueError("static_argnames and donate_argnames cannot intersect. Argument "
                             f"names {both} appear in both static_argnames and "
                             "donate_argnames")
        both_nums = set(self._static_argnums) & set(donate_nums)
        if both_nums:
            raise ValueError(f"`static_argnums` {sorted(set(self._static_argnums))} and "
                             f"`donate_argnums` {sorted(set(donate_nums))} cannot intersect.")
        if device is not None or backend is not None:
            warnings.warn(
                "backend and device argument on jit is deprecated. You can use "
                '`jax.device_put(..., jax.local_devices("cpu")[0])` on the inputs to the '
                "jitted function to get the same behavior.", DeprecationWarning, stacklevel=3)
        self._donate_argnums = donate_nums
        self._donate_argnames = donate_names
        self._device = device
        self._backend = backend
        self._inline = inline
        self._keep_unused = keep_unused
        self._name = getattr(fun, "__name__", "<unnamed wrapped function>")
        state = _state_for(fun, (self._static_argnums, self._static_argnames, donate_nums,
                                 donate_names, device, backend, inline, keep_unused))
        self._cache = state.entries
        self._traces = state.traces
        self._signatures = state.signatures
        self._placements = state.placements
        _wrappers.add(self)
        self._simple = not (self._static_argnums or self._static_argnames
                            or self._donate_argnums or device is not None)
        if device is not None and backend is not None:
            raise ValueError("can't specify both a device and a backend for jit, got "
                             f"device={device!r} and backend={backend!r}")

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<PjitFunction of {self._fun!r}>"

    # -- calling ---------------------------------------------------------------------------
    @traceback_util.boundary_method
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            if config.disable_jit.value:
                return self._fun(*args, **kwargs)
            if trace_mod._trace_state.trace is not eval_trace:
                return self._call_under_trace(args, kwargs)
            if self._simple and not kwargs:
                # Flat positional Arrays or NumPy arrays: the key is their avals and the trace
                # context, with no pytree flattening.
                key_avals = []
                bufs = []
                for a in args:
                    if type(a) is ArrayImpl:
                        # `_aval` is None for committed arrays: the key then misses, and the
                        # general path below handles their placement.
                        key_avals.append(a._aval)
                        bufs.append(a._buf)
                    elif type(a) is np.ndarray:
                        dtype = canonicalize_dtype(a.dtype)
                        key_avals.append(ShapedArray(a.shape, dtype))
                        bufs.append(a if a.dtype == dtype else a.astype(dtype))
                    else:
                        break
                else:
                    entry = self._cache.get((*key_avals, config.trace_context()))
                    if entry is not None:
                        if transfer_guard._in_use:
                            # Each NumPy argument is placed on the device (a miss guards them
                            # on the general path below, once).
                            for a in args:
                                if type(a) is np.ndarray:
                                    transfer_guard.host_to_device(a, canonicalize_dtype(a.dtype))
                        if entry.aliased:
                            bufs = _private_host_inputs(bufs, args, entry.aliased)
                        if entry.async_:
                            return _dispatch_async(entry, bufs, None)
                        try:
                            outs = entry.executable.run(*bufs)
                        except RuntimeError:
                            _check_not_deleted(args)
                            raise
                        if entry.single is not None:
                            return make_array(outs[0], entry.single)
                        return tree_unflatten(entry.out_tree, _wrap_outputs(outs, entry.out_avals))
            entry, flat_args = self._lookup(args, kwargs)
            _check_not_deleted(flat_args)
            device = self._device
            if device is not None or any(type(x) is ArrayImpl and x._committed for x in flat_args):
                device = self._placement(entry, flat_args, args, kwargs)
            if not entry.donated:
                bufs = [_buffer(x) for x in flat_args]
                if entry.aliased:
                    bufs = _private_host_inputs(bufs, flat_args, entry.aliased)
                if entry.async_:
                    return _dispatch_async(entry, bufs, device)
                outs = entry.executable(*[stream.resolve(b) for b in bufs])
                return _placed_outputs(entry, outs, device)
            bufs = _donated_buffers(flat_args, entry.donated)
            if entry.aliased:
                bufs = _private_host_inputs(bufs, flat_args, entry.aliased)
            if entry.async_:
                _delete_donated(flat_args, entry.donated)
                return _dispatch_async(entry, bufs, device)
            outs = _run_consuming(entry.executable, bufs, flat_args, entry.donated)
            return _placed_outputs(entry, outs, device)
        except Exception as exc:
            traceback_util.simplify(exc, sys._getframe())
            raise

    def _placement(self, entry: Any, flat_args: Sequence[Any], args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> Any:
        """The device the call runs on when it is pinned (by `device=` or by committed
        arguments), after guarding the copies of arguments not there; None otherwise.

        JAX guards those copies (as implicit transfers) only on the first call of each
        signature and placement: later calls take its C++ fast path, which does not check.
        So a jitted function warmed up outside a `transfer_guard("disallow")` keeps working
        inside it, here too."""
        device = self._device
        if device is None:
            def names() -> Sequence[str]:  # for the error message only
                return debug_info("jit", self._fun, args, kwargs,
                                  self._static_argnums).arg_names

            name = getattr(self._fun, "__qualname__", self._name)
            device = placement.computation_device(flat_args, names, name)
            if device is None:
                return None
        seen = (id(entry), device, *[x._device_or_default() if type(x) is ArrayImpl else None
                                     for x in flat_args])
        if seen not in self._placements:
            placement.move_arguments(flat_args, device, explicit=False)
            self._placements.add(seen)
        return device

    def _split(self, args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> tuple[tuple[Any, ...], dict[str, Any], tuple[Any, ...]]:
        nums = self._static_argnums
        names = self._static_argnames
        statics: list[Any] = []
        dyn_args = []
        for i, a in enumerate(args):
            if i in nums or (i - len(args)) in nums:
                statics.append(("pos", i, type(a), _hashable_static(a)))
            else:
                dyn_args.append(a)
        dyn_kwargs = {}
        for k, v in kwargs.items():
            if k in names:
                statics.append(("kw", k, type(v), _hashable_static(v)))
            else:
                dyn_kwargs[k] = v
        return tuple(dyn_args), dyn_kwargs, tuple(statics)

    def _bind_statics(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                      ) -> Callable[..., Any]:
        nums = self._static_argnums
        names = self._static_argnames
        n = len(args)

        def call(*dyn_args: Any, **dyn_kwargs: Any) -> Any:
            it = iter(dyn_args)
            full = [a if (i in nums or (i - n) in nums) else next(it)
                    for i, a in enumerate(args)]
            kw = {k: v for k, v in kwargs.items() if k in names}
            kw.update(dyn_kwargs)
            return self._fun(*full, **kw)

        return call

    def _donation_vector(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                         ) -> tuple[bool, ...]:
        if not (self._donate_argnums or self._donate_argnames):
            return ()
        flags: list[bool] = []
        n = len(args)
        for i, a in enumerate(args):
            if i in self._static_argnums or (i - n) in self._static_argnums:
                continue
            donated = i in self._donate_argnums
            flags.extend([donated] * len(tree_flatten(a)[0]))
        for k, v in kwargs.items():
            if k in self._static_argnames:
                continue
            flags.extend([k in self._donate_argnames] * len(tree_flatten(v)[0]))
        return tuple(flags)

    def _trace(self, args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> tuple[ClosedJaxpr, PyTreeDef, list[Any], PyTreeDef, tuple[Any, ...]]:
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        flat_args, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        in_avals = self._avals(flat_args, args, kwargs)
        key: tuple[Any, ...] | None = (*in_avals, statics, in_tree, config.trace_context())
        try:
            cached = self._traces.get(key)
        except Exception:  # a static argument's __eq__ failed: no shared trace
            key, cached = None, None
        if cached is not None:
            return cached[0], cached[1], flat_args, in_tree, statics
        flat_fun, out = flatten_fun(self._bind_statics(args, kwargs), in_tree)
        info = debug_info("jit", self._fun, args, kwargs, self._static_argnums)
        closed = trace_to_jaxpr(flat_fun, in_avals, info)
        assert out.tree is not None
        if key is not None and not any(isinstance(c, Tracer) for c in closed.consts):
            # A program closing over an outer transformation's tracer is that trace's own.
            self._traces[key] = (closed, out.tree)
        return closed, out.tree, flat_args, in_tree, statics

    def _avals(self, flat_args: Sequence[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> list[Any]:
        """The avals of the flat dynamic arguments; JAX's errors for values that are not
        arrays and for Python ints outside the default integer type."""
        avals = []
        for i, x in enumerate(flat_args):
            if type(x) is int and not _INT_MIN <= x <= _INT_MAX and \
                    (not config.enable_x64.value or not -2**63 <= x < 2**63):
                names = debug_info("jit", self._fun, args, kwargs,
                                   self._static_argnums).arg_names
                path = names[i] if i < len(names) else f"args[{i}]"
                raise OverflowError("An overflow was encountered while parsing an argument to "
                                    f"a jitted computation, whose argument path is {path}.")
            avals.append(_abstractify(x))
        return avals

    def _key(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, list[Any]]:
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        flat_args, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        avals = tuple(self._avals(flat_args, args, kwargs))
        donated = self._donation_vector(args, kwargs)
        key = (*avals, config.trace_context(), statics, in_tree, donated)
        if self._simple and not kwargs and all(type(a) in (ArrayImpl, np.ndarray)
                                                for a in args):
            key = (*avals, config.trace_context())
        return key, flat_args

    def _lookup(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                ) -> tuple[_CacheEntry, list[Any]]:
        key, flat_args = self._key(args, kwargs)
        try:
            entry = self._cache.get(key)
        except Exception as e:  # a static argument's __eq__ failed against a cached one
            statics = self._split(args, kwargs)[2]  # (kind, position, type, value) each
            pair = f"{statics[0][2]} and {statics[0][2]}" if statics else "static arguments"
            raise ValueError(
                "static arguments should be comparable using __eq__.The following error was "
                f"raised when comparing two objects of types {pair}. The error was:\n"
                + "".join(traceback.format_exception(e))) from e
        if entry is None:
            signature = self._signature(args, kwargs)
            if config.explain_cache_misses.value:
                cache_miss.explain(self._fun, signature, self._signatures)
            entry = self._compile(args, kwargs)
            self._cache[key] = entry
            self._signatures.append(signature)
        return entry, flat_args

    def _signature(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                   ) -> cache_miss.Signature:
        dyn_args, dyn_kwargs, statics = self._split(args, kwargs)
        flat_args, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        avals = self._avals(flat_args, args, kwargs)
        names = list(debug_info("jit", self._fun, args, kwargs, self._static_argnums).arg_names)
        names += [f"args[{i}]" for i in range(len(names), len(avals))]
        return cache_miss.Signature(in_tree, avals, names, statics, config.trace_context(),
                                    self._donation_vector(args, kwargs))

    @_cycle_collection_paused
    def _compile(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _CacheEntry:
        start = time.perf_counter()
        closed, out_tree, flat_args, _, _ = self._trace(args, kwargs)
        in_avals = [_dispatch_aval(x) if not isinstance(x, _AbstractArg) else x.aval
                    for x in flat_args]
        log = config.log_compiles.value
        if log:
            compile_log.log_trace(self._name, time.perf_counter() - start)
            compile_log.log_compile(self._name, in_avals)
        donated = self._paired_donations(self._donation_vector(args, kwargs), closed,
                                         in_avals)
        executable = compile_jaxpr(closed, self._name, donated, self._backend)
        return _CacheEntry(executable, out_tree, list(closed.out_avals), closed, donated,
                           in_avals)

    def _paired_donations(self, donated: tuple[bool, ...], closed: ClosedJaxpr,
                          in_avals: Sequence[Any]) -> tuple[bool, ...]:
        """Which donated inputs an output takes over (warning about the rest, as JAX does)."""
        if donated and not self._keep_unused:
            # Arguments the computation never reads are dropped, not "unusable" (as in JAX).
            used = _used_invars(closed)
            donated = tuple(d and u for d, u in zip(donated, used, strict=True))
        donated = _warn_unusable_donations(donated, in_avals, closed.out_avals)
        if config.debug_nans.value or config.debug_infs.value:
            # Donation is off while NaNs are checked, as in JAX: inputs stay readable for the
            # op-by-op re-run that locates the bad value.
            donated = ()
        return donated

    def _call_under_trace(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        closed, out_tree, flat_args, _, _ = self._trace(args, kwargs)
        if self._inline:
            # Its equations join the enclosing computation's, with no pjit of their own.
            outs = eval_jaxpr_keeping_sources(closed.jaxpr, closed.consts, *flat_args)
            return tree_unflatten(out_tree, outs)
        closed, extra_args = partial_eval.hoist_tracer_consts(closed)
        outs = pjit_p.bind(*extra_args, *flat_args, jaxpr=closed, name=self._name)
        return tree_unflatten(out_tree, outs)

    # -- introspection -----------------------------------------------------------------------
    def _cache_size(self) -> int:
        return len(self._cache)

    def clear_cache(self) -> None:
        self._cache.clear()
        self._traces.clear()
        self._signatures.clear()
        self._placements.clear()

    @traceback_util.api_boundary
    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Trace and lower for these arguments (arrays or `ShapeDtypeStruct`s)."""
        return self.trace(*args, **kwargs).lower()

    @traceback_util.api_boundary
    @_cycle_collection_paused
    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        closed, out_tree, flat_args, in_tree, _ = self._trace(args, kwargs)
        donated = self._donation_vector(args, kwargs)
        names = debug_info("jit", self._fun, args, kwargs, self._static_argnums).arg_names
        return Traced(self, closed, in_tree, out_tree, [_aval_of(x) for x in flat_args],
                      donated, names)

    @traceback_util.api_boundary
    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        from numjax._src.api.transformations import ShapeDtypeStruct
        closed, out_tree, _, _, _ = self._trace(args, kwargs)
        # Without weak types, as JAX 0.4.30 describes outputs.
        return tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype)
                                         for a in closed.out_avals])


def _check_not_deleted(args: Sequence[Any]) -> None:
    for x in args:
        if type(x) is ArrayImpl and x.is_deleted():
            if not x._buf.donated:
                raise x._buf._error()
            raise ValueError("INVALID_ARGUMENT: Invalid buffer passed: buffer has been deleted "
                             "or donated.")


def _used_invars(closed: ClosedJaxpr) -> list[bool]:
    from numjax._src.core.jaxpr import Var
    read = {a for e in closed.jaxpr.eqns for a in e.invars if isinstance(a, Var)}
    read.update(a for a in closed.jaxpr.outvars if isinstance(a, Var))
    return [v in read for v in closed.jaxpr.invars]


def _hashable_static(value: Any) -> Any:
    try:
        hash(value)
    except TypeError as e:
        raise ValueError(
            "Non-hashable static arguments are not supported. An error occurred while trying "
            f"to hash an object of type {type(value)}, {value}. The error was:\n"
            f"TypeError: {e}\n") from None
    return value


class _AbstractArg:
    """An argument given as a `ShapeDtypeStruct` (for `lower`/`trace`)."""

    __slots__ = ("aval",)

    def __init__(self, aval: Any) -> None:
        self.aval = aval


_INT_MIN, _INT_MAX = -2**31, 2**31 - 1


def _abstractify(x: Any) -> Any:
    from numjax._src.api.transformations import ShapeDtypeStruct
    if isinstance(x, ShapeDtypeStruct):
        return x.aval
    return shaped_abstractify(x)


def _dispatch_aval(x: Any) -> Any:
    """The aval of an argument the call hands to the executable. One traced as the shape and
    dtype it claims (a NumPy string scalar, an object with a dtype attribute) has none: JAX's
    error when the call is dispatched."""
    try:
        return get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.") from None


def _aval_of(x: Any) -> Any:
    from numjax._src.api.transformations import ShapeDtypeStruct
    return x.aval if isinstance(x, ShapeDtypeStruct) else get_aval(x)


def _buffer(x: Any) -> Any:
    """An argument's buffer; a host value (NumPy array, Python scalar) is placed on the device,
    an implicit host-to-device transfer."""
    if type(x) is ArrayImpl:
        return x._buf
    from numjax._src.compiler.eager import host_value
    buf, aval = host_value(x, guard=False)
    if transfer_guard._in_use:
        transfer_guard.host_to_device(buf, aval.dtype)
    return buf


def _aliased_inputs(executable: Any) -> tuple[int, ...]:
    """Inputs an output of `executable` may share a buffer with (see `LoweredModule`); an
    executable from elsewhere (a compile hook's own) is assumed to alias any of them."""
    module = getattr(executable, "module", None)
    aliased = getattr(module, "aliased_inputs", None)
    if aliased is None:
        return tuple(range(len(getattr(getattr(module, "jaxpr", None), "invars", ()))))
    return aliased  # type: ignore[no-any-return]


def _private_host_inputs(bufs: list[Any], flat_args: Sequence[Any],
                         aliased: Sequence[int]) -> list[Any]:
    """A caller's NumPy array that an output could share memory with is copied first, so that
    writing to the array later cannot change the result (JAX's outputs own their buffers)."""
    bufs = list(bufs)
    for i in aliased:
        x = flat_args[i]
        if isinstance(x, np.ndarray) and np.may_share_memory(bufs[i], x):
            bufs[i] = bufs[i].copy()
    return bufs


def _donated_buffers(flat_args: Sequence[Any], donated: Sequence[bool]) -> list[Any]:
    """The argument buffers of a call with donation. A donated Array's buffer goes to the
    executable to overwrite when nothing else can see it (no view of it, no other Array on
    it); otherwise a private copy does, so that in-place writes stay invisible."""
    _check_donated_uses(flat_args, donated)
    bufs = []
    for x, paired in zip(flat_args, donated, strict=True):
        if not paired:
            bufs.append(_buffer(x))
        elif type(x) is not ArrayImpl:
            # A host value is placed on the device; the executable may overwrite that copy,
            # never the user's array.
            bufs.append(np.array(_buffer(x), copy=True))
        else:
            bufs.append(_exclusive_buffer(x))
    return bufs


def _check_donated_uses(flat_args: Sequence[Any], donated: Sequence[bool]) -> None:
    """JAX's errors for an Array donated in a call that also passes it elsewhere (before the
    call runs, so nothing is deleted)."""
    donated_at: dict[int, int] = {}
    used_at: dict[int, int] = {}
    for i, (x, paired) in enumerate(zip(flat_args, donated, strict=True)):
        if type(x) is not ArrayImpl:
            continue
        key = id(x)
        if paired and key in donated_at:
            problem, example, first = ("donate the same buffer twice in",
                                       "f(donate(a), donate(a))", donated_at[key])
        elif paired and key in used_at:
            problem, example, first = ("donate a buffer which is also used by the same call to",
                                       "f(a, donate(a))", used_at[key])
        elif not paired and key in donated_at:
            problem, example, first = ("use a buffer that was previously donated in the same "
                                       "call to", "f(donate(a), a)", donated_at[key])
        else:
            (donated_at if paired else used_at).setdefault(key, i)
            continue
        raise XlaRuntimeError(
            f"INVALID_ARGUMENT: Attempt to {problem} Execute() (flattened argument {i}, replica "
            f"0, partition 0, first use: {first}). Toy example for this bug: `{example}`.")


def _run_consuming(executable: Any, bufs: Sequence[Any], flat_args: Sequence[Any],
                   donated: Sequence[bool]) -> Any:
    """Run `executable` on `bufs`; the donated inputs paired with an output are consumed by
    the call, as in JAX. When the call fails, JAX deletes them too; numjax keeps those whose
    buffers were not written (a private copy was donated, or the failure came before the
    first result written into it)."""
    try:
        outs = executable(*bufs)
    except BaseException as exc:
        written = _donated_written(exc)
        for i, (x, buf, paired) in enumerate(zip(flat_args, bufs, donated, strict=True)):
            if (paired and type(x) is ArrayImpl and buf is x._buf
                    and (written is None or written >> i & 1)):
                x._consume()
        raise
    _delete_donated(flat_args, donated)
    return outs


def _donated_written(exc: BaseException) -> int | None:
    """The bits of the donated inputs the failed code had written into (None: unknown)."""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        written = getattr(error, "donated_written", None)
        if written is not None:
            return int(written)
        error = error.__cause__ or error.__context__
    return None


def _delete_donated(flat_args: Sequence[Any], donated: Sequence[bool]) -> None:
    for x, paired in zip(flat_args, donated, strict=True):
        if paired and type(x) is ArrayImpl:
            x._consume()


def _dispatch_async(entry: _CacheEntry, bufs: Sequence[Any], device: Any) -> Any:
    """Hand the call to its device's stream; the outputs are pending until it has run."""
    target = device if device is not None else placement.default_device()
    arrays = [make_array(None, aval) for aval in entry.out_avals]
    stream.stream_for(target).submit(entry.executable, bufs, arrays, entry.out_avals)
    if device is not None:
        placement.place(arrays, device)
    return tree_unflatten(entry.out_tree, arrays)


def _exclusive_buffer(x: ArrayImpl) -> Any:
    # A pending buffer is waited for: ownership is decided on the value itself.
    stream.resolve(x._buf)
    buf = x._buf
    # References: the Array's slot, `buf` here and getrefcount's argument. A view of the
    # buffer (a reshape's result, np.asarray(x)) or a second Array on it adds one.
    if (type(buf) is np.ndarray and buf.flags.owndata and buf.flags.writeable
            and sys.getrefcount(buf) <= 3):
        return buf
    return np.array(buf, copy=True)


def _wrap_outputs(outs: Sequence[Any], avals: Sequence[Any]) -> list[ArrayImpl]:
    return [make_array(buf, aval) for buf, aval in zip(outs, avals, strict=True)]


def _placed_outputs(entry: _CacheEntry, outs: Sequence[Any], device: Any) -> Any:
    """The call's output tree; committed to `device` unless it is None."""
    arrays = _wrap_outputs(outs, entry.out_avals)
    if device is not None:
        placement.place(arrays, device)
    return tree_unflatten(entry.out_tree, arrays)


def _warn_unusable_donations(donated: tuple[bool, ...], in_avals: Sequence[Any],
                             out_avals: Sequence[Any]) -> tuple[bool, ...]:
    """Pair each donated input with an unpaired output of the same shape and dtype; warn about
    the donated inputs left over, as JAX does. Returns which inputs were paired (those are
    deleted after each call)."""
    if not any(donated):
        return ()
    paired = []
    available: dict[tuple[Any, Any], int] = {}
    for a in out_avals:
        k = (a.shape, a.dtype)
        available[k] = available.get(k, 0) + 1
    unusable = []
    for flag, a in zip(donated, in_avals, strict=True):
        k = (a.shape, a.dtype)
        if flag and available.get(k, 0):
            available[k] -= 1
            paired.append(True)
            continue
        paired.append(False)
        if flag:
            unusable.append(a.strip_weak_type())
    if unusable:
        warnings.warn(
            f"Some donated buffers were not usable: {', '.join(str(_repr(a)) for a in unusable)}"
            ".\nSee an explanation at https://jax.readthedocs.io/en/latest/faq.html#buffer-"
            "donation.", stacklevel=4)
    return tuple(paired)


def _repr(aval: Any) -> str:
    return f"ShapedArray({aval.str_short()})"


# ---- AOT stages ----------------------------------------------------------------------------


class _Stage:
    """What every AOT stage reports about its trace: argument and output descriptions."""

    _traced: Traced

    @property
    def args_info(self) -> Any:
        return _args_info(self._traced)

    @property
    def out_info(self) -> Any:
        return _out_info(self._traced)


class Traced(_Stage):
    """`jit(f).trace(*args)`: the jaxpr and trees for one argument signature."""

    def __init__(self, wrapped: JitWrapped, closed: ClosedJaxpr, in_tree: PyTreeDef,
                 out_tree: PyTreeDef, in_avals: list[Any], donated: tuple[bool, ...],
                 arg_names: Sequence[str] = ()) -> None:
        self._wrapped = wrapped
        self.jaxpr = closed
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.in_avals = in_avals
        self.donated = donated
        self.arg_names = tuple(arg_names)

    @property
    def _traced(self) -> Traced:  # type: ignore[override]
        return self

    @property
    def fun_name(self) -> str:
        return self._wrapped._name

    @traceback_util.api_boundary
    @_cycle_collection_paused
    def lower(self) -> Lowered:
        backend = devices.get_backend(self._wrapped._backend)
        paired = self._wrapped._paired_donations(self.donated, self.jaxpr, self.in_avals)
        module = lower_jaxpr(passes.run_passes(self.jaxpr), self._wrapped._name,
                             donated=paired)
        return Lowered(self, module, paired, backend)


class Lowered(_Stage):
    """`jit(f).lower(*args)`: the generated source, ready to compile."""

    def __init__(self, traced: Traced, module: Any, paired: tuple[bool, ...],
                 backend: Any) -> None:
        self._traced = traced
        self._module = module
        self._backend = backend  # the Backend it compiles for
        self._paired = paired  # donated inputs an output takes over
        self.in_tree = traced.in_tree
        self.out_tree = traced.out_tree

    def as_text(self, dialect: str | None = None) -> str:
        return self._module.as_text()  # type: ignore[no-any-return]

    def compiler_ir(self, dialect: str | None = None) -> Any:
        """The lowered module (its `as_text()` is the generated source)."""
        return self._module

    @traceback_util.api_boundary
    def compile(self, compiler_options: Any = None) -> Compiled:
        executable = compiler.backend_compile(self._backend, self._module,
                                              compiler_options, self._module.host_callbacks)
        return Compiled(self._traced, executable, self._paired)

    def cost_analysis(self) -> dict[str, float]:
        from numjax._src.compiler.cost import cost_analysis
        return cost_analysis(self._traced.jaxpr)


class ArgInfo:
    """One argument of a lowered computation: its aval and whether it is donated."""

    __slots__ = ("_aval", "donated")

    def __init__(self, aval: Any, donated: bool) -> None:
        self._aval = aval
        self.donated = donated

    @property
    def shape(self) -> tuple[int, ...]:
        return self._aval.shape  # type: ignore[no-any-return]

    @property
    def dtype(self) -> Any:
        return self._aval.dtype

    def __repr__(self) -> str:
        return f"ArgInfo(_aval={self._aval!r}, donated={self.donated})"


def _args_info(traced: Traced) -> Any:
    donated = traced.donated or (False,) * len(traced.in_avals)
    infos = [ArgInfo(a, d) for a, d in zip(traced.in_avals, donated, strict=True)]
    return tree_unflatten(traced.in_tree, infos)


class OutInfo(NamedTuple):
    """One output of a lowered computation: its shape and dtype (no sharding on one device)."""

    shape: tuple[int, ...]
    dtype: np.dtype
    sharding: Any = None


def _out_info(traced: Traced) -> Any:
    return tree_unflatten(traced.out_tree, [OutInfo(a.shape, a.dtype)
                                            for a in traced.jaxpr.out_avals])


class MemoryAnalysis:
    """Sizes in bytes of a compiled computation's arguments, outputs and temporaries."""

    def __init__(self, closed: ClosedJaxpr) -> None:
        def nbytes(aval: Any) -> int:
            return int(np.prod(aval.shape, dtype=np.int64)) * aval.dtype.itemsize

        self.argument_size_in_bytes = sum(nbytes(a) for a in closed.in_avals)
        self.output_size_in_bytes = sum(nbytes(a) for a in closed.out_avals)
        self.alias_size_in_bytes = 0
        self.generated_code_size_in_bytes = 0
        out_vars = set(closed.jaxpr.outvars)
        self.temp_size_in_bytes = sum(nbytes(v.aval) for e in closed.jaxpr.eqns
                                      for v in e.outvars if v not in out_vars)

    def __repr__(self) -> str:
        return (f"MemoryAnalysis(argument_size_in_bytes={self.argument_size_in_bytes}, "
                f"output_size_in_bytes={self.output_size_in_bytes}, "
                f"temp_size_in_bytes={self.temp_size_in_bytes})")


class PytreeLeaf:
    """Stands for each leaf when two argument structures are compared."""

    def __repr__(self) -> str:
        return "pytree leaf"


def _pytree_mismatch(compiled: PyTreeDef, given: PyTreeDef) -> str:
    """JAX's explanation of a call whose arguments are not structured as the compiled ones."""
    from numjax._src.tree_util import equality_errors, keystr
    leaf = PytreeLeaf()
    errors = list(equality_errors(tree_unflatten(given, [leaf] * given.num_leaves),
                                  tree_unflatten(compiled, [leaf] * compiled.num_leaves)))
    lines = ["Function compiled with input pytree does not match the input pytree it was "
             f"called with. There are {len(errors)} mismatches, including:"]
    for path, now, seen, why in errors:
        first, *rest = path
        base = ("args", "kwargs")[first.idx]
        lines.append(f"    * at {base}{keystr(tuple(rest))}, seen {seen} but now given {now}, "
                     f"so {why}")
    return "\n".join(lines)


class Compiled(_Stage):
    """`jit(f).lower(*args).compile()`: callable on arguments of the lowered signature only."""

    def __init__(self, traced: Traced, executable: Executable,
                 paired: tuple[bool, ...] = ()) -> None:
        self._traced = traced
        self._executable = executable
        self._paired = paired if any(paired) else ()
        self._aliased = _aliased_inputs(executable)
        self.in_tree = traced.in_tree
        self.out_tree = traced.out_tree

    def as_text(self) -> str:
        return self._executable.as_text()

    def memory_analysis(self) -> MemoryAnalysis:
        return MemoryAnalysis(self._traced.jaxpr)

    @property
    def input_shardings(self) -> Any:
        """The arguments' shardings (args, kwargs): every one whole on the default device."""
        whole = SingleDeviceSharding(devices.default_device())
        return tree_unflatten(self.in_tree, [whole] * self.in_tree.num_leaves)

    @property
    def output_shardings(self) -> Any:
        whole = SingleDeviceSharding(devices.default_device())
        return tree_unflatten(self.out_tree, [whole] * self.out_tree.num_leaves)

    def cost_analysis(self) -> list[dict[str, float]]:
        """One dict per program, as JAX's compiled executables report it."""
        from numjax._src.compiler.cost import cost_analysis
        return [cost_analysis(self._traced.jaxpr)]

    @traceback_util.api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Only the arguments that were traced are passed: static ones are part of the program.
        wrapped = self._traced._wrapped
        flat_args, in_tree = tree_flatten((args, kwargs))
        if in_tree != self.in_tree:
            raise TypeError(_pytree_mismatch(self.in_tree, in_tree))
        for x in flat_args:
            if isinstance(x, Tracer):
                raise TypeError(
                    "Cannot apply JAX transformations to a function lowered and compiled for a "
                    "particular signature. Detected argument of Tracer type "
                    f"{type(x).__name__}.")
        mismatches = []
        names = self._traced.arg_names
        for i, (x, aval) in enumerate(zip(flat_args, self._traced.in_avals, strict=True)):
            got = get_aval(x)
            if got.shape != aval.shape or got.dtype != aval.dtype:
                name = names[i] if i < len(names) else f"args[{i}]"
                mismatches.append(f"Argument '{name}' compiled with {aval.str_short()} and "
                                  f"called with {got.str_short()}")
        if mismatches:
            raise TypeError("Argument types differ from the types for which this computation "
                            "was compiled. The mismatches are:\n" + "\n".join(mismatches))
        device = wrapped._device
        if device is not None or any(type(x) is ArrayImpl and x._committed for x in flat_args):
            device = wrapped._placement(self, flat_args, args, kwargs)
        if not self._paired:
            bufs = [stream.resolve(_buffer(x)) for x in flat_args]
            if self._aliased:
                bufs = _private_host_inputs(bufs, flat_args, self._aliased)
            outs = self._executable(*bufs)
        else:
            _check_not_deleted(flat_args)
            bufs = [stream.resolve(b) for b in _donated_buffers(flat_args, self._paired)]
            if self._aliased:
                bufs = _private_host_inputs(bufs, flat_args, self._aliased)
            outs = _run_consuming(self._executable, bufs, flat_args, self._paired)
        arrays = _wrap_outputs(outs, self._traced.jaxpr.out_avals)
        if device is not None:
            placement.place(arrays, device)
        return tree_unflatten(self.out_tree, arrays)


# ---- entry points --------------------------------------------------------------------------


def jit(fun: Callable[..., Any] | None = None, in_shardings: Any = None,
        out_shardings: Any = None, static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Sequence[str] | None = None,
        donate_argnums: int | Sequence[int] | None = None,
        donate_argnames: str | Sequence[str] | None = None, keep_unused: bool = False,
        device: Any = None, backend: str | None = None, inline: bool = False,
        abstracted_axes: Any = None) -> Any:
    """Compile `fun` into generated NumPy code, once per argument signature.

    >>> import numjax, numjax.numpy as jnp
    >>> @numjax.jit
    ... def f(x):
    ...     return jnp.tanh(x) + 1.0
    >>> f(jnp.zeros(2))
    Array([1., 1.], dtype=float32)
    """
    if fun is None:
        return functools.partial(
            jit, in_shardings=in_shardings, out_shardings=out_shardings,
            static_argnums=static_argnums, static_argnames=static_argnames,
            donate_argnums=donate_argnums, donate_argnames=donate_argnames,
            keep_unused=keep_unused, device=device, backend=backend, inline=inline,
            abstracted_axes=abstracted_axes)
    return JitWrapped(fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                      device, backend, inline, keep_unused, abstracted_axes)


def clear_caches() -> None:
    """Clear every compile cache: jitted functions' and eager operations'."""
    from numjax._src.compiler import eager
    eager.clear_cache()
    executables.clear_cache()
    for wrapped in list(_wrappers):
        wrapped.clear_cache()
    _shared.clear()
