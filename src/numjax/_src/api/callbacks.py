"""Host callbacks: Python functions called from inside traced and compiled programs.

Three primitives, as in JAX:
- `debug_callback` (`numjax.debug.callback`, `numjax.debug.print`): no results, a Debug effect
  (OrderedDebug when `ordered=True`) so dead-code elimination keeps it. Under jvp it sees the
  primals, under vmap it runs once per example, under transposition it is an error.
- `pure_callback`: results of declared shapes and dtypes, no effect: jit may drop it when
  nothing reads its results; vmap calls it once per example, or once on the whole batch with
  `vectorized=True`. Not differentiable.
- `io_callback` (`numjax.experimental.io_callback`): like pure_callback, with an IO effect
  (OrderedIO when `ordered=True`), so it always runs; an ordered one cannot be vmapped.

The callback receives Arrays and may return anything NumPy can convert; results are checked
against the declared avals. Inside compiled code a failing callback raises `XlaRuntimeError`
naming the original error, which is chained; `backend_compile` receives the callbacks a
module calls (its `host_callbacks` argument).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import string
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler.eager import host_value
from numjax._src.control_flow.loops import map as lax_map
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.effects import (
    Effect,
    debug_effect,
    io_effect,
    ordered_debug_effect,
    ordered_io_effect,
)
from numjax._src.core.errors import XlaRuntimeError
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import batching
from numjax._src.lax.structural import index_in_dim
from numjax._src.runtime import stream
from numjax._src.runtime.array import ArrayImpl, make_array
from numjax._src.tree_util import PyTreeDef, tree_flatten, tree_leaves, tree_map, tree_unflatten

logger = logging.getLogger("numjax")


# ---- calling the host ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class FlatCallback:
    """A Python function called with flat arguments, returning its results' leaves. Equal for
    the same function and argument structure, so eager executables are shared."""

    callback_func: Callable[..., Any]
    in_tree: PyTreeDef

    def __call__(self, *flat_args: Any) -> list[Any]:
        args, kwargs = tree_unflatten(self.in_tree, flat_args)
        return tree_leaves(self.callback_func(*args, **kwargs))

    def __repr__(self) -> str:
        return (f"_FlatCallback(callback_func={self.callback_func!r}, "
                f"in_tree={self.in_tree!r})")


def _host_arrays(bufs: Sequence[Any], avals: Sequence[Any] | None) -> list[Any]:
    """The operands as Arrays of their avals (weak types included), as the callback receives
    them; a constant the program keeps in its NumPy dtype is converted to the aval's."""
    if avals is None:
        avals = [ShapedArray(np.shape(b), np.asarray(b).dtype) for b in bufs]
    return [make_array(np.asarray(b, aval.dtype), aval)
            for b, aval in zip(bufs, avals, strict=True)]


def _check_results(outs: Sequence[Any], result_avals: Sequence[Any]) -> list[np.ndarray]:
    """The callback's results as fresh buffers of the declared avals (a Python scalar or a
    64-bit value takes the canonical dtype first), or RuntimeError."""
    if len(outs) != len(result_avals):
        raise RuntimeError("Mismatched number of outputs from callback. "
                           f"Expected: {len(result_avals)}, Actual: {len(outs)}")
    checked = []
    for i, (o, aval) in enumerate(zip(outs, result_avals, strict=True)):
        value = np.asarray(o)
        canonical = dtypes.canonicalize_dtype(value.dtype)
        if value.shape != aval.shape:
            raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                               f"Expected: {aval.shape}, Actual: {value.shape}")
        if canonical != aval.dtype:
            raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                               f"Expected: {aval.dtype}, Actual: {canonical}")
        # A copy: the program owns its buffers, the callback may keep or change what it gave.
        checked.append(np.array(value, dtype=aval.dtype, copy=True))
    return checked


def _runtime_error(error: BaseException) -> XlaRuntimeError:
    frames = "".join(f'  File "{f.filename}", line {f.lineno}, in {f.name}\n'
                     for f in traceback.extract_tb(error.__traceback__))
    return XlaRuntimeError(
        "INTERNAL: Generated function failed: CpuCallback error: Traceback (most recent call "
        f"last):\n{frames}{type(error).__name__}: {error}")


def _call_host(callback: Callable[..., Any], bufs: Sequence[Any], avals: Sequence[Any] | None,
               api: str, result_avals: Sequence[Any] | None, compiled: bool) -> list[Any]:
    """Run `callback` on `bufs`. In compiled code (and for pure and IO callbacks, which JAX
    runs compiled even eagerly) a failure is an XlaRuntimeError chained to the cause."""
    try:
        try:
            outs = callback(*_host_arrays(bufs, avals))
        except BaseException:
            logger.exception("%s failed", api)
            raise
        return [] if result_avals is None else _check_results(outs, result_avals)
    except Exception as error:
        if not compiled:
            raise
        raise _runtime_error(error) from error


# ---- debug_callback ------------------------------------------------------------------------

debug_callback_p = Primitive("debug_callback")
debug_callback_p.multiple_results = True


@debug_callback_p.def_effectful_abstract_eval
def _debug_callback_abstract_eval(*avals: Any, callback: Callable[..., Any],
                                  effect: Effect) -> Any:
    return [], frozenset([effect])


def _axis_size(args: Sequence[Any], dims: Sequence[Any]) -> int:
    return next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None)


def _debug_callback_kernel(*bufs: Any, callback: Callable[..., Any], effect: Effect,
                           avals: Sequence[Any] | None = None) -> list[Any]:
    return _call_host(callback, bufs, avals, "jax.debug.callback", None, compiled=True)


def _with_avals(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """A kernel factory: the kernel knows its operands' avals (their dtypes and weak types
    are what the callback sees)."""
    def factory(in_avals: Sequence[Any], **params: Any) -> Callable[..., Any]:
        return functools.partial(kernel, avals=tuple(in_avals), **params)
    return factory


debug_callback_p.def_impl(_debug_callback_kernel)
debug_callback_p.def_kernel_factory(_with_avals(_debug_callback_kernel))


def _debug_callback_eager(*args: Any, callback: Callable[..., Any], effect: Effect
                          ) -> list[Any]:
    """Eagerly the callback simply runs (no compile, as in JAX): its own errors propagate."""
    bufs, avals = [], []
    for a in args:
        buf, aval = (stream.resolve(a._buf), a.aval) if isinstance(a, ArrayImpl) \
            else host_value(a, guard=False)
        bufs.append(buf)
        avals.append(aval)
    return _call_host(callback, bufs, avals, "jax.debug.callback", None, compiled=False)


debug_callback_p.eager_impl = _debug_callback_eager


@debug_callback_p.def_jvp
def _debug_callback_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any
                        ) -> tuple[list[Any], list[Any]]:
    return debug_callback_p.bind(*primals, **params), []


@debug_callback_p.def_transpose
def _debug_callback_transpose(cts: Any, *args: Any, **params: Any) -> Any:
    raise ValueError("Transpose doesn't support debugging callbacks.")


@debug_callback_p.def_batch
def _debug_callback_batch(args: Sequence[Any], dims: Sequence[Any], **params: Any
                          ) -> tuple[list[Any], list[Any]]:
    """Unrolled across the mapped axis: the callback sees one example at a time."""
    for i in range(_axis_size(args, dims)):
        debug_callback_p.bind(*[x if d is None else index_in_dim(x, i, d, keepdims=False)
                                for x, d in zip(args, dims, strict=True)], **params)
    return [], []


def debug_callback(callback: Callable[..., None], *args: Any, ordered: bool = False,
                   **kwargs: Any) -> None:
    """Call `callback(*args, **kwargs)` on the host, also from inside jit, vmap, grad, scan...

    Transformations treat the call as innocuous: it sees primal values under differentiation,
    runs once per example under vmap, and is kept by dead-code elimination. `ordered=True`
    keeps ordered callbacks in program order.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.jit(lambda x: numjax.debug.callback(print, x * 2))(jnp.arange(3))
    [0 2 4]
    """
    if not callable(callback):
        raise TypeError("first argument to jax.debug.callback must be callable, "
                        f"but got an object of type {type(callback)}")
    flat_args, in_tree = tree_flatten((args, kwargs))
    effect = ordered_debug_effect if ordered else debug_effect

    def _flat_callback(*flat: Any) -> list[Any]:
        call_args, call_kwargs = tree_unflatten(in_tree, flat)
        callback(*call_args, **call_kwargs)
        return []

    debug_callback_p.bind(*flat_args, callback=_flat_callback, effect=effect)


class _Repr:
    """A param shown by its repr in jaxpr text (JAX prints the callback function in full)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __str__(self) -> str:
        return repr(self.value)


debug_callback_p.def_param_printer(lambda params: {
    "callback": _Repr(params["callback"]), "effect": params["effect"]})


class _FormatChecker(string.Formatter):
    """str.format that refuses arguments the format does not use."""

    def check_unused_args(self, used_args: Any, args: Sequence[Any], kwargs: Any) -> None:
        unused = [a for i, a in enumerate(args) if i not in used_args]
        if unused:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused}")
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused_kw:
            raise ValueError(
                f"Unused keyword arguments to `jax.debug.print`: {unused_kw}. You may be "
                'passing an f-string (i.e, `f"{x}"`) into `jax.debug.print` and instead '
                "should pass in a regular string.")


_format_checker = _FormatChecker()


def _print_formatted(fmt: str, *args: Any, **kwargs: Any) -> None:
    sys.stdout.write(fmt.format(*args, **kwargs) + "\n")


def debug_print(fmt: str, *args: Any, ordered: bool = False, **kwargs: Any) -> None:
    """Print `fmt.format(*args, **kwargs)` when the program runs, with the runtime values.

    Formatting happens on the host, so pass the values as arguments rather than through an
    f-string.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.jit(lambda x: numjax.debug.print("x = {x}", x=x + 1))(jnp.arange(3))
    x = [1 2 3]
    """
    _format_checker.format(fmt, *args, **kwargs)  # bad formats fail here, at trace time
    debug_callback(functools.partial(_print_formatted, fmt), *args, ordered=ordered, **kwargs)


# ---- pure_callback and io_callback ---------------------------------------------------------

pure_callback_p = Primitive("pure_callback")
pure_callback_p.multiple_results = True
io_callback_p = Primitive("io_callback")
io_callback_p.multiple_results = True


@pure_callback_p.def_abstract_eval
def _pure_callback_abstract_eval(*avals: Any, callback: FlatCallback, result_avals: Any,
                                 sharding: Any, vectorized: bool) -> Any:
    return list(result_avals)


@io_callback_p.def_effectful_abstract_eval
def _io_callback_abstract_eval(*avals: Any, callback: FlatCallback, result_avals: Any,
                               sharding: Any, ordered: bool) -> Any:
    return list(result_avals), frozenset([ordered_io_effect if ordered else io_effect])


def _pure_callback_kernel(*bufs: Any, callback: FlatCallback, result_avals: Any,
                          sharding: Any, vectorized: bool, avals: Sequence[Any] | None = None
                          ) -> list[Any]:
    return _call_host(callback, bufs, avals, "jax.pure_callback", result_avals, compiled=True)


def _io_callback_kernel(*bufs: Any, callback: FlatCallback, result_avals: Any,
                        sharding: Any, ordered: bool, avals: Sequence[Any] | None = None
                        ) -> list[Any]:
    return _call_host(callback, bufs, avals, "jax.io_callback", result_avals, compiled=True)


pure_callback_p.def_impl(_pure_callback_kernel)
pure_callback_p.def_kernel_factory(_with_avals(_pure_callback_kernel))
io_callback_p.def_impl(_io_callback_kernel)
io_callback_p.def_kernel_factory(_with_avals(_io_callback_kernel))


def _no_jvp(message: str) -> Callable[..., Any]:
    def rule(*args: Any, **params: Any) -> Any:
        raise ValueError(message)
    return rule


pure_callback_p.def_jvp(_no_jvp(
    "Pure callbacks do not support JVP. "
    "Please use `jax.custom_jvp` to use callbacks while taking gradients."))
pure_callback_p.def_transpose(_no_jvp(
    "Pure callbacks do not support transpose. "
    "Please use `jax.custom_vjp` to use callbacks while taking gradients."))
io_callback_p.def_jvp(_no_jvp("IO callbacks do not support JVP."))
io_callback_p.def_transpose(_no_jvp("IO callbacks do not support transpose."))


def _map_sequentially(primitive: Primitive, args: Sequence[Any], dims: Sequence[Any],
                      size: int, params: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """One call per example, in order, through `lax.map` over the batched operands."""
    batched = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims, strict=True)
               if d is not None]

    def one(xs: Sequence[Any]) -> Any:
        it = iter(xs)
        return primitive.bind(*[x if d is None else next(it)
                                for x, d in zip(args, dims, strict=True)], **params)

    outs = lax_map(one, batched)
    return list(outs), [0] * len(outs)


@pure_callback_p.def_batch
def _pure_callback_batch(args: Sequence[Any], dims: Sequence[Any], **params: Any
                         ) -> tuple[list[Any], list[Any]]:
    size = _axis_size(args, dims)
    if not params["vectorized"]:
        return _map_sequentially(pure_callback_p, args, dims, size, params)
    args = [batching.bdim_at_front(x, d, size) if d is not None else x
            for x, d in zip(args, dims, strict=True)]
    result_avals = tuple(ShapedArray((size, *a.shape), a.dtype) for a in params["result_avals"])
    outs = pure_callback_p.bind(*args, **{**params, "result_avals": result_avals})
    return list(outs), [0] * len(outs)


@io_callback_p.def_batch
def _io_callback_batch(args: Sequence[Any], dims: Sequence[Any], **params: Any
                       ) -> tuple[list[Any], list[Any]]:
    if params["ordered"]:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    return _map_sequentially(io_callback_p, args, dims, _axis_size(args, dims), params)


def _result_avals(result_shape_dtypes: Any) -> tuple[list[Any], Any]:
    def aval(x: Any) -> ShapedArray:
        dtype = np.dtype(x.dtype)
        if dtypes.canonicalize_dtype(dtype) != dtype:
            raise ValueError("result_shape_dtypes cannot specify 64-bit types when "
                             "`jax_enable_x64` is disabled")
        return ShapedArray(tuple(x.shape), dtype)

    leaves, tree = tree_flatten(tree_map(aval, result_shape_dtypes))
    return leaves, tree


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                  sharding: Any = None, vectorized: bool = False, **kwargs: Any) -> Any:
    """Call a pure host function from inside a traced program; returns Arrays shaped as
    `result_shape_dtypes` (a pytree of objects with `shape` and `dtype`).

    The function must be pure: jit may call it any number of times, or not at all when its
    results are unused. Under vmap it is called once per example, or once on the batch (batch
    axes leading) with `vectorized=True`. It cannot be differentiated; wrap it in
    `custom_jvp` or `custom_vjp` for that.

    >>> import numpy as np, numjax, numjax.numpy as jnp
    >>> x = jnp.arange(3.0)
    >>> numjax.jit(lambda x: numjax.pure_callback(np.sin, x, x))(x)
    Array([0.       , 0.841471 , 0.9092974], dtype=float32)
    """
    flat_args, in_tree = tree_flatten((args, kwargs))
    avals, out_tree = _result_avals(result_shape_dtypes)
    outs = pure_callback_p.bind(*flat_args, callback=FlatCallback(callback, in_tree),
                                result_avals=tuple(avals), sharding=sharding,
                                vectorized=vectorized)
    return tree_unflatten(out_tree, outs)


def io_callback(callback: Callable[..., Any], result_shape_dtypes: Any, *args: Any,
                sharding: Any = None, ordered: bool = False, **kwargs: Any) -> Any:
    """Call an impure host function from inside a traced program: it always runs (its IO
    effect keeps it alive); `ordered=True` keeps ordered calls in program order. Not
    differentiable; an ordered one cannot be vmapped.

    >>> import numpy as np, numjax, numjax.numpy as jnp
    >>> from numjax.experimental import io_callback
    >>> seen = []
    >>> f = numjax.jit(lambda x: io_callback(lambda v: seen.append(int(v)), None, x))
    >>> f(jnp.int32(3)); f(jnp.int32(4)); seen
    [3, 4]
    """
    flat_args, in_tree = tree_flatten((args, kwargs))
    avals, out_tree = _result_avals(result_shape_dtypes)
    outs = io_callback_p.bind(*flat_args, callback=FlatCallback(callback, in_tree),
                              result_avals=tuple(avals), sharding=sharding, ordered=ordered)
    return tree_unflatten(out_tree, outs)


# ---- the compiler: callbacks are recorded in modules and never folded ----------------------

callback_primitives = (debug_callback_p, pure_callback_p, io_callback_p)
for _p in callback_primitives:
    _p.host_callback = True
