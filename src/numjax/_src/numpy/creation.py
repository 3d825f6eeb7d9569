"""Array creation: array/asarray, zeros/ones/full/empty and their _like forms, ranges, eye."""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Tracer
from numjax._src.lax import lax
from numjax._src.runtime.array import ArrayImpl

Array = Any


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int | np.integer):
        return (int(shape),)
    try:
        return tuple(int(d) if not isinstance(d, Tracer) else d.__index__() for d in shape)
    except TypeError:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{shape}.") from None


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
    requested = _dtype(dtype, "array")
    if isinstance(object, ArrayImpl | Tracer):
        out = object if requested is None else lax._convert_element_type(
            object, requested, False)
        if copy and out is object and isinstance(object, ArrayImpl):
            out = ArrayImpl(object._buf, object.weak_type)
            out._aval = object._aval
    elif hasattr(object, "__jax_array__"):
        return array(object.__jax_array__(), dtype, copy, order, ndmin)
    elif isinstance(object, list | tuple) and _contains_tracers(object):
        from numjax._src.numpy.shape import stack
        out = stack([array(o, requested) for o in object])
        if requested is not None:
            out = lax._convert_element_type(out, requested, False)
    else:
        out = _from_host(object, requested)
    if ndmin > get_aval(out).ndim:
        out = lax.broadcast_to_rank(out, ndmin)
    return out


def _contains_tracers(seq: Any) -> bool:
    for item in seq:
        if isinstance(item, Tracer | ArrayImpl):
            return True
        if isinstance(item, list | tuple) and _contains_tracers(item):
            return True
    return False


def _from_host(obj: Any, dtype: np.dtype | None) -> ArrayImpl:
    """Copy a host value into a new Array: a host-to-device transfer."""
    weak = dtype is None and type(obj) in (int, float, complex)
    if dtype is None:
        if isinstance(obj, list | tuple):
            leaves = list(_flatten(obj))
            if leaves and all(isinstance(x, ArrayImpl) for x in leaves):
                dtype = dtypes.result_type(*leaves)
            else:
                dtype = dtypes.canonicalize_dtype(dtypes.result_type(*leaves)) if leaves \
                    else dtypes.default_float_dtype()
        else:
            dtype = dtypes.canonicalize_dtype(dtypes.dtype(obj))
    if type(obj) is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= obj <= info.max:
            raise OverflowError(f"Python int {obj} too large to convert to {dtype.name}")
    value = np.array(obj, dtype=dtype, copy=True)
    return ArrayImpl(value, weak)


def _flatten(seq: Any) -> Any:
    for item in seq:
        if isinstance(item, list | tuple):
            yield from _flatten(item)
        else:
            yield item


def asarray(a: Any, dtype: Any = None, order: str | None = None, *,
            copy: bool | None = None) -> Array:
    """Like `array`, without copying an Array that already has the requested dtype."""
    if isinstance(a, ArrayImpl | Tracer) and dtype is None:
        return a
    return array(a, dtype=dtype, copy=bool(copy))


def zeros(shape: Any, dtype: Any = None) -> Array:
    """An array of zeros.

    >>> zeros((2,))
    Array([0., 0.], dtype=float32)
    """
    return lax.full(_shape(shape), 0, _dtype(dtype, "zeros") or dtypes.default_float_dtype())


def ones(shape: Any, dtype: Any = None) -> Array:
    return lax.full(_shape(shape), 1, _dtype(dtype, "ones") or dtypes.default_float_dtype())


def empty(shape: Any, dtype: Any = None) -> Array:
    return zeros(shape, dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Array:
    dtype = _dtype(dtype, "full")
    if np.ndim(fill_value) if not isinstance(fill_value, Tracer) else get_aval(fill_value).ndim:
        from numjax._src.numpy.shape import broadcast_to
        return broadcast_to(asarray(fill_value, dtype), _shape(shape))
    return lax.full(_shape(shape), fill_value, dtype)


def _like(a: Array, dtype: Any, shape: Any) -> tuple[np.dtype, tuple[int, ...], bool]:
    aval = get_aval(a)
    weak = dtype is None and aval.weak_type
    return (aval.dtype if dtype is None else _dtype(dtype, "like"),  # type: ignore[return-value]
            aval.shape if shape is None else _shape(shape), weak)


def zeros_like(a: Array, dtype: Any = None, shape: Any = None) -> Array:
    dt, shp, weak = _like(a, dtype, shape)
    return lax.broadcast(lax._convert_element_type(0, dt, weak), shp)


def ones_like(a: Array, dtype: Any = None, shape: Any = None) -> Array:
    dt, shp, weak = _like(a, dtype, shape)
    return lax.broadcast(lax._convert_element_type(1, dt, weak), shp)


def empty_like(a: Array, dtype: Any = None, shape: Any = None) -> Array:
    return zeros_like(a, dtype, shape)


def full_like(a: Array, fill_value: Any, dtype: Any = None, shape: Any = None) -> Array:
    dt, shp, weak = _like(a, dtype, shape)
    return lax.broadcast(lax._convert_element_type(fill_value, dt, weak), shp)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Array:
    """Evenly spaced values in [start, stop); the bounds must be concrete.

    >>> arange(3)
    Array([0, 1, 2], dtype=int32)
    """
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(v, Tracer):
            from numjax._src.core import errors
            raise errors.ConcretizationTypeError(
                v, f"It arose in the jnp.arange argument '{name}'.\n")
    dtype = _dtype(dtype, "arange")
    if stop is None and step is None:
        start_value = np.asarray(start)
        result_dtype = dtype or dtypes.canonicalize_dtype(
            dtypes.dtype(start) if not isinstance(start, int) else int)
        if result_dtype.kind in "iu" and start_value.dtype.kind in "iub":
            return lax.iota(result_dtype, int(start))
        return array(np.arange(start_value, dtype=result_dtype))  # type: ignore[call-overload]
    bounds = [np.asarray(v) for v in (start, stop, step) if v is not None]
    values = np.arange(*bounds)  # type: ignore[call-overload]
    if dtype is None:
        dtype = dtypes.canonicalize_dtype(values.dtype)
    return array(values.astype(dtype))


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: Any = None, axis: int = 0) -> Any:
    dtype = _dtype(dtype, "linspace")
    values: Any = np.linspace(np.asarray(start), np.asarray(stop), num,  # type: ignore[call-overload]
                              endpoint=endpoint, retstep=retstep, axis=axis)
    if retstep:
        values, step = values
    result_dtype = dtype or dtypes.to_inexact_dtype(dtypes.canonicalize_dtype(
        dtypes.result_type(start, stop)))
    out = array(np.asarray(values).astype(result_dtype))
    return (out, array(step, result_dtype)) if retstep else out


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Array:
    dtype = _dtype(dtype, "eye") or dtypes.default_float_dtype()
    return array(np.eye(N, M, k, dtype=dtype))


def identity(n: int, dtype: Any = None) -> Array:
    return eye(n, dtype=dtype)

