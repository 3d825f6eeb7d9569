"""Structural primitives: dtype conversion, broadcasting, reshaping, selection, slicing.

These are linear in their array operands (except `convert_element_type` to or from integers
and the indices of dynamic slicing), so each declares a transpose and takes its jvp from it.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import native_rules, native_structural
from numjax._src.compiler.lowering import ufunc_lowering
from numjax._src.core import errors, extended
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import EvalTrace, Primitive, Tracer, current_trace, operand_aval
from numjax._src.interpreters import ad, batching
from numjax._src.interpreters.ad import Zero, is_undefined_primal
from numjax._src.interpreters.batching import moveaxis, not_mapped
from numjax._src.lax import rules
from numjax._src.runtime import host_memory, transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.runtime.sharding import PmapSharding
from numjax._src.tree_util import tree_map
from numjax._src.typing import Array

Shape = tuple[int, ...]


def _shape_tuple(name: str, shape: Any) -> Shape:
    """`shape` as a tuple of ints, or JAX's error: its shape canonicalization's, or for
    broadcast_in_dim its own check naming the entries' types. A `shape` that is not iterable
    fails on the iteration, as in JAX."""
    try:
        return tuple(operator_index(d) for d in shape)
    except TypeError:
        pass
    if name == "broadcast_in_dim":
        raise TypeError("broadcast_in_dim shape must have every element be an integer type, "
                        f"got {tuple(map(type, shape))}.")
    raise invalid_shape_error(shape)


def invalid_shape_error(shape: Any, context: str = "") -> TypeError:
    """JAX's error for a shape that is not a sequence of concrete integers (`context` names
    the argument): for a traced entry, with the advice to make it static and where the traced
    value came from."""
    msg = f"Shapes must be 1D sequences of concrete values of integer type, got {shape}."
    if context:
        msg += f" {context}."
    traced = [d for d in shape if isinstance(d, Tracer) and d.to_concrete_value() is None
              ] if isinstance(shape, list | tuple) else []
    if traced:
        msg += ("\nIf using `jit`, try using `static_argnums` or applying `jit` to smaller "
                "subfunctions.")
        msg += "".join(d._origin_msg() for d in traced)
    return TypeError(msg)


def operator_index(d: Any) -> int:
    import operator
    if isinstance(d, Tracer):
        raise errors.TracerIntegerConversionError(d)
    return operator.index(d)


# ---- convert_element_type ------------------------------------------------------------------

convert_element_type_p = Primitive("convert_element_type")


def _convert_kernel(x: Any, *, new_dtype: np.dtype, weak_type: bool) -> Any:
    x = np.asarray(x)
    if x.dtype == dtypes.float0:
        # A float0 value is all zeros (JAX converts it as XLA's zero-filled buffer): a jacrev
        # with respect to an integer input is integer zeros.
        return np.zeros(x.shape, new_dtype)
    if x.dtype.kind == "c" and new_dtype.kind != "c":
        x = x.real
    if new_dtype.kind == "b" and x.dtype.kind != "b":
        return x != 0
    if _is_int(new_dtype) and (x.dtype.kind == "f" or x.dtype in dtypes._CUSTOM_FLOAT_DTYPES):
        return float_to_int(x, new_dtype)
    return x.astype(new_dtype)


def _is_int(dtype: np.dtype) -> bool:
    return dtype.kind in "iu" or dtype in dtypes._INT4_DTYPES


def float_to_int(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """XLA's float-to-integer conversion: truncation toward zero that saturates at the integer
    type's bounds (infinities included), with NaN becoming 0; NumPy's cast wraps or returns an
    arbitrary value instead (`jnp.arange(254., 258.).astype('uint8')` is [254, 255, 255, 255])."""
    lo, top, low, high = _int_bounds(dtype)
    # Two reductions decide whether anything needs fixing (NaN fails both comparisons): in the
    # common case the conversion is NumPy's cast and two fast passes.
    if not x.size or (x.min() >= lo and x.max() < top):
        return x.astype(dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        out = x.astype(dtype)
        bad = ~((x >= lo) & (x < top))
        outside = x[bad]
        # The bounds as `dtype` scalars: as Python ints, uint64's maximum and 0 would promote
        # to float64, where 2**64 - 1 rounds to 2**64 and the store wraps it to 0.
        high_, low_, zero = np.array(high, dtype), np.array(low, dtype), np.zeros((), dtype)
        out[bad] = np.where(np.isnan(outside), zero, np.where(outside > 0, high_, low_))
    return out


@functools.cache
def _int_bounds(dtype: np.dtype) -> tuple[np.float64, np.float64, int, int]:
    """(minimum, one past the maximum) as float64 scalars (exact: both are powers of two, so
    every float type compares exactly), and the minimum and maximum."""
    info = dtypes.iinfo(dtype)
    return np.float64(info.min), np.float64(info.max) + 1, int(info.min), int(info.max)


@convert_element_type_p.def_abstract_eval
def _convert_abstract_eval(x: ShapedArray, *, new_dtype: np.dtype,
                           weak_type: bool) -> ShapedArray:
    return ShapedArray(x.shape, new_dtype, weak_type)


def _convert_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, new_dtype: np.dtype,
                 weak_type: bool) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
    in_dtype = get_aval(x).dtype
    if (type(t) is Zero or not dtypes.issubdtype(new_dtype, np.inexact)
            or not dtypes.issubdtype(in_dtype, np.inexact)):
        return out, Zero(ad.tangent_aval(get_aval(out)))
    return out, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type)


def _convert_transpose(ct: Any, x: Any, *, new_dtype: np.dtype, weak_type: bool) -> list[Any]:
    aval = x.aval
    if type(ct) is Zero:
        return [Zero(aval)]
    return [convert_element_type_p.bind(ct, new_dtype=aval.dtype, weak_type=aval.weak_type)]


convert_element_type_p.def_impl(_convert_kernel)
convert_element_type_p.def_jvp(_convert_jvp)
convert_element_type_p.def_transpose(_convert_transpose)
convert_element_type_p.def_batch(batching.vectorized_batch(convert_element_type_p))
convert_element_type_p.def_lowering(ufunc_lowering(_convert_kernel))
convert_element_type_p.native = native_rules.convert_element_type_rule
convert_element_type_p.is_identity = lambda params, aval: True  # same dtype: a no-op
convert_element_type_p.const_fold = True
convert_element_type_p.forwards = True


def convert_element_type(operand: Array, new_dtype: Any) -> Array:
    """Elementwise cast to `new_dtype` (a strong type).

    >>> import numjax.numpy as jnp
    >>> convert_element_type(jnp.array([1.7, -1.7]), jnp.int32)
    Array([ 1, -1], dtype=int32)
    """
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _convert_element_type(operand: Array, new_dtype: Any = None, weak_type: bool = False
                          ) -> Array:
    if hasattr(type(operand), "__jax_array__"):
        operand = operand.__jax_array__()  # an array-like object is converted as its array
    old_dtype = getattr(operand, "dtype", None)
    if isinstance(old_dtype, dtypes.ExtendedDType) or isinstance(new_dtype,
                                                                  dtypes.ExtendedDType):
        # Typed keys convert to their own dtype only; the target is named as given (`int` is
        # int64), as in JAX's error.
        if old_dtype == new_dtype:
            return operand
        old = old_dtype if isinstance(old_dtype, dtypes.ExtendedDType) else dtypes.dtype(
            operand, canonicalize=True)
        new_name = new_dtype if isinstance(new_dtype, dtypes.ExtendedDType) else np.dtype(
            new_dtype)
        raise ValueError(f"Cannot convert_element_type from {old} to {new_name}")
    try:
        aval = get_aval(operand)
    except TypeError:
        dtypes.dtype(operand)  # as JAX, the operand's dtype is read first: its error if none
        raise
    new = aval.dtype if new_dtype is None else dtypes.canonicalize_dtype(new_dtype)
    if type(operand) in (bool, int, float, complex):
        if transfer_guard._in_use:
            transfer_guard.host_operand(operand, aval.dtype)
        if new_dtype is None and type(operand) is int:
            _check_default_int(operand, new)  # as jnp.asarray reads it
        operand = _python_scalar_to_numpy(operand, new)
    elif aval.dtype == new and aval.weak_type == weak_type and not isinstance(
            operand, np.ndarray | np.generic) and not _tangent_needs_conversion(operand,
                                                                               weak_type):
        return operand
    return convert_element_type_p.bind(operand, new_dtype=new, weak_type=bool(weak_type))


def _tangent_needs_conversion(operand: Any, weak_type: bool) -> bool:
    """Whether `operand` is a JVP tracer whose tangent's weak type is not `weak_type`, or whose
    tangent is a Python or NumPy value rather than an Array.

    JAX's jnp functions are jitted: inside one, a tangent has its primal's type, and the
    promotion of the operands converts both to the result's weak type; what leaves the jitted
    function is an Array. numjax's jnp functions are not, so the promotion converts the tangent
    itself: the tangent of `x + x / 3.` at a weakly typed `x` is weak whatever the tangent given,
    and that of `int(x) + x` given the tangent 1.0 is Array(1., weak_type=True) (JAX 0.4.30)."""
    if type(operand) is not ad.JVPTracer:
        return False
    tangent = operand.tangent
    if type(tangent) is Zero:
        return False
    if type(tangent) in (bool, int, float, complex) or isinstance(tangent,
                                                                  np.ndarray | np.generic):
        return True
    return bool(get_aval(tangent).weak_type != weak_type)


def _check_default_int(x: int, dtype: np.dtype) -> None:
    info = np.iinfo(dtype)
    if not info.min <= x <= info.max:
        raise OverflowError(f"Python int {x} too large to convert to {dtype.name}")


def _python_scalar_to_numpy(x: Any, dtype: np.dtype) -> Any:
    if type(x) is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= x <= info.max:
            # As JAX converts a Python int: through NumPy's int64 (or uint64), wrapping to a
            # narrower type (jnp.int8 array + 1000 adds -24); beyond 64 bits NumPy's
            # OverflowError.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                return np.asarray(x).astype(dtype)[()]
    if type(x) is complex and dtype.kind != "c":
        x = x.real
    if type(x) is float and _is_int(dtype):
        # As a float-to-integer conversion on the device: saturating (lax.full((), 1e10, int8)
        # is 127).
        return float_to_int(np.asarray(x), dtype)[()]
    return np.asarray(x, dtype)[()]


# ---- broadcast_in_dim ----------------------------------------------------------------------

broadcast_in_dim_p = Primitive("broadcast_in_dim")


# Results of at most this many elements are broadcast by copying into a new buffer: for small
# arrays np.broadcast_to's Python machinery costs ~10x an np.empty and one assignment (31 us
# against 2.7 us for 3 float32 elements on the loaded 2-core machine), and numpyro's NUTS body
# makes 200K small broadcasts. Larger results stay read-only views.
SMALL_BROADCAST = 4096


def broadcasted(x: np.ndarray, shape: Shape) -> np.ndarray:
    """`x` broadcast to `shape` (NumPy's rules): a new buffer when small, else a view."""
    if math.prod(shape) <= SMALL_BROADCAST:
        out = np.empty(shape, x.dtype)
        out[...] = x
        return out
    return np.broadcast_to(x, shape)


def _broadcast_in_dim_kernel(x: Any, *, shape: Shape, broadcast_dimensions: Shape) -> Any:
    x = np.asarray(x)
    expanded = [1] * len(shape)
    for src, dst in enumerate(broadcast_dimensions):
        expanded[dst] = x.shape[src]
    return broadcasted(x.reshape(expanded), shape)


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(x: ShapedArray, *, shape: Shape,
                                    broadcast_dimensions: Shape) -> ShapedArray:
    if any(d < 0 for d in shape):
        raise TypeError("broadcast_in_dim shape must have every element be nonnegative, got "
                        f"{tuple(shape)}.")
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; "
            f"got broadcast_dimensions {broadcast_dimensions} for operand ndim {x.ndim}.")
    if len(shape) < x.ndim:
        raise TypeError(
            "broadcast_in_dim target broadcast shape must have equal or higher rank to the "
            f"operand shape; got operand ndim {x.ndim} and target broadcast ndim {len(shape)}.")
    if any(d < 0 or d >= len(shape) for d in broadcast_dimensions):
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, got "
            f"{broadcast_dimensions} for operand ndim {x.ndim} and shape {shape}.")
    for src, dst in enumerate(broadcast_dimensions):
        if x.shape[src] not in (1, shape[dst]):
            raise TypeError(
                "broadcast_in_dim operand dimension sizes must either be 1, or be equal to "
                "their corresponding dimensions in the target broadcast shape; got operand "
                f"of shape {x.shape}, target broadcast shape {shape}, broadcast_dimensions "
                f"{broadcast_dimensions} ")
    if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must be strictly increasing; got "
            f"broadcast_dimensions {broadcast_dimensions}")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_in_dim_transpose(ct: Any, x: Any, *, shape: Shape,
                                broadcast_dimensions: Shape) -> list[Any]:
    aval = x.aval
    if type(ct) is Zero:
        return [Zero(aval)]
    from numjax._src.lax.reductions import reduce_sum
    new_dims = tuple(i for i in range(len(shape)) if i not in broadcast_dimensions)
    kept_ones = tuple(dst for src, dst in enumerate(broadcast_dimensions)
                      if aval.shape[src] == 1 and shape[dst] != 1)
    summed = reduce_sum(ct, tuple(sorted(new_dims + kept_ones)))
    return [reshape(summed, aval.shape)]


def _broadcast_in_dim_batch(args: Sequence[Any], dims: Sequence[Any], *, shape: Shape,
                            broadcast_dimensions: Shape) -> tuple[Any, Any]:
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    size = get_aval(x).shape[0]
    return broadcast_in_dim_p.bind(
        x, shape=(size, *shape),
        broadcast_dimensions=(0, *(b + 1 for b in broadcast_dimensions))), 0


broadcast_in_dim_p.def_impl(_broadcast_in_dim_kernel)


def _broadcast_in_dim_owning(in_avals: Any, *, shape: Shape, broadcast_dimensions: Shape
                             ) -> Any:
    # Eagerly the result is a new buffer (zeros from calloc), not np.broadcast_to's view:
    # filling it directly costs less than the view and its copy.
    expanded = [1] * len(shape)
    for src, dst in enumerate(broadcast_dimensions):
        expanded[dst] = in_avals[0].shape[src]
    rank = tuple(expanded)
    return lambda x: host_memory.broadcast(np.asarray(x).reshape(rank), shape)


broadcast_in_dim_p.def_broadcast_result(_broadcast_in_dim_owning)
ad.linear_jvp(broadcast_in_dim_p)
broadcast_in_dim_p.def_transpose(_broadcast_in_dim_transpose)
broadcast_in_dim_p.def_batch(_broadcast_in_dim_batch)
broadcast_in_dim_p.is_identity = lambda params, aval: True  # same shape: a no-op
broadcast_in_dim_p.forwards = True
broadcast_in_dim_p.broadcast_dimensions = lambda params: params["broadcast_dimensions"]
broadcast_in_dim_p.native = native_structural.broadcast_in_dim_rule


def broadcast_in_dim(operand: Array, shape: Sequence[int],
                     broadcast_dimensions: Sequence[int]) -> Array:
    """Broadcast `operand` to `shape`, its axis i becoming axis `broadcast_dimensions[i]`.

    >>> import numjax.numpy as jnp
    >>> broadcast_in_dim(jnp.array([1, 2]), (3, 2), (1,)).shape
    (3, 2)
    """
    if isinstance(operand, extended.array_types):  # typed PRNG keys
        return extended.rule("lax.broadcast_in_dim")(operand, shape, broadcast_dimensions)
    shape = _shape_tuple("broadcast_in_dim", shape)
    dims = tuple(int(d) for d in broadcast_dimensions)
    aval = operand_aval(operand)
    if aval.shape == shape and dims == tuple(range(len(shape))) and isinstance(
            operand, (Tracer, *_array_types())):
        return operand
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=dims)


def _array_types() -> tuple[type, ...]:
    return (ArrayImpl,)


def broadcast(operand: Array, sizes: Sequence[int]) -> Array:
    """Add leading dimensions of the given sizes."""
    if isinstance(operand, extended.array_types):  # typed PRNG keys
        return extended.rule("lax.broadcast")(operand, sizes)
    aval = operand_aval(operand)
    sizes = tuple(sizes)
    dims = tuple(range(len(sizes), len(sizes) + aval.ndim))
    return broadcast_in_dim(operand, sizes + aval.shape, dims)


def broadcast_to_rank(x: Array, rank: int) -> Array:
    """`x` with leading dimensions of size 1 added until it has `rank` of them."""
    ndim = get_aval(x).ndim
    if ndim == rank:
        return x
    return broadcast(x, (1,) * (rank - ndim))


def broadcast_to_operands(t: Array, *operands: Array) -> Array:
    """Broadcast `t` (whose shape is one operand's) to the lax broadcast of `operands`."""
    shape = rules.broadcast_shapes("broadcast", [get_aval(o).shape for o in operands])
    t_shape = get_aval(t).shape
    if t_shape == shape:
        return t
    if not t_shape:
        return broadcast_in_dim(t, shape, ())
    return broadcast_in_dim(t, shape, tuple(range(len(shape))))


def unbroadcast_to(ct: Array, aval: Any) -> Array:
    """Sum `ct` over the axes where `aval`'s shape was broadcast (0-d or size-1 axes)."""
    from numjax._src.lax.reductions import reduce_sum
    ct_shape = get_aval(ct).shape
    if ct_shape == aval.shape:
        return ct
    if not aval.shape:
        return reduce_sum(ct, tuple(range(len(ct_shape))))
    axes = tuple(i for i, (a, c) in enumerate(zip(aval.shape, ct_shape, strict=True))
                 if a == 1 and c != 1)
    return reshape(reduce_sum(ct, axes), aval.shape)


def full(shape: Sequence[int], fill_value: Array, dtype: Any = None, *,
         sharding: Any = None) -> Array:
    """An array of `shape` filled with `fill_value`, placed by `sharding` when made eagerly.

    >>> full((2,), 3.0)
    Array([3., 3.], dtype=float32)
    """
    shape = _shape_tuple("full", shape)
    if np.ndim(fill_value) if not isinstance(fill_value, Tracer) else get_aval(
            fill_value).ndim:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    weak = dtype is None and dtypes.is_weakly_typed(fill_value)
    dtype = dtypes.canonicalize_dtype(dtype if dtype is not None
                                      else dtypes.dtype(fill_value))
    guard_fill_transfer(fill_value, dtype)
    value = _convert_element_type(fill_value, dtype, weak)
    return placed(broadcast(value, shape), sharding)


# api's device_put, which lax.full's `sharding` needs and lax cannot import (api sits above
# lax): api/device_put.py installs it at import.
_device_put: Any = None


def set_device_put(fn: Any) -> None:
    global _device_put
    _device_put = fn


def placed(out: Any, sharding: Any) -> Any:
    """`out` put on `sharding` (committed), as JAX's lax.full does for a value made eagerly;
    under a trace, and for pmap's sharding, the sharding is not applied (as in JAX: inside jit
    `with_sharding_constraint` places a value)."""
    if sharding is None or isinstance(out, Tracer) or isinstance(sharding, PmapSharding):
        return out
    return _device_put(out, sharding)


def like_sharding(x: Any, sharding: Any, weak: bool, shape: Shape) -> Any:
    """Where `*_like(x)` puts its result: `sharding` if given, else `x`'s own sharding when `x`
    is a committed Array of that shape and the result is not weakly typed (JAX's full_like)."""
    if sharding is not None or isinstance(x, Tracer) or weak:
        return sharding
    if not hasattr(x, "sharding") or not getattr(x, "_committed", True):
        return None
    return x.sharding if tuple(shape) == tuple(np.shape(x)) else None


def guard_fill_transfer(fill_value: Any, dtype: Any) -> None:
    """An eager `full` places its host fill value on the device first (an implicit
    host-to-device transfer, as in JAX, where `jnp.zeros` is refused by a disallowing guard)."""
    if transfer_guard._in_use and not isinstance(fill_value, Tracer | ArrayImpl):
        transfer_guard.library_constant(fill_value, dtype)


def full_like(x: Array, fill_value: Any, dtype: Any = None, shape: Any = None, *,
              sharding: Any = None) -> Array:
    """An array like `x` (its shape and dtype unless given) filled with `fill_value`; on
    `sharding`, or on `x`'s devices when `x` is committed (see `like_sharding`).

    >>> import numjax.numpy as jnp
    >>> full_like(jnp.zeros((2,), jnp.int32), 7)
    Array([7, 7], dtype=int32)
    """
    try:
        aval = get_aval(x)
    except TypeError:
        dtypes.dtype(x)  # as JAX, the dtype is read first: its error if there is none
        raise
    if np.ndim(fill_value) if not isinstance(fill_value, Tracer) else get_aval(
            fill_value).ndim:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    weak = dtype is None and aval.weak_type
    dtype = aval.dtype if dtype is None else dtype
    guard_fill_transfer(fill_value, dtype)
    value = _convert_element_type(fill_value, dtype, weak)
    fill_shape = aval.shape if shape is None else tuple(shape)
    return placed(broadcast(value, fill_shape), like_sharding(x, sharding, weak, fill_shape))


def zeros_like_aval(aval: Any) -> Array:
    return broadcast(_convert_element_type(0, aval.dtype, aval.weak_type), aval.shape)


ad.set_zeros_like_aval(zeros_like_aval)


# ---- reshape / squeeze / transpose / rev ---------------------------------------------------

reshape_p = Primitive("reshape")


def _reshape_kernel(x: Any, *, new_sizes: Shape, dimensions: Shape | None) -> Any:
    x = np.asarray(x)
    if dimensions is not None:
        x = np.transpose(x, dimensions)
    return np.reshape(x, new_sizes)


@reshape_p.def_abstract_eval
def _reshape_abstract_eval(x: ShapedArray, *, new_sizes: Shape,
                           dimensions: Shape | None) -> ShapedArray:
    if any(d < 0 for d in new_sizes):
        raise TypeError(f"reshape new_sizes must all be positive, got {new_sizes}.")
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(
            "reshape total size must be unchanged, got new_sizes "
            f"{new_sizes} (of total size {int(np.prod(new_sizes, dtype=np.int64))}) for shape "
            f"{x.shape} (of total size {x.size}).")
    if dimensions is not None and sorted(dimensions) != list(range(x.ndim)):
        raise TypeError(f"reshape dimensions must be a permutation of operand dimensions, "
                        f"got dimensions {dimensions} for shape {x.shape}.")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _reshape_transpose(ct: Any, x: Any, *, new_sizes: Shape,
                       dimensions: Shape | None) -> list[Any]:
    aval = x.aval
    if type(ct) is Zero:
        return [Zero(aval)]
    if dimensions is None:
        return [reshape(ct, aval.shape)]
    permuted = tuple(aval.shape[d] for d in dimensions)
    return [transpose(reshape(ct, permuted), tuple(np.argsort(dimensions)))]


def _reshape_batch(args: Sequence[Any], dims: Sequence[Any], *, new_sizes: Shape,
                   dimensions: Shape | None) -> tuple[Any, Any]:
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    if dimensions is not None:
        x = transpose(x, (0, *(i + 1 for i in dimensions)))
    size = get_aval(x).shape[0]
    return reshape_p.bind(x, new_sizes=(size, *new_sizes), dimensions=None), 0


reshape_p.def_impl(_reshape_kernel)


@reshape_p.def_kernel_factory
def _reshape_kernel_factory(in_avals: Any, *, new_sizes: Shape, dimensions: Shape | None
                            ) -> Any:
    if dimensions is not None:
        return functools.partial(_reshape_kernel, new_sizes=new_sizes, dimensions=dimensions)
    return lambda x: x.reshape(new_sizes)


ad.linear_jvp(reshape_p)
reshape_p.def_transpose(_reshape_transpose)
reshape_p.def_batch(_reshape_batch)
reshape_p.is_identity = lambda params, aval: params["dimensions"] is None
reshape_p.native = native_structural.reshape_rule


def reshape(operand: Array, new_sizes: Sequence[int],
            dimensions: Sequence[int] | None = None) -> Array:
    """Reshape `operand` (after transposing it by `dimensions`, if given).

    >>> import numjax.numpy as jnp
    >>> reshape(jnp.arange(6), (2, 3)).shape
    (2, 3)
    """
    if isinstance(operand, extended.array_types):  # typed PRNG keys
        return extended.rule("lax.reshape")(operand, new_sizes, dimensions)
    new_sizes = _shape_tuple("reshape", new_sizes)
    dims = None if dimensions is None else tuple(int(d) for d in dimensions)
    aval = operand_aval(operand)
    if dims is not None and dims == tuple(range(aval.ndim)):
        dims = None
    if aval.shape == new_sizes and dims is None and isinstance(operand, (Tracer, *_array_types())):
        return operand
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims)


squeeze_p = Primitive("squeeze")


@squeeze_p.def_abstract_eval
def _squeeze_abstract_eval(x: ShapedArray, *, dimensions: Shape) -> ShapedArray:
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"dimensions are not unique: {dimensions}")
    for d in dimensions:
        if not 0 <= d < x.ndim:
            raise ValueError(f"dimensions outside range [0, ndim): {dimensions}")
        if x.shape[d] != 1:
            raise ValueError(
                "cannot select an axis to squeeze out which has size not equal to one, got "
                f"shape={x.shape} and dimensions={dimensions}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions),
                       x.dtype, x.weak_type)


def _squeeze_kernel(x: Any, *, dimensions: Shape) -> Any:
    return np.squeeze(x, dimensions) if dimensions else x


def _squeeze_transpose(ct: Any, x: Any, *, dimensions: Shape) -> list[Any]:
    return [Zero(x.aval) if type(ct) is Zero else reshape(ct, x.aval.shape)]


def _squeeze_batch(args: Sequence[Any], dims: Sequence[Any], *,
                   dimensions: Shape) -> tuple[Any, Any]:
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    return squeeze_p.bind(x, dimensions=tuple(i + 1 for i in dimensions)), 0


squeeze_p.def_impl(_squeeze_kernel)


@squeeze_p.def_kernel_factory
def _squeeze_kernel_factory(in_avals: Any, *, dimensions: Shape) -> Any:
    if not dimensions:
        return lambda x: x
    shape = tuple(d for i, d in enumerate(in_avals[0].shape) if i not in dimensions)
    return lambda x: x.reshape(shape)


ad.linear_jvp(squeeze_p)
squeeze_p.def_transpose(_squeeze_transpose)
squeeze_p.def_batch(_squeeze_batch)
squeeze_p.is_identity = lambda params, aval: True  # same shape: nothing squeezed
squeeze_p.native = native_structural.squeeze_rule


def _canonical_axis(axis: Any, ndim: int) -> int:
    axis = operator_index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if axis < 0 else axis


def squeeze(array: Array, dimensions: Sequence[int]) -> Array:
    """`array` without its `dimensions`, each of size 1."""
    if isinstance(array, extended.array_types):  # typed PRNG keys
        return extended.rule("lax.squeeze")(array, dimensions)
    ndim = operand_aval(array).ndim
    dims = tuple(sorted(_canonical_axis(d, ndim) for d in dimensions))
    if not dims and isinstance(array, (Tracer, *_array_types())):
        return array
    return squeeze_p.bind(array, dimensions=dims)


def expand_dims(array: Array, dimensions: Sequence[int]) -> Array:
    """`array` with a dimension of size 1 at each of `dimensions` (of the result)."""
    if isinstance(array, extended.array_types):  # typed PRNG keys
        return extended.rule("lax.expand_dims")(array, dimensions)
    aval = operand_aval(array)
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"repeated axis in lax.expand_dims: {dimensions}")
    ndim_out = aval.ndim + len(dimensions)
    canonical = [_canonical_axis(d, ndim_out) for d in dimensions]
    if len(set(canonical)) != len(canonical):  # again after canonicalizing
        raise ValueError(f"repeated axis in lax.expand_dims: {canonical}")
    dims = sorted(canonical)
    shape = list(aval.shape)
    for d in dims:
        shape.insert(d, 1)
    kept = tuple(i for i in range(ndim_out) if i not in dims)
    return broadcast_in_dim(array, tuple(shape), kept)


transpose_p = Primitive("transpose")


@transpose_p.def_abstract_eval
def _transpose_abstract_eval(x: ShapedArray, *, permutation: Shape) -> ShapedArray:
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(
            "transpose permutation isn't a permutation of operand dimensions, got "
            f"permutation {permutation} for operand shape {x.shape}.")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


def _transpose_kernel(x: Any, *, permutation: Shape) -> Any:
    return np.transpose(x, permutation)


def _transpose_transpose(ct: Any, x: Any, *, permutation: Shape) -> list[Any]:
    if type(ct) is Zero:
        return [Zero(x.aval)]
    return [transpose(ct, tuple(int(i) for i in np.argsort(permutation)))]


def _transpose_batch(args: Sequence[Any], dims: Sequence[Any], *,
                     permutation: Shape) -> tuple[Any, Any]:
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    return transpose_p.bind(x, permutation=(0, *(p + 1 for p in permutation))), 0


transpose_p.def_impl(_transpose_kernel)
ad.linear_jvp(transpose_p)
transpose_p.def_transpose(_transpose_transpose)
transpose_p.def_batch(_transpose_batch)
transpose_p.native = native_structural.transpose_rule
transpose_p.is_identity = lambda params, aval: tuple(params["permutation"]) == tuple(
    range(aval.ndim))


def transpose(operand: Array, permutation: Sequence[int]) -> Array:
    """Permute the axes of `operand`.

    >>> import numjax.numpy as jnp
    >>> transpose(jnp.zeros((2, 3)), (1, 0)).shape
    (3, 2)
    """
    if isinstance(operand, extended.array_types):  # typed PRNG keys
        return extended.rule("lax.transpose")(operand, permutation)
    perm = tuple(int(p) for p in permutation)
    if perm == tuple(range(len(perm))) and isinstance(operand, (Tracer, *_array_types())):
        return operand
    return transpose_p.bind(operand, permutation=perm)


rev_p = Primitive("rev")


@rev_p.def_abstract_eval
def _rev_abstract_eval(x: ShapedArray, *, dimensions: Shape) -> ShapedArray:
    if any(d < 0 for d in dimensions):
        raise TypeError(f"rev dimensions must have every element be nonnegative, got "
                        f"{dimensions}.")
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    if dimensions and not max(dimensions) < x.ndim:
        raise TypeError("rev dimensions must all be less than operand ndim, got dimensions "
                        f"{dimensions} for operand ndim {x.ndim}.")
    return x


def _rev_kernel(x: Any, *, dimensions: Shape) -> Any:
    return np.flip(x, dimensions) if dimensions else x


def _rev_batch(args: Sequence[Any], dims: Sequence[Any], *, dimensions: Shape
               ) -> tuple[Any, Any]:
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    # A negative dimension stays as it is, for the bind to reject as an unbatched rev does
    # (shifting it would reverse the batch axis: -1 + 1 is 0).
    return rev_p.bind(x, dimensions=tuple(i + 1 if i >= 0 else i for i in dimensions)), 0


rev_p.def_impl(_rev_kernel)
ad.linear_jvp(rev_p)
rev_p.def_transpose(lambda ct, x, *, dimensions: [
    Zero(x.aval) if type(ct) is Zero else rev_p.bind(ct, dimensions=dimensions)])
rev_p.def_batch(_rev_batch)


def rev(operand: Array, dimensions: Sequence[int]) -> Array:
    """`operand` reversed along each of `dimensions`."""
    if isinstance(operand, extended.array_types):  # typed PRNG keys
        return extended.rule("lax.rev")(operand, dimensions)
    return rev_p.bind(operand, dimensions=tuple(int(d) for d in dimensions))


# ---- select_n ------------------------------------------------------------------------------

select_n_p = Primitive("select_n")


# Unsigned integers of each width: a select moves bit patterns.
_BITS: dict[int, np.dtype[Any]] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16),
                                   4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
# Elements from which a boolean select runs branch-free: np.where branches per element, so an
# unpredictable predicate (a relu's derivative) costs it 2.9 ms on 800K float32 where the
# five bitwise passes below take 0.45 ms; below this size its single call is cheaper.
_BITWISE_SELECT_MIN_SIZE = 16384


def _bitwise_select(which: np.ndarray, on_true: np.ndarray, on_false: np.ndarray,
                    bits: np.dtype) -> np.ndarray:
    """where(which, on_true, on_false) as on_false ^ ((on_true ^ on_false) & mask), the mask
    all ones where `which`: exact bit patterns (NaN payloads, signed zeros) as np.where."""
    dtype = on_false.dtype
    mask = which.view(np.uint8).astype(bits)
    np.negative(mask, out=mask)  # 1 -> all ones
    low = on_false.view(bits)
    out = np.bitwise_xor(on_true.view(bits), low)
    np.bitwise_and(out, mask, out=out)
    np.bitwise_xor(out, low, out=out)
    return out.view(dtype)


def _select_constants(which: np.ndarray, on_true: np.ndarray, on_false: np.ndarray,
                      bits: np.dtype) -> np.ndarray:
    """where(which, t, f) for cases that each hold one value broadcast (a relu's derivative):
    which * (t ^ f) ^ f on their bit patterns, three passes where the general select takes
    five (0.24 ms against 0.9 on 800K float32)."""
    t = on_true.reshape(-1)[:1].view(bits)[0]
    f = on_false.reshape(-1)[:1].view(bits)[0]
    out = which.view(np.uint8).astype(bits)
    np.multiply(out, t ^ f, out=out)
    np.bitwise_xor(out, f, out=out)
    return out.view(on_false.dtype)


def _select_n_kernel(which: Any, *cases: Any) -> Any:
    if len(cases) == 1:
        return np.broadcast_to(cases[0], np.broadcast_shapes(np.shape(which),
                                                             np.shape(cases[0])))
    which = np.asarray(which)
    if which.dtype == np.bool_:
        on_false, on_true = np.asarray(cases[0]), np.asarray(cases[1])
        bits = _BITS.get(on_false.dtype.itemsize)
        if bits is not None and on_false.size >= _BITWISE_SELECT_MIN_SIZE \
                and on_false.dtype.kind != "O" and on_false.dtype == on_true.dtype:
            if not any(on_true.strides) and not any(on_false.strides) \
                    and which.shape == on_false.shape:
                return _select_constants(which, on_true, on_false, bits)
            return _bitwise_select(which, on_true, on_false, bits)
        return np.where(which, on_true, on_false)
    return np.choose(which, cases, mode="clip")


@select_n_p.def_abstract_eval
def _select_n_abstract_eval(which: ShapedArray, *cases: ShapedArray) -> ShapedArray:
    if not cases:
        raise ValueError("select_n called with no cases")
    first = cases[0]
    if any(c.shape != first.shape for c in cases):
        raise TypeError("select cases must have the same shapes, got "
                        f"[{', '.join(str(c.shape) for c in cases)}].")
    if any(c.dtype != first.dtype for c in cases):
        raise TypeError("select cases must have the same dtypes, got "
                        f"[{', '.join(c.dtype.name for c in cases)}].")
    if which.shape and which.shape != first.shape:
        raise TypeError(
            "select `which` must be scalar or have the same shape as cases, got `which` shape "
            f"{which.shape} but case shape {first.shape}.")
    if which.dtype != np.bool_ and not dtypes.issubdtype(which.dtype, np.integer):
        raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype}.")
    if which.dtype == np.bool_ and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    return ShapedArray(first.shape, first.dtype,
                       builtins.all(c.weak_type for c in cases))


def _select_n_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    which, *cases = primals
    out = select_n_p.bind(which, *cases)
    case_tangents = tangents[1:]
    if builtins.all(type(t) is Zero for t in case_tangents):
        return out, Zero(ad.tangent_aval(get_aval(out)))
    return out, select_n_p.bind(which, *[ad.instantiate_zeros(t) for t in case_tangents])


def _select_n_transpose(ct: Any, which: Any, *cases: Any) -> list[Any]:
    if is_undefined_primal(which):
        raise ValueError("select_n is not linear in its predicate")
    out: list[Any] = [None]
    for i, c in enumerate(cases):
        if not is_undefined_primal(c):
            out.append(None)
        elif type(ct) is Zero:
            out.append(Zero(c.aval))
        else:
            zeros = full_like(ct, 0)
            branches = [zeros] * len(cases)
            branches[i] = ct
            out.append(select_n_p.bind(which, *branches))
    return out


def _select_n_batch(args: Sequence[Any], dims: Sequence[Any]) -> tuple[Any, Any]:
    which, *cases = args
    which_dim, *case_dims = dims
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True)
                if d is not not_mapped)
    cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, case_dims,
                                                                 strict=True)]
    case_shape = get_aval(cases[0]).shape
    if which_dim is not_mapped and get_aval(which).ndim == 0:
        return select_n_p.bind(which, *cases), 0
    which = batching.bdim_at_front(which, which_dim, size)
    if get_aval(which).shape != case_shape:
        which = broadcast_in_dim(which, case_shape, tuple(range(get_aval(which).ndim)))
    return select_n_p.bind(which, *cases), 0


select_n_p.def_impl(_select_n_kernel)
select_n_p.def_broadcast_result()  # one case broadcast to the predicate's shape
select_n_p.def_jvp(_select_n_jvp)
select_n_p.def_transpose(_select_n_transpose)
select_n_p.def_batch(_select_n_batch)
select_n_p.def_lowering(ufunc_lowering(_select_n_kernel))
select_n_p.native = native_rules.select_n_rule


def select_n(which: Array, *cases: Array) -> Array:
    """`cases[which]` elementwise; a boolean `which` picks between two cases.

    >>> import numjax.numpy as jnp
    >>> select_n(jnp.array([True, False]), jnp.array([1, 2]), jnp.array([3, 4]))
    Array([3, 2], dtype=int32)
    """
    if cases and isinstance(getattr(cases[0], "dtype", None), dtypes.ExtendedDType):
        return _select_n_extended(which, cases)
    return select_n_p.bind(which, *cases)


def _select_n_extended(which: Array, cases: Sequence[Any]) -> Any:
    """Select between arrays of one extended dtype (typed keys), as JAX's select_n does: on
    their data (`_base_array`), whose trailing dimensions hold one element's data, so `which`
    is broadcast over those; the result is rewrapped (`_wrap`) as an array of that dtype."""
    dtype = cases[0].dtype
    if any(getattr(c, "dtype", None) != dtype for c in cases):
        names = ", ".join(str(getattr(c, "dtype", None)) for c in cases)
        raise TypeError(f"select_n requires all cases to have the same dtype, got {names}.")
    data = [c._base_array for c in cases]
    which_shape = get_aval(which).shape
    rank = len(which_shape)
    if rank and which_shape != cases[0].shape:
        raise TypeError("select `which` must be scalar or have the same shape as cases, got "
                        f"`which` shape {which_shape} but case shape {cases[0].shape}.")
    if rank:
        which = broadcast_in_dim(which, get_aval(data[0]).shape, tuple(range(rank)))
    return cases[0]._wrap(select_n_p.bind(which, *data))


def select(pred: Array, on_true: Array, on_false: Array) -> Array:
    """`on_true` where `pred`, else `on_false`."""
    if isinstance(getattr(on_true, "dtype", None), dtypes.ExtendedDType):
        return _select_n_extended(pred, (on_false, on_true))
    return select_n_p.bind(pred, on_false, on_true)


# ---- iota ----------------------------------------------------------------------------------

iota_p = Primitive("iota")


def _iota_kernel(*, dtype: np.dtype, shape: Shape, dimension: int) -> Any:
    ramp = np.arange(shape[dimension], dtype=dtype)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return broadcasted(ramp.reshape(view), shape)


@iota_p.def_abstract_eval
def _iota_abstract_eval(*, dtype: np.dtype, shape: Shape, dimension: int) -> ShapedArray:
    if not dtypes.issubdtype(dtype, np.number):
        raise TypeError(f"iota does not accept dtype {np.dtype(dtype).name}. Accepted dtypes "
                        "are subtypes of integer, floating, complexfloating.")
    if any(d < 0 for d in shape):
        raise TypeError(f"iota shape must have every element be nonnegative, got {tuple(shape)}.")
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be between 0 and len(shape), got "
                         f"dimension={dimension} for shape {shape}")
    return ShapedArray(shape, dtype)


iota_p.def_impl(_iota_kernel)
iota_p.native = native_structural.iota_rule
iota_p.def_broadcast_result()  # a ramp broadcast along the other axes


def iota(dtype: Any, size: int) -> Array:
    """`[0, 1, ..., size-1]` of `dtype`."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Array:
    """An array of `shape` whose values count 0, 1, ... along `dimension`."""
    dtype = dtypes.canonicalize_dtype(dtype)
    shape = _shape_tuple("broadcasted_iota", shape)
    return iota_p.bind(dtype=dtype, shape=shape, dimension=int(dimension))


# iota has no operands: no transformation ever reaches it with a tracer, so neither a jvp nor a
# batching rule can apply (its output is a constant to every trace).
iota_p.declare_undefined("jvp", "iota has no operands to differentiate")
iota_p.declare_undefined("batch", "iota has no operands to batch")


# ---- concatenate / slice -------------------------------------------------------------------

concatenate_p = Primitive("concatenate")


def _concatenate_kernel(*operands: Any, dimension: int) -> Any:
    return np.concatenate(operands, axis=dimension)


@concatenate_p.def_abstract_eval
def _concatenate_abstract_eval(*operands: ShapedArray, dimension: int) -> ShapedArray:
    if not operands:
        raise TypeError("concatenate requires a non-empty sequence of operands")
    first = operands[0]
    if len({o.ndim for o in operands}) != 1:
        raise TypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                        f"{', '.join(str(o.shape) for o in operands)}.")
    if not 0 <= dimension < first.ndim:
        raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for "
                        f"shapes {', '.join(str(o.shape) for o in operands)}.")
    for o in operands:
        if o.ndim != first.ndim or any(a != b for i, (a, b) in enumerate(
                zip(o.shape, first.shape, strict=True)) if i != dimension):
            raise TypeError(
                "Cannot concatenate arrays with shapes that differ in dimensions other than "
                f"the one being concatenated: concatenating along dimension {dimension} for "
                f"shapes {', '.join(str(o.shape) for o in operands)}.")
        if o.dtype != first.dtype:
            raise TypeError("Cannot concatenate arrays with different dtypes: "
                            f"{', '.join(o.dtype.name for o in operands)}.")
    size = builtins.sum(o.shape[dimension] for o in operands)
    shape = first.shape[:dimension] + (size,) + first.shape[dimension + 1:]
    return ShapedArray(shape, first.dtype, builtins.all(o.weak_type for o in operands))


def _concatenate_transpose(ct: Any, *operands: Any, dimension: int) -> list[Any]:
    out: list[Any] = []
    start = 0
    for o in operands:
        size = (o.aval if is_undefined_primal(o) else get_aval(o)).shape[dimension]
        if is_undefined_primal(o):
            out.append(Zero(o.aval) if type(ct) is Zero else
                       slice_in_dim(ct, start, start + size, axis=dimension))
        else:
            out.append(None)
        start += size
    return out


def _concatenate_batch(args: Sequence[Any], dims: Sequence[Any], *,
                       dimension: int) -> tuple[Any, Any]:
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True)
                if d is not not_mapped)
    operands = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims, strict=True)]
    return concatenate_p.bind(*operands, dimension=dimension + 1), 0


concatenate_p.def_impl(_concatenate_kernel)
ad.linear_jvp(concatenate_p)
concatenate_p.def_transpose(_concatenate_transpose)
concatenate_p.def_batch(_concatenate_batch)
concatenate_p.native = native_structural.concatenate_rule


def concatenate(operands: Sequence[Array], dimension: int) -> Array:
    """Join arrays along `dimension`."""
    if extended.any_extended(operands):  # typed PRNG keys
        return extended.rule("lax.concatenate")(operands, dimension)
    operands = list(operands)
    if len(operands) == 1 and isinstance(operands[0], (Tracer, *_array_types())):
        return operands[0]
    return concatenate_p.bind(*operands, dimension=int(dimension))


slice_p = Primitive("slice")


def _slice_kernel(x: Any, *, start_indices: Shape, limit_indices: Shape,
                  strides: Shape | None) -> Any:
    steps = strides or (1,) * len(start_indices)
    return np.asarray(x)[tuple(builtins.slice(s, e, st) for s, e, st in
                               zip(start_indices, limit_indices, steps, strict=True))]


@slice_p.def_abstract_eval
def _slice_abstract_eval(x: ShapedArray, *, start_indices: Shape, limit_indices: Shape,
                         strides: Shape | None) -> ShapedArray:
    # JAX's checks, in its order and with its texts.
    for what, dims in (("start_indices", start_indices), ("limit_indices", limit_indices)):
        if any(d < 0 for d in dims):
            raise TypeError(f"slice {what} must have every element be nonnegative, got "
                            f"{dims}.")
    if len(start_indices) != x.ndim:
        raise TypeError(
            "slice start_indices must have length equal to the number of dimensions of the "
            f"operand, got indices {start_indices} for operand shape {x.shape}.")
    if len(limit_indices) != len(start_indices):
        raise TypeError("slice limit_indices must have the same length as start_indices, got "
                        f"start_indices {start_indices} and limit_indices {limit_indices}.")
    if any(e > d for e, d in zip(limit_indices, x.shape, strict=True)):
        raise TypeError("slice limit_indices must be less than or equal to operand shape, got "
                        f"limit_indices {limit_indices} for operand shape {x.shape}.")
    if any(s < 0 for s in start_indices):
        raise TypeError("slice start_indices must be greater than or equal to zero, got "
                        f"start_indices of {start_indices}.")
    if any(e < s for s, e in zip(start_indices, limit_indices, strict=True)):
        raise TypeError("slice limit_indices must be greater than or equal to start_indices, "
                        f"got start_indices {start_indices} and limit_indices "
                        f"{limit_indices}.")
    if strides is not None and any(st < 0 for st in strides):
        raise TypeError(f"slice strides must have every element be nonnegative, got "
                        f"{strides}.")
    if strides is not None and len(strides) != x.ndim:
        raise TypeError("slice strides must have length equal to the number of dimensions of "
                        f"the operand, got strides {strides} for operand shape {x.shape}.")
    steps = strides or (1,) * x.ndim
    if any(st == 0 for st in steps):
        raise TypeError(f"slice strides must be positive, got {strides}")
    shape = [0 if e == s else (e - s - 1) // st + 1
             for s, e, st in zip(start_indices, limit_indices, steps, strict=True)]
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _slice_transpose(ct: Any, x: Any, *, start_indices: Shape, limit_indices: Shape,
                     strides: Shape | None) -> list[Any]:
    aval = x.aval
    if type(ct) is Zero:
        return [Zero(aval)]
    from numjax._src.lax.padding import pad
    steps = strides or (1,) * aval.ndim
    out_shape = get_aval(ct).shape
    config = []
    for s, st, d, n in zip(start_indices, steps, aval.shape, out_shape, strict=True):
        used = s + (n - 1) * st + 1 if n else s
        config.append((s, d - used, st - 1 if n else 0))
    return [pad(ct, lax_zero(ct), tuple(config))]


def lax_zero(x: Array) -> Any:
    return np.zeros((), get_aval(x).dtype)[()]


def _slice_batch(args: Sequence[Any], dims: Sequence[Any], *, start_indices: Shape,
                 limit_indices: Shape, strides: Shape | None) -> tuple[Any, Any]:
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    size = get_aval(x).shape[0]
    return slice_p.bind(x, start_indices=(0, *start_indices),
                        limit_indices=(size, *limit_indices),
                        strides=None if strides is None else (1, *strides)), 0


slice_p.def_impl(_slice_kernel)


@slice_p.def_kernel_factory
def _slice_kernel_factory(in_avals: Any, *, start_indices: Shape, limit_indices: Shape,
                          strides: Shape | None) -> Any:
    # The index tuple built once per executable, not per call (the eager-op budget).
    steps = strides or (1,) * len(start_indices)
    index = tuple(builtins.slice(s, e, st) for s, e, st in
                  zip(start_indices, limit_indices, steps, strict=True))
    return lambda x: x[index]


ad.linear_jvp(slice_p)
slice_p.def_transpose(_slice_transpose)
slice_p.def_batch(_slice_batch)
slice_p.native = native_structural.slice_rule


def slice(operand: Array, start_indices: Sequence[int], limit_indices: Sequence[int],
          strides: Sequence[int] | None = None) -> Array:
    """The static slice `operand[start:limit:stride]` in every dimension."""
    if isinstance(operand, extended.array_types):  # typed PRNG keys
        return extended.rule("lax.slice")(operand, start_indices, limit_indices, strides)
    starts = tuple(int(i) for i in start_indices)
    if transfer_guard._in_use and strides is None:
        # Run eagerly without strides, JAX's slice is a dynamic_slice whose start indices are
        # placed on the device (given strides, even unit ones, it stays a slice).
        for start in starts:
            transfer_guard.library_constant(start, np.int32)
    return slice_p.bind(operand, start_indices=starts,
                        limit_indices=tuple(int(i) for i in limit_indices),
                        strides=None if strides is None else tuple(int(s) for s in strides))


def operand_shape(x: Any, attribute: str | None = None) -> tuple[int, ...]:
    """The shape of a lax function's operand (`operand_aval`'s errors); a typed key array's
    is its own, without its key data's dimensions."""
    if isinstance(x, extended.array_types):
        return tuple(x.shape)  # type: ignore[attr-defined]
    return operand_aval(x, attribute).shape  # type: ignore[no-any-return]


def slice_in_dim(operand: Array, start_index: int | None, limit_index: int | None,
                 stride: int = 1, axis: int = 0) -> Array:
    """`operand[start_index:limit_index:stride]` along `axis` (None: the start or end)."""
    shape = operand_shape(operand, "ndim")
    axis = int(axis) % len(shape)
    start = [0] * len(shape)
    limit = list(shape)
    strides = [1] * len(shape)
    size = shape[axis]
    s = 0 if start_index is None else int(start_index)
    e = size if limit_index is None else int(limit_index)
    start[axis] = s + size if s < 0 else s
    limit[axis] = e + size if e < 0 else e
    strides[axis] = int(stride)
    return slice(operand, start, limit, strides)


def index_in_dim(operand: Array, index: int, axis: int = 0, keepdims: bool = True) -> Array:
    """The slice of `operand` at `index` (negative: from the end) along `axis`, which
    is kept with size 1 when `keepdims`."""
    shape = operand_shape(operand, "shape")
    axis = int(axis) % len(shape)
    index = int(index) + shape[axis] if int(index) < 0 else int(index)
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


# ---- stop_gradient -------------------------------------------------------------------------

stop_gradient_p = Primitive("stop_gradient")
stop_gradient_p.def_impl(lambda x: x)
stop_gradient_p.def_abstract_eval(lambda x: x)
ad.defjvp_zero(stop_gradient_p)
stop_gradient_p.def_batch(batching.vectorized_batch(stop_gradient_p))


def stop_gradient(x: Any) -> Any:
    """`x`, as a constant to differentiation (its tangent and cotangent are zero).

    >>> import numjax
    >>> numjax.grad(lambda x: stop_gradient(x) * x)(3.0)
    Array(3., dtype=float32, weak_type=True)
    """

    def stop(leaf: Any) -> Any:
        aval = get_aval(leaf)
        if not dtypes.issubdtype(aval.dtype, np.inexact):
            return leaf  # integers and booleans have no tangents anyway
        if not isinstance(leaf, Tracer) and type(current_trace()) is EvalTrace:
            # JAX's eager stop_gradient returns its operand itself (a Python float stays one).
            return leaf
        return stop_gradient_p.bind(leaf)

    return tree_map(stop, x)


# ---- copy ----------------------------------------------------------------------------------

# What jnp's `copy=True` stages (`jnp.array(x, copy=True)`, `jnp.copy`, `astype(copy=True)`):
# a value equal to its operand in a buffer of its own, kept in jaxprs as JAX keeps it, so that
# under jvp, vjp and vmap the result is a new Array too. Linear: tangents and cotangents are
# copied.
copy_p = Primitive("copy")
copy_p.def_impl(lambda x: np.array(x, copy=True))
copy_p.def_abstract_eval(lambda x: x)
ad.linear_jvp(copy_p)
copy_p.def_transpose(lambda ct, x: [Zero(x.aval) if type(ct) is Zero else copy_p.bind(ct)])
copy_p.def_batch(batching.vectorized_batch(copy_p))
# Inside a compiled program values are never written in place, so the copy is the value itself
# (a program's results get buffers of their own anyway); run alone it copies.
copy_p.is_identity = lambda params, aval: True


# ---- shape helpers (lax.broadcast_shapes, collapse, zeros_like_array) -------------------------


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape NumPy's broadcasting gives `shapes`.

    >>> broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    checked = [_static_shape(s) for s in shapes]
    try:
        return tuple(np.broadcast_shapes(*checked))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}") from None


def _static_shape(shape: Any) -> tuple[int, ...]:
    """`shape` as a tuple of Python ints; JAX's TypeErrors for anything else or a negative."""
    try:
        if isinstance(shape, str | bytes):
            raise TypeError
        dims = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {shape}.") from None
    if any(d < 0 for d in dims):
        raise TypeError("Only non-negative indices are allowed when broadcasting static "
                        f"shapes, but got shape {shape!r}.")
    return dims


def collapse(operand: Array, start_dimension: int, stop_dimension: int | None = None) -> Array:
    """`operand` with dimensions [start_dimension, stop_dimension) merged into one.

    >>> import numjax.numpy as jnp
    >>> collapse(jnp.ones((2, 3, 4)), 0, 2).shape
    (6, 4)
    """
    shape = operand_aval(operand).shape
    lo = start_dimension % len(shape) if shape else start_dimension
    hi = len(shape) if stop_dimension is None else stop_dimension
    size = 1
    for d in shape[lo:hi]:
        size *= d
    return reshape(operand, (*shape[:lo], size, *shape[hi:]))


def zeros_like_array(x: Array) -> Array:
    """Zeros of `x`'s shape and dtype (its weak type kept)."""
    return full_like(x, 0)
