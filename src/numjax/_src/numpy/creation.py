"""Array creation: array/asarray, zeros/ones/full/empty and their _like forms, ranges, eye."""

from __future__ import annotations

import operator
import types
import warnings
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core import errors, extended
from numjax._src.core.avals import ShapedArray, get_aval, is_masked_array
from numjax._src.core.trace import Tracer
from numjax._src.interpreters import staging
from numjax._src.lax import lax
from numjax._src.lax.structural import (
    convert_element_type_p,
    copy_p,
    guard_fill_transfer,
    like_sharding,
    placed,
)
from numjax._src.numpy.shape import broadcast_arrays, broadcast_to, invalid_shape_error, stack
from numjax._src.numpy.ufuncs import log10, power, sign
from numjax._src.numpy.util import check_arraylike
from numjax._src.runtime import devices, host_memory, transfer_guard
from numjax._src.runtime.array import ArrayImpl, copied
from numjax._src.runtime.devices import Device
from numjax._src.runtime.sharding import SingleDeviceSharding
from numjax._src.typing import Array


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int | np.integer):
        return (int(shape),)
    if not isinstance(shape, str | bytes):
        try:
            return tuple(operator.index(d) for d in shape)
        except TypeError:
            pass
    # As JAX: a value NumPy sees as a scalar is a one-dimensional shape, `(shape,)`.
    if not isinstance(shape, list | tuple) and np.ndim(shape) == 0:
        return (_dim(shape),)
    raise invalid_shape_error(shape) from None


def _dim(d: Any, context: str = "") -> int:
    try:
        return operator.index(d)
    except TypeError:
        raise invalid_shape_error((d,), context) from None


def _dtype(dtype: Any, fun_name: str) -> np.dtype | None:
    if dtype is None:
        return None
    dtypes.check_user_dtype_supported(dtype, fun_name)
    return dtypes.canonicalize_dtype(dtype)


def array(object: Any, dtype: Any = None, copy: bool = True, order: str | None = "K",
          ndmin: int = 0) -> Array:
    """Create an Array from an array-like: Python scalars, (nested) sequences, NumPy values.

    >>> array([1, 2, 3])
    Array([1, 2, 3], dtype=int32)
    >>> array(2.0)
    Array(2., dtype=float32, weak_type=True)
    """
    if isinstance(object, extended.array_types):
        # Before the dtype check: a key array's own (extended) dtype is a valid request.
        return extended.rule("array")(object, dtype, ndmin)
    requested = _dtype(dtype, "array")
    if type(object) is np.ndarray and object.dtype == dtypes.float0 and requested in (
            None, dtypes.float0):
        # As in JAX, a float0 value (an integer's cotangent) stays a NumPy array.
        return np.zeros(object.shape, dtypes.float0)  # type: ignore[return-value]
    if isinstance(object, ArrayImpl | Tracer):
        # A traced copy is JAX's `copy`, before any conversion. (`object` itself is never
        # reassigned: the transfer guard reads the caller's arguments from it.)
        source = copy_p.bind(object) if copy and isinstance(object, Tracer) else object
        out = source if requested is None else lax._convert_element_type(
            source, requested, False)
        if out is source and _over_host_value(source):
            aval = get_aval(source)
            out = convert_element_type_p.bind(source, new_dtype=aval.dtype,
                                              weak_type=aval.weak_type)
        if copy and out is object and isinstance(object, ArrayImpl):
            out = copied(object)
    elif hasattr(object, "__jax_array__"):
        return array(object.__jax_array__(), dtype, copy, order, ndmin)
    elif isinstance(object, list | tuple) and _contains_tracers(object):
        out = stack([array(o, requested, copy=False) for o in object])
        if isinstance(out, extended.array_types):  # a sequence of key arrays
            return array(out, None, False, order, ndmin)
        # A sequence is never weakly typed, whatever its elements are.
        out = lax._convert_element_type(out, requested or get_aval(out).dtype, False)
    elif (not copy and isinstance(object, np.ndarray) and ndmin <= object.ndim
          and (requested is None or requested == object.dtype)):
        # Placed on the device as it is: an explicit transfer, as in JAX (`device_put`).
        try:
            out = _from_host(object, requested, explicit=True)
        except TypeError:
            dtypes.check_valid_dtype(object.dtype)  # device_put's text for a string array
            raise
    else:
        out = _from_host(object, requested)
    if ndmin > get_aval(out).ndim:
        out = lax.broadcast_to_rank(out, ndmin)
    if type(out) is ArrayImpl and out is not object:
        out = staging.stage_constant(out)
    return out


def _contains_tracers(seq: Any) -> bool:
    for item in seq:
        if (isinstance(item, Tracer | ArrayImpl) or isinstance(item, extended.array_types)
                or hasattr(type(item), "__jax_array__")):
            return True
        if isinstance(item, list | tuple) and _contains_tracers(item):
            return True
    return False


def _from_host(obj: Any, dtype: np.dtype | None, explicit: bool = False) -> ArrayImpl:
    """Copy a host value into a new Array: a host-to-device transfer."""
    if is_masked_array(obj):
        get_aval(obj)  # JAX's ValueError: its mask would be dropped
    weak = dtype is None and type(obj) in (int, float, complex)
    if dtype is None:
        try:
            dtype = _host_dtype(obj)
        except (TypeError, ValueError):
            dtype = _host_dtype_slow(obj)
        if type(obj) is int and dtype.kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= obj <= info.max:
                raise OverflowError(f"Python int {obj} too large to convert to {dtype.name}")
    # With a dtype given, an out-of-range Python int is NumPy's to judge, as in JAX:
    # jnp.array(300, jnp.int8) wraps to 44 with NumPy 1's DeprecationWarning and is NumPy 2's
    # OverflowError.
    value = np.array(obj, dtype=dtype, copy=True)
    if explicit:  # a device_put to the default device, named as JAX names it
        transfer_guard.host_to_device(obj, dtype, device=devices.default_device(), explicit=True)
    elif transfer_guard._in_use:
        transfer_guard.host_operand(obj, dtype)
    return ArrayImpl(value, weak)


def _host_dtype(obj: Any) -> np.dtype:
    if isinstance(obj, list | tuple):
        leaves = list(_flatten(obj))
        if leaves and all(isinstance(x, ArrayImpl) for x in leaves):
            return dtypes.result_type(*leaves)
        if any(x is None for x in leaves):
            return _host_dtype_slow(obj)  # None is NaN, with JAX's FutureWarning
        return dtypes.canonicalize_dtype(dtypes.result_type(*leaves)) if leaves \
            else dtypes.default_float_dtype()
    return dtypes.canonicalize_dtype(dtypes.dtype(obj))


def _host_dtype_slow(obj: Any) -> np.dtype:
    """The dtype of a value whose leaves do not all have one, as JAX's `jnp.array` reads it:
    None is NaN (with JAX's FutureWarning), and another leaf without a dtype is read through
    NumPy, so that a string or an object fails with its NumPy dtype ("Value 'abc' with dtype
    <U3 is not a valid JAX array type...")."""
    leaves = list(_tree_leaves(obj))
    if any(x is None for x in leaves):
        warnings.warn("None encountered in jnp.array(); this is currently treated as NaN. In "
                      "the future this will result in an error.", FutureWarning, stacklevel=5)
        leaves = [x for x in leaves if x is not None]
    if not leaves:
        return dtypes.default_float_dtype()
    read = []
    for x in leaves:
        try:
            dtypes.dtype(x)
            read.append(x)
        except TypeError:
            read.append(np.asarray(x))
    return dtypes.canonicalize_dtype(dtypes.result_type(*read))


def _tree_leaves(x: Any) -> Any:
    """The leaves of `x` as JAX's `jnp.array` reads them: dict values too."""
    if isinstance(x, list | tuple | dict):
        for item in x.values() if isinstance(x, dict) else x:
            yield from _tree_leaves(item)
    else:
        yield x


def _flatten(seq: Any) -> Any:
    for item in seq:
        if isinstance(item, list | tuple):
            yield from _flatten(item)
        else:
            yield item


def asarray(a: Any, dtype: Any = None, order: str | None = None, *,
            copy: bool | None = None) -> Array:
    """Like `array`, without copying an Array that already has the requested dtype."""
    if (isinstance(a, ArrayImpl | Tracer) and dtype is None and not copy
            and not _over_host_value(a)):
        return a
    return array(a, dtype=dtype, copy=bool(copy))


def _over_host_value(x: Any) -> bool:
    """A tracer whose concrete value is a Python or NumPy value, not an Array (jvp at Python
    numbers): as in JAX, jnp.array/asarray convert it, so its value becomes an Array."""
    return isinstance(x, Tracer) and not isinstance(x.to_concrete_value(), ArrayImpl | None)


@transfer_guard.places_constants
def zeros(shape: Any, dtype: Any = None, *, device: Any = None) -> Array:
    """An array of zeros (on `device`, a Device or a Sharding, when given).

    >>> zeros((2,))
    Array([0., 0.], dtype=float32)
    """
    _check_shape_argument("zeros", shape, dtype)
    dtype = _dtype(dtype, "zeros") or dtypes.default_float_dtype()  # checked first, as in JAX
    return lax.full(_shape(shape), 0, dtype, sharding=_sharding(device))


@transfer_guard.places_constants
def ones(shape: Any, dtype: Any = None, *, device: Any = None) -> Array:
    _check_shape_argument("ones", shape, dtype)
    shape = _shape(shape)  # checked before the dtype, as in JAX (zeros checks the dtype first)
    return lax.full(shape, 1, _dtype(dtype, "ones") or dtypes.default_float_dtype(),
                    sharding=_sharding(device))


@transfer_guard.places_constants
def empty(shape: Any, dtype: Any = None, *, device: Any = None) -> Array:
    _check_shape_argument("empty", shape, dtype)
    return zeros(shape, dtype, device=device)


def _check_shape_argument(name: str, shape: Any, dtype: Any) -> None:
    """JAX's errors for a generator shape and for `zeros(2, 3)` (the 3 taken as the dtype)."""
    if isinstance(shape, types.GeneratorType):
        raise TypeError("expected sequence object with len >= 0 or a single integer")
    if isinstance(dtype, int) and isinstance(shape, int):
        raise TypeError(f"Cannot interpret '{dtype}' as a data type.\n\nDid you accidentally "
                        f"write `jax.numpy.{name}({shape}, {dtype})` when you meant "
                        f"`jax.numpy.{name}(({shape}, {dtype}))`, i.e. with a single tuple "
                        "argument for the shape?")


@transfer_guard.places_constants
def full(shape: Any, fill_value: Any, dtype: Any = None, *, device: Any = None) -> Array:
    dtype = _dtype(dtype, "full")
    check_arraylike("full", fill_value)
    if np.ndim(fill_value) if not isinstance(fill_value, Tracer) else get_aval(fill_value).ndim:
        return placed(broadcast_to(asarray(fill_value, dtype), _shape(shape)),
                          _sharding(device))
    return lax.full(_shape(shape), fill_value, dtype, sharding=_sharding(device))


def _sharding(device: Any) -> Any:
    """A Device as its SingleDeviceSharding (JAX's creation functions take either)."""
    return SingleDeviceSharding(device) if isinstance(device, Device) else device


def _like(a: Array, dtype: Any, shape: Any, name: str
          ) -> tuple[np.dtype, tuple[int, ...], bool]:
    try:
        aval = get_aval(a)
    except TypeError:
        if _duck_typed(a):  # as JAX: its shape and dtype, strongly typed
            return (_dtype(a.dtype if dtype is None else dtype, "like"),  # type: ignore
                    tuple(a.shape) if shape is None else _shape(shape), False)
        check_arraylike(name, a)
        dtypes.dtype(a)  # JAX reads the dtype next: "Cannot determine dtype of abc"
        raise
    weak = dtype is None and aval.weak_type
    return (aval.dtype if dtype is None else _dtype(dtype, "like"),  # type: ignore[return-value]
            aval.shape if shape is None else _shape(shape), weak)


def _duck_typed(a: Any) -> bool:
    """An object *_like reads by its `shape` and `dtype` (a ShapeDtypeStruct) when it is not
    an array."""
    return (hasattr(a, "shape") and hasattr(a, "dtype")
            and not isinstance(a, np.ndarray | np.generic))


@transfer_guard.places_constants
def zeros_like(a: Array, dtype: Any = None, shape: Any = None, *,
               device: Any = None) -> Array:
    dt, shp, weak = _like(a, dtype, shape, "zeros_like")
    if dt == dtypes.float0:
        return np.zeros(shp, dtypes.float0)  # type: ignore[return-value]  # as in JAX
    return _filled_like(a, 0, dt, shp, weak, device)


@transfer_guard.places_constants
def ones_like(a: Array, dtype: Any = None, shape: Any = None, *, device: Any = None) -> Array:
    dt, shp, weak = _like(a, dtype, shape, "ones_like")
    return _filled_like(a, 1, dt, shp, weak, device)


@transfer_guard.places_constants
def empty_like(a: Array, dtype: Any = None, shape: Any = None, *,
               device: Any = None) -> Array:
    dt, shp, weak = _like(a, dtype, shape, "empty_like")
    return _filled_like(a, 0, dt, shp, weak, device)


@transfer_guard.places_constants
def full_like(a: Array, fill_value: Any, dtype: Any = None, shape: Any = None, *,
              device: Any = None) -> Array:
    check_arraylike("full_like", 0 if _duck_typed(a) else a, fill_value)
    dt, shp, weak = _like(a, dtype, shape, "full_like")
    if np.ndim(fill_value) if not isinstance(fill_value, Tracer) else get_aval(fill_value).ndim:
        guard_fill_transfer(fill_value, dt)
        # An array fill value is broadcast to the shape by NumPy's rules, as `full` does, and
        # the result is strong (JAX converts the value with `asarray` first).
        return placed(broadcast_to(asarray(fill_value, dt), shp), _sharding(device))
    return _filled_like(a, fill_value, dt, shp, weak, device)


def _filled_like(a: Any, fill_value: Any, dt: Any, shape: tuple[int, ...], weak: bool,
                 device: Any) -> Array:
    """lax.full_like's value and placement: on `device`, else on `a`'s devices when `a` is a
    committed Array of the result's shape and the result is strong."""
    guard_fill_transfer(fill_value, dt)
    out = lax.broadcast(lax._convert_element_type(fill_value, dt, weak), shape)
    return placed(out, like_sharding(a, _sharding(device), weak, shape))


@transfer_guard.places_constants
def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Array:
    """Evenly spaced values in [start, stop); the bounds must be concrete.

    >>> arange(3)
    Array([0, 1, 2], dtype=int32)
    """
    # arange(n) names its one bound 'stop', as JAX does.
    first = "stop" if stop is None and step is None else "start"
    for name, v in ((first, start), ("stop", stop), ("step", step)):
        if isinstance(v, Tracer):
            raise errors.ConcretizationTypeError(
                v, f"It arose in the jnp.arange argument '{name}'\n")
    dtype = _dtype(dtype, "arange")
    check_arraylike("arange", start)
    start_name = "stop" if stop is None and step is None else "start"
    for name, v in ((start_name, start), ("stop", stop), ("step", step)):
        if v is not None and not isinstance(v, int) and np.ndim(v) != 0:
            raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={v}")
    if stop is None and step is None:
        result_dtype = dtype or dtypes.canonicalize_dtype(dtypes.result_type(start))
        # Made on the device (no host values to transfer), as in JAX.
        return lax.iota(result_dtype, int(np.ceil(start)))
    if step is None and np.ndim(start) == 0 and start == 0:
        result_dtype = dtype or dtypes.canonicalize_dtype(dtypes.result_type(start, stop))
        return lax.iota(result_dtype, int(np.ceil(stop)))
    if step is not None and np.all(np.asarray(step) == 0):
        raise ZeroDivisionError("division by zero")  # JAX's error for a zero step
    # Positionally, as NumPy reads them: arange(3, None, 1) counts to 3 (a missing stop is
    # not skipped, which would read the step as the stop).
    bounds = [None if v is None else np.asarray(v) for v in (start, stop, step)]
    result_dtype = dtype or dtypes.canonicalize_dtype(dtypes.result_type(
        *(v for v in (start, stop, step) if v is not None)))
    # NumPy computes in the result dtype, as JAX has it do: float16 steps accumulate in
    # float16 (jnp.arange(0., 4., .3, dtype=float16)[9] is 2.701171875).
    values = np.arange(*bounds, dtype=result_dtype)  # type: ignore[call-overload]
    # Computed on the host and placed on the device, as in JAX (only iota is made on device).
    transfer_guard.library_constant(values, values.dtype)
    return array(values)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: Any = None, axis: int = 0) -> Any:
    """`num` evenly spaced values from `start` to `stop` (array endpoints broadcast; the new
    axis goes at `axis`). Start and stop may be traced.

    >>> linspace(0, 1, 3)
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    import operator
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dtype = _dtype(dtype, "linspace")
    check_arraylike("linspace", start, stop)
    # A given dtype is the computation's (made inexact), as in JAX: start and stop are not
    # promoted with it (no promotion error under jax_numpy_dtype_promotion='strict').
    computation = dtypes.to_inexact_dtype(dtypes.canonicalize_dtype(
        dtypes.result_type(start, stop) if dtype is None else dtype))
    start_a, stop_a = broadcast_arrays(lax._convert_element_type(start, computation),
                                       lax._convert_element_type(stop, computation))
    bshape = get_aval(start_a).shape
    ax = len(bshape) + axis + 1 if axis < 0 else axis
    shape = (*bshape[:ax], num, *bshape[ax:])
    dims = tuple(i for i in range(len(shape)) if i != ax)
    div = (num - 1) if endpoint else num
    if num > 1:
        # JAX's interpolation start * (1 - t) + stop * t, t = i / div. JAX compiles linspace,
        # and XLA makes each division by the constant div a product with its reciprocal
        # (t = iota * (1/div), folded to a constant; the step (stop - start) * (1/div)).
        real = np.dtype(dtypes.finfo(computation).dtype)
        recip_t = np.reciprocal(np.asarray(div, real))
        t = (np.arange(div).astype(real) * recip_t).astype(computation)
        t_shape = tuple(div if i == ax else 1 for i in range(len(shape)))
        t_arr = lax._convert_element_type(t.reshape(t_shape), computation)
        one_minus_t = lax._convert_element_type((1 - t).reshape(t_shape), computation)
        head = tuple(div if i == ax else d for i, d in enumerate(shape))
        lo = lax.broadcast_in_dim(start_a, head, dims)
        hi = lax.broadcast_in_dim(stop_a, head, dims)
        out = lax.add(lax.mul(lo, one_minus_t), lax.mul(hi, t_arr))
        if endpoint:
            last = lax.broadcast_in_dim(stop_a, tuple(1 if i == ax else d
                                                      for i, d in enumerate(shape)), dims)
            out = lax.concatenate([out, last], ax)
        recip = lax._convert_element_type(np.reciprocal(np.asarray(div, computation)),
                                          computation)
        step = lax.mul(lax.sub(stop_a, start_a), recip)
    else:
        out = lax.broadcast_in_dim(start_a, shape, dims) if num else lax.full(shape, 0,
                                                                             computation)
        step = lax.sub(stop_a, start_a) if num == 1 and not endpoint else \
            lax.full(bshape, np.nan, computation)
    result_dtype = dtype or computation
    if result_dtype.kind in "iu":
        out = lax.floor(out)
    out = lax.convert_element_type(out, result_dtype)
    if retstep:
        return out, lax.convert_element_type(step, result_dtype if result_dtype.kind in "fc"
                                             else computation)
    return out


@transfer_guard.places_constants
def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Array:
    dtype = _dtype(dtype, "eye") or dtypes.default_float_dtype()
    check_arraylike("eye", k)
    N = _dim(N, "'N' argument of jnp.eye()")
    M = None if M is None else _dim(M, "'M' argument of jnp.eye()")
    if N < 0 or (M is not None and M < 0):
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    if isinstance(k, Tracer) and k.to_concrete_value() is None:
        # A diagonal known only at run time: compare iotas shifted by it, as JAX always does.
        k_aval = get_aval(k)
        if k_aval.shape != () or not dtypes.issubdtype(k_aval.dtype, np.integer):
            raise ValueError(f"k must be a scalar integer; got {k}")
        shape = (N, N if M is None else M)
        rows = lax.broadcasted_iota(k_aval.dtype, shape, 0)
        cols = lax.broadcasted_iota(k_aval.dtype, shape, 1)
        return lax._convert_element_type(lax.eq(lax.add(rows, k), cols), dtype, False)
    # JAX compares iotas shifted by k op by op: k is placed on the device.
    transfer_guard.library_constant(k, np.int32)
    too_big = host_memory.oversized([ShapedArray((N, N if M is None else M), np.dtype(dtype))])
    if too_big:
        raise host_memory.out_of_memory(too_big)  # JAX's error, before NumPy's MemoryError
    return array(np.eye(N, M, k, dtype=dtype))


@transfer_guard.places_constants
def identity(n: int, dtype: Any = None) -> Array:
    return eye(n, dtype=dtype)


# ---- grids, triangles and diagonals --------------------------------------------------------


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Array:
    """`base ** linspace(start, stop, num)`.

    >>> logspace(0, 2, 3)
    Array([  1.,  10., 100.], dtype=float32)
    """
    dtype = _dtype(dtype, "logspace")
    computation = dtypes.to_inexact_dtype(dtypes.canonicalize_dtype(
        dtypes.result_type(start, stop)))
    lin = linspace(start, stop, num, endpoint=endpoint, dtype=computation, axis=axis)
    out = power(lax._convert_element_type(base, computation), lin)
    return lax.convert_element_type(out, dtype) if dtype is not None else out


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Array:
    """Numbers evenly spaced on a log scale from `start` to `stop` (same sign; zero gives NaN,
    as in JAX).

    >>> geomspace(1, 1000, 4)
    Array([   1.,   10.,  100., 1000.], dtype=float32)
    """
    dtype = _dtype(dtype, "geomspace")
    computation = dtypes.to_inexact_dtype(dtypes.canonicalize_dtype(
        dtypes.result_type(start, stop)))
    start_a = lax._convert_element_type(start, computation)
    stop_a = lax._convert_element_type(stop, computation)
    # Same-sign endpoints: the sign factors out; opposite signs give NaN via log10 < 0.
    signflip = sign(start_a)
    lo, hi = log10(lax.mul(start_a, signflip)), log10(lax.mul(stop_a, signflip))
    out = logspace(lo, hi, num, endpoint=endpoint, base=10.0, dtype=computation, axis=axis)
    shape = get_aval(out).shape
    out = lax.mul(out, lax.broadcast_in_dim(signflip, shape, tuple(
        i for i in range(len(shape)) if i != (axis % len(shape)))))
    return lax.convert_element_type(out, dtype) if dtype is not None else out


def meshgrid(*xi: Array, copy: bool = True, sparse: bool = False,
             indexing: str = "xy") -> list[Array]:
    """Coordinate arrays from 1-d coordinate vectors ('xy': Cartesian, 'ij': matrix).

    >>> [g.shape for g in meshgrid(arange(2), arange(3))]
    [(3, 2), (3, 2)]
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    check_arraylike("meshgrid", *xi)
    args = [asarray(x) for x in xi]
    for a in args:
        if get_aval(a).ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shape "
                             f"{get_aval(a).shape}")
    sizes = [get_aval(a).shape[0] for a in args]
    ndim = len(args)
    if indexing == "xy" and ndim > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, a in enumerate(args):
        dim = i
        if indexing == "xy" and ndim > 1 and i < 2:
            dim = 1 - i
        shape = tuple(sizes) if not sparse else tuple(
            s if d == dim else 1 for d, s in enumerate(sizes))
        out.append(lax.broadcast_in_dim(a, shape, (dim,)))
    return out


def indices(dimensions: Any, dtype: Any = None, sparse: bool = False) -> Any:
    """Index grids of an array of shape `dimensions` (stacked, or a tuple when sparse)."""
    dims = _shape(dimensions)
    # JAX's default is int32 itself, not the default integer type: int32 under x64 too.
    dtype = _dtype(dtype, "indices") or np.dtype(np.int32)
    n = len(dims)
    out = []
    for i, d in enumerate(dims):
        shape = dims if not sparse else tuple(d if j == i else 1 for j in range(n))
        out.append(lax.broadcast_in_dim(lax.iota(dtype, d), shape, (i,)))
    if sparse:
        return tuple(out)
    if not out:
        return zeros((0,), dtype)
    return lax.concatenate([lax.expand_dims(o, (0,)) for o in out], 0)


def copy(a: Array, order: Any = None) -> Array:
    """A copy of `a`."""
    check_arraylike("copy", a)
    return array(a, copy=True, order=order)


def fromfunction(function: Any, shape: Any, *, dtype: Any = float, **kwargs: Any) -> Any:
    """`function` called on the index grids of `shape`."""
    dtype = _dtype(dtype, "fromfunction")
    shape = _shape(shape)
    grids = [lax.broadcasted_iota(dtype, shape, i) for i in range(len(shape))]
    return transfer_guard.user_function(function)(*grids, **kwargs)


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Array:
    return array(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Array:
    return array(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromiter(*args: Any, **kwargs: Any) -> Array:
    raise NotImplementedError("jnp.fromiter() is not implemented because it may be non-pure "
                              "and thus unsafe for use with JIT and other JAX transformations. "
                              "Consider using jnp.asarray(np.fromiter(...)) instead, and "
                              "consult the numpy.fromiter docs for more details.")


def fromfile(*args: Any, **kwargs: Any) -> Array:
    raise NotImplementedError("jnp.fromfile() is not implemented because it may be non-pure "
                              "and thus unsafe for use with JIT and other JAX transformations. "
                              "Consider using jnp.asarray(np.fromfile(...)) instead, and "
                              "consult the numpy.fromfile docs for more details.")


transfer_guard.entry_points(globals())
