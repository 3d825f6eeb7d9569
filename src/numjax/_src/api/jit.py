"""`jit`: trace once per argument signature, lower to generated NumPy code, cache, call.

A call with no transformation active flattens its arguments once (`_prepare`: the dynamic
leaves, their tree, the static arguments, the avals and the cache key) and runs the cached
`CompiledCall` through `dispatch.execute`; a miss compiles through the AOT stages
(`Traced` -> `Lowered` -> `Compiled`), the same path `jit(f).lower(...).compile()` takes.
Flat positional Array arguments take an inlined hot path before any of that. Under a
transformation, `jit` binds the `pjit` primitive with the traced jaxpr (`api/pjit.py`).
"""

from __future__ import annotations

import functools
import inspect
import sys
import time
import traceback
import types
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from numjax._src import config, traceback_util
from numjax._src.api import cache_miss, dispatch, pmap, sharded_jit
from numjax._src.api.argnums import (
    hashable_static,
    infer_argnums_and_argnames,
    signature_of,
    validate_argnames,
    validate_argnums,
)
from numjax._src.api.dispatch import CompiledCall
from numjax._src.api.flatten import debug_info, flatten_fun
from numjax._src.api.pjit import pjit_p
from numjax._src.api.stages import Traced, log_trace_time
from numjax._src.compiler import eager, executables
from numjax._src.compiler.buffers import private_host_inputs, private_results
from numjax._src.compiler.executables import cycle_collection_paused
from numjax._src.core import caches
from numjax._src.core import trace as trace_mod
from numjax._src.core.avals import ShapedArray, ShapeDtypeStruct, get_aval, shaped_abstractify
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.core.trace import Tracer, eval_trace
from numjax._src.dtypes import canonicalize_dtype
from numjax._src.interpreters import ad, partial_eval
from numjax._src.interpreters.staging import eval_jaxpr_keeping_sources, trace_to_jaxpr
from numjax._src.lax import dynamic_slicing, parallel, structural
from numjax._src.runtime import placement, transfer_guard
from numjax._src.runtime.array import ArrayImpl, make_array
from numjax._src.tree_util import (
    PyTreeDef,
    broadcast_prefix,
    tree_flatten,
    tree_structure,
    tree_unflatten,
)


class _SharedState:
    """The caches of a function jitted with given options, shared by every `jit` of it (as in
    JAX, `jax.jit(f)(x)` in a loop traces and compiles once). All are keyed by the call key
    (`_CallArgs.key`)."""

    __slots__ = ("entries", "traces", "lowerings", "signatures", "placements", "__weakref__")

    def __init__(self) -> None:
        # Compiled programs: what calls run (and `Lowered.compile` returns).
        self.entries: dict[Any, CompiledCall] = {}
        # Traced programs: lower, trace, eval_shape, calls under transformations and compiles
        # share one trace.
        self.traces: dict[Any, tuple[ClosedJaxpr, PyTreeDef]] = {}
        # Lowered modules (module, paired donations, backend), for `Traced.lower`.
        self.lowerings: dict[Any, tuple[Any, tuple[bool, ...], Any, Any]] = {}
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


class _CallArgs(NamedTuple):
    """One call's arguments, flattened once: the dynamic leaves and their tree, the static
    arguments, the leaves' avals, and the cache key. The key is `(*avals, trace context id)` for
    flat positional arguments (what the hot path builds without flattening), and adds the
    statics and the tree otherwise; the donation vector follows from the tree and the options,
    which the caches are per."""

    flat_args: list[Any]
    in_tree: PyTreeDef
    statics: tuple[Any, ...]
    avals: tuple[Any, ...]
    key: Any


_flat_trees: dict[int, PyTreeDef] = {}


def _flat_tree(n: int) -> PyTreeDef:
    """The tree of `n` positional leaves and no keyword arguments."""
    tree = _flat_trees.get(n)
    if tree is None:
        tree = _flat_trees[n] = tree_structure(((0,) * n, {}))
    return tree


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
                 abstracted_axes: Any = None, in_shardings: Any = None,
                 out_shardings: Any = None) -> None:
        if isinstance(fun, staticmethod):
            raise TypeError(f"staticmethod arguments are not supported, got {fun}")
        if not callable(fun):
            raise TypeError(f"Expected a callable value, got {fun}")
        if inspect.isgeneratorfunction(fun):  # its calls return generators, not values
            raise TypeError(f"Expected a function, got a generator function: {fun}")
        functools.update_wrapper(self, fun)  # type: ignore[arg-type]
        self._fun = fun
        sig = signature_of(fun)
        if sig is None and donate_argnames is not None:
            # Names need the signature (a NumPy ufunc or builtin has none), as in JAX.
            raise ValueError(f"Getting the signature of function {fun} failed. Pass "
                             "donate_argnums instead of donate_argnames.")
        self._signature = sig
        self._static_argnums, self._static_argnames = infer_argnums_and_argnames(
            sig, static_argnums, static_argnames)
        donate_nums, donate_names = infer_argnums_and_argnames(
            sig, donate_argnums, donate_argnames)
        validate_argnums(sig, self._static_argnums, "static_argnums")
        validate_argnames(sig, self._static_argnames, "static_argnames")
        validate_argnums(sig, donate_nums, "donate_argnums")
        validate_argnames(sig, donate_names, "donate_argnames")
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
        sharded_jit.check_sharding_options(in_shardings, out_shardings)
        self._in_shardings = in_shardings
        self._out_shardings = out_shardings
        # Shardings asked for: every call takes the sharded path (`sharded_jit`).
        self._sharded = in_shardings is not None or out_shardings is not None
        state = _state_for(fun, (self._static_argnums, self._static_argnames, donate_nums,
                                 donate_names, device, backend, inline, keep_unused,
                                 in_shardings, out_shardings))
        self._cache = state.entries
        self._traces = state.traces
        self._lowerings = state.lowerings
        self._signatures = state.signatures
        self._placements = state.placements
        _wrappers.add(self)
        self._last_tree: PyTreeDef | None = None
        self._simple = not (self._static_argnums or self._static_argnames
                            or self._donate_argnums or self._donate_argnames
                            or device is not None or self._sharded)
        if device is not None and backend is not None:
            raise ValueError("can't specify both a device and a backend for jit, got "
                             f"device={device!r} and backend={backend!r}")

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return types.MethodType(self, obj)

    @property
    def __signature__(self) -> Any:
        # The wrapped function's, as JAX's jitted functions report it: with `__get__` defined,
        # `inspect` would otherwise read this object as a builtin method with no signature.
        if self._signature is None:
            raise AttributeError("__signature__")
        return self._signature

    def __repr__(self) -> str:
        # As JAX's: the bare name when the function's repr fails or `__wrapped__` was deleted.
        try:
            return f"<PjitFunction of {self.__dict__['__wrapped__']!r}>"
        except Exception:
            return "<PjitFunction>"

    # -- calling ---------------------------------------------------------------------------
    @traceback_util.boundary_method
    def __call__(self, *args: Any, **kwargs: Any) -> Any:  # noqa: C901
        try:
            if config.disable_jit.value:
                return self._fun(*args, **kwargs)
            if trace_mod._trace_state.trace is not eval_trace:
                return self._call_under_trace(args, kwargs)
            if self._simple and not kwargs:
                # The hot path, `dispatch.execute` inlined for Arrays or NumPy arrays passed
                # flat or in tuples, lists and dicts (an optimizer's state): the key is their
                # avals, the trace context and a tree's structure, with no other checks
                # (`_prepare` cost 18 us of an Adam step's 14 leaves).
                leaves: Sequence[Any] = args
                tree_key: tuple[Any, ...] = ()
                entry = None
                while True:
                    key_avals = []
                    bufs = []
                    for a in leaves:
                        if type(a) is ArrayImpl:
                            # `_aval` is None for committed arrays: the key then misses, and
                            # the general path below handles their placement.
                            key_avals.append(a._aval)
                            bufs.append(a._buf)
                        elif type(a) is np.ndarray:
                            dtype = canonicalize_dtype(a.dtype)
                            key_avals.append(ShapedArray(a.shape, dtype))
                            bufs.append(a if a.dtype == dtype else a.astype(dtype))
                        else:
                            break
                    else:
                        entry = self._cache.get((*key_avals, config.trace_context_id(),
                                                 *tree_key))
                        break
                    if tree_key or not isinstance(a, tuple | list | dict):
                        break
                    leaves, tree = tree_flatten((args, {}))
                    if tree != self._last_tree:
                        self._last_tree = tree
                    # The general path's key of a tree (no statics); the last tree seen keeps
                    # its hash, which a new one computes node by node.
                    tree_key = ((), self._last_tree)
                if entry is not None:
                    if transfer_guard._in_use:
                        # Each NumPy argument is placed on the device (a miss guards them on
                        # the general path below, once).
                        for a in leaves:
                            if type(a) is np.ndarray:
                                transfer_guard.host_to_device(a, canonicalize_dtype(a.dtype))
                    if entry.async_:
                        # The program runs after this call returns: it reads copies of the
                        # caller's NumPy arrays, which the caller may then change.
                        return dispatch.dispatch_async(
                            entry, private_host_inputs(bufs, leaves), None)
                    try:
                        outs = entry.executable.run(*bufs)
                    except RuntimeError:
                        dispatch.check_not_deleted(leaves)
                        raise
                    if entry.aliased:  # an output that is a view of a NumPy argument
                        outs = private_results(outs, leaves, entry.aliased)
                    if entry.single is not None:
                        return make_array(outs[0], entry.single)
                    if entry.plan is not None:  # outputs with layouts
                        return dispatch.placed_outputs(entry, outs, None)
                    return tree_unflatten(entry.out_tree,
                                          dispatch.wrap_outputs(outs, entry.out_avals,
                                                                entry.float0))
            call = self._prepare(args, kwargs)
            entry = self._lookup(call, args, kwargs)
            flat_args = call.flat_args
            dispatch.check_not_deleted(flat_args)
            device = self._device
            if entry.out_shardings is not None:
                device = None  # outputs laid out by their shardings
            elif device is not None or any(type(x) is ArrayImpl and x._committed
                                           for x in flat_args):
                device = self._placement(entry, flat_args, args, kwargs)
            return dispatch.execute(entry, flat_args, device)
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
                return self._arg_names(args, kwargs)

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

    def _arg_names(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Sequence[str]:
        return debug_info("jit", self._fun, args, kwargs, self._static_argnums).arg_names

    # -- one call's arguments --------------------------------------------------------------
    def _prepare(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _CallArgs:
        nums = self._static_argnums
        names = self._static_argnames
        statics: list[Any] = []
        dyn_args: list[Any] = []
        if nums:
            n = len(args)
            for i, a in enumerate(args):
                if i in nums or (i - n) in nums:
                    statics.append(("pos", i, type(a), hashable_static(a)))
                else:
                    dyn_args.append(a)
        else:
            dyn_args = list(args)
        dyn_kwargs = {}
        for k, v in kwargs.items():
            if k in names:
                statics.append(("kw", k, type(v), hashable_static(v)))
            else:
                dyn_kwargs[k] = v
        flat_args, in_tree = tree_flatten((tuple(dyn_args), dyn_kwargs))
        eager = trace_mod._trace_state.trace is eval_trace
        for i, x in enumerate(flat_args):
            if type(x) is ArrayImpl:
                continue
            if eager and isinstance(x, Tracer):
                raise trace_mod.escaped_tracer_error(x)  # no transformation is running
            if hasattr(type(x), "__jax_array__"):
                flat_args[i] = x.__jax_array__()  # an array-like object is its array, as in JAX
        avals = tuple(self._avals(flat_args, args, kwargs))
        context: Any = config.trace_context_id()
        bound = parallel.bound_axes()
        if bound:  # a traced program depends on the axes bound around it (their sizes)
            context = (context, bound)
        if not statics and in_tree == _flat_tree(len(flat_args)):
            key: Any = (*avals, context)
        else:
            key = (*avals, context, tuple(statics), in_tree)
        placed = sharded_jit.argument_placements(flat_args)
        if placed is not None or self._sharded:
            if self._in_shardings is not None and dyn_kwargs:
                raise ValueError("pjit does not support kwargs when in_shardings is specified.")
            # Where sharded arguments are is part of the program (its partitioning).
            key = (*key, placed)
        return _CallArgs(flat_args, in_tree, tuple(statics), avals, key)

    def _avals(self, flat_args: Sequence[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> list[Any]:
        """The avals of the flat dynamic arguments; JAX's errors for values that are not
        arrays and for Python ints outside the default integer type."""
        avals = []
        for i, x in enumerate(flat_args):
            if type(x) is int and not _INT_MIN <= x <= _INT_MAX and \
                    (not config.enable_x64.value or not -2**63 <= x < 2**63):
                names = self._arg_names(args, kwargs)
                path = names[i] if i < len(names) else f"args[{i}]"
                raise OverflowError("An overflow was encountered while parsing an argument to "
                                    f"a jitted computation, whose argument path is {path}.")
            avals.append(x.aval if isinstance(x, ShapeDtypeStruct) else shaped_abstractify(x))
        return avals

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
        for k in sorted(kwargs):  # the order a dict's leaves flatten in
            if k in self._static_argnames:
                continue
            flags.extend([k in self._donate_argnames] * len(tree_flatten(kwargs[k])[0]))
        return tuple(flags)

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

    # -- the stages ------------------------------------------------------------------------
    def _trace(self, call: _CallArgs, args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> tuple[ClosedJaxpr, PyTreeDef, Any]:
        """The traced program for `call` and its output tree, from the cache when it was
        traced before; the cache key it is held under (None when it is not cached)."""
        key = call.key
        try:
            cached = self._traces.get(key)
        except Exception:  # a static argument's __eq__ failed: no shared trace
            key, cached = None, None
        if cached is not None:
            return cached[0], cached[1], key
        # JAX keys its traces on a weak reference to the function: a callable that cannot be
        # weakly referenced (a class with empty __slots__) builds a jit but cannot be traced.
        weakref.ref(self._fun)
        start = time.perf_counter()
        flat_fun, out = flatten_fun(self._bind_statics(args, kwargs), call.in_tree)
        info = debug_info("jit", self._fun, args, kwargs, self._static_argnums)
        closed = trace_to_jaxpr(flat_fun, list(call.avals), info)
        assert out.tree is not None
        if trace_mod._trace_state.trace is eval_trace:
            log_trace_time(self._name, start)
        if key is not None and any(isinstance(c, Tracer) for c in closed.consts):
            # A program closing over an outer transformation's tracer is that trace's own.
            key = None
        if key is not None:
            self._traces[key] = (closed, out.tree)
        return closed, out.tree, key

    def _stage(self, call: _CallArgs, args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> Traced:
        closed, out_tree, key = self._trace(call, args, kwargs)
        names = self._arg_names(args, kwargs)
        shardings = None
        if (self._sharded or sharded_jit.argument_placements(call.flat_args) is not None
                or sharded_jit.has_layout_hints(closed)):
            shardings = sharded_jit.resolve_shardings(
                self._in_shardings, self._out_shardings, call, closed, out_tree, names,
                getattr(self._fun, "__qualname__", self._name), len(args))
        return Traced(self, key, closed, call.in_tree, out_tree, list(call.avals),
                      self._donation_vector(args, kwargs), names, shardings)

    def _lookup(self, call: _CallArgs, args: tuple[Any, ...], kwargs: dict[str, Any]
                ) -> CompiledCall:
        try:
            entry = self._cache.get(call.key)
        except Exception as e:  # a static argument's __eq__ failed against a cached one
            statics = call.statics  # (kind, position, type, value) each
            pair = f"{statics[0][2]} and {statics[0][2]}" if statics else "static arguments"
            raise ValueError(
                "static arguments should be comparable using __eq__.The following error was "
                f"raised when comparing two objects of types {pair}. The error was:\n"
                + "".join(traceback.format_exception(e))) from e
        if entry is None:
            entry = self._compile(call, args, kwargs)
        return entry

    @cycle_collection_paused
    def _compile(self, call: _CallArgs, args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> CompiledCall:
        names = list(self._arg_names(args, kwargs))
        names += [f"args[{i}]" for i in range(len(names), len(call.avals))]
        signature = cache_miss.Signature(call.in_tree, call.avals, names, call.statics,
                                         config.trace_context(),
                                         self._donation_vector(args, kwargs))
        if config.explain_cache_misses.value:
            cache_miss.explain(self._fun, signature, self._signatures)
        for x in call.flat_args:
            dispatch.dispatch_aval(x)  # JAX's error for an argument no executable can take
        compiled = self._stage(call, args, kwargs).lower().compile()
        self._signatures.append(signature)
        entry = compiled._call
        if self._cache.get(call.key) is not entry:
            self._cache[call.key] = entry  # an uncacheable trace still runs this once
        return entry

    def _call_under_trace(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        call = self._prepare(args, kwargs)
        closed, out_tree, _ = self._trace(call, args, kwargs)
        if self._inline:
            # Its equations join the enclosing computation's, with no pjit of their own.
            flat = [_tangent_as_primal(x) for x in call.flat_args]
            outs = eval_jaxpr_keeping_sources(closed.jaxpr, closed.consts, *flat)
            return tree_unflatten(out_tree, outs)
        closed, extra_args = partial_eval.hoist_tracer_consts(closed)
        outs = pjit_p.bind(*extra_args, *call.flat_args, jaxpr=closed, name=self._name)
        return tree_unflatten(out_tree, outs)

    # -- introspection -----------------------------------------------------------------------
    def _cache_size(self) -> int:
        return len(self._cache)

    def clear_cache(self) -> None:
        self._cache.clear()
        self._traces.clear()
        self._lowerings.clear()
        self._signatures.clear()
        self._placements.clear()

    @traceback_util.api_boundary
    def lower(self, *args: Any, **kwargs: Any) -> Any:
        """Trace and lower for these arguments (arrays or `ShapeDtypeStruct`s)."""
        return self.trace(*args, **kwargs).lower()

    @traceback_util.api_boundary
    @cycle_collection_paused
    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        return self._stage(self._prepare(args, kwargs), args, kwargs)

    @traceback_util.api_boundary
    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        closed, out_tree, _ = self._trace(self._prepare(args, kwargs), args, kwargs)
        # Without weak types, as JAX 0.4.30 describes outputs; each with the sharding
        # `out_shardings` asks for (None when not given).
        shardings: list[Any] = [None] * len(closed.out_avals)
        if self._out_shardings is not None:
            shardings = broadcast_prefix(self._out_shardings,
                                         tree_unflatten(out_tree, list(closed.out_avals)))
        return tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype, sharding=s)
                                         for a, s in zip(closed.out_avals, shardings,
                                                         strict=True)])


_INT_MIN, _INT_MAX = -2**31, 2**31 - 1


# ---- entry points --------------------------------------------------------------------------


def disable_jit(disable: bool = True) -> Any:
    """A context manager in which jitted functions (and the loops and conditionals of lax)
    run op by op on concrete values, `disable=False` turning that back off.

    >>> import numjax
    >>> with disable_jit():
    ...     numjax.jit(lambda x: type(x).__name__)(1.0)
    'float'
    """
    return config.disable_jit(disable)


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
                      device, backend, inline, keep_unused, abstracted_axes, in_shardings,
                      out_shardings)


# One-operation programs for eager operations on Arrays split across devices or processes, by
# (primitive, params).
_one_operation: dict[Any, JitWrapped] = {}


def _run_one_operation(primitive: trace_mod.Primitive, args: Sequence[Any],
                       params: dict[str, Any]) -> Any:
    """An eager operation reading an Array split across devices (or processes) runs as a
    jitted program of that one operation, named after its primitive, as JAX runs every eager
    operation: its arguments' devices are checked with jit's errors, and it runs per shard
    where it can, else on the gathered values, its results laid out by the sharded jit's
    rules (`sharded_jit`)."""
    if primitive is structural.slice_p and params.get("strides") is None:
        # JAX runs an eager slice as a dynamic_slice at places passed in when it runs (one
        # compiled program for every place), so a split dimension it cuts is gathered whole.
        starts = params["start_indices"]
        sizes = tuple(b - a for a, b in zip(starts, params["limit_indices"], strict=True))
        return _run_one_operation(dynamic_slicing.dynamic_slice_p,
                                  [args[0], *(np.int32(s) for s in starts)],
                                  {"slice_sizes": sizes})
    try:
        key: Any = (primitive, tuple(sorted(params.items())))
        fn = _one_operation.get(key)
    except TypeError:  # an unhashable parameter: traced for this call only
        key, fn = None, None
    if fn is None:
        def apply(*args: Any) -> Any:  # JAX's name for the arguments: args[0], args[1], ...
            return primitive.bind(*args, **params)

        apply.__name__ = apply.__qualname__ = primitive.name
        fn = jit(apply)
        if key is not None:
            _one_operation[key] = fn
    # Under disable_jit too: the operation is one primitive, and running the function
    # unjitted would apply the primitive eagerly again.
    with config.disable_jit(False):
        return fn(*args)


eager.set_split_apply(_run_one_operation)


def clear_caches() -> None:
    """Clear every compile cache: jitted functions' and eager operations'."""
    eager.clear_cache()
    executables.clear_cache()
    pmap.clear_caches()
    caches.clear_all()
    for wrapped in list(_wrappers):
        wrapped.clear_cache()
    _shared.clear()
    _one_operation.clear()


def _tangent_as_primal(x: Any) -> Any:
    """A differentiated argument of an inlined jit, its tangent typed as the call's jvp would
    read it: JAX differentiates every jit through its jaxpr, whose tangent inputs take their
    primal's type, weak type included (jvp(jit(sigmoid, inline=True), (0.5,), (float32(1),))
    has a weak tangent)."""
    if type(x) is not ad.JVPTracer or type(x.tangent) is ad.Zero:
        return x
    primal, tangent = get_aval(x.primal), get_aval(x.tangent)
    if not primal.weak_type or tangent.weak_type or primal.dtype != tangent.dtype:
        return x
    trace = x._trace
    assert isinstance(trace, ad.JVPTrace) and trace.parent is not None
    with trace_mod.set_current_trace(trace.parent):
        retyped = structural._convert_element_type(x.tangent, tangent.dtype, True)
    return ad.JVPTracer(trace, x.primal, retyped)
