"""Reductions: sum, prod, max, min, any, all, mean, var, std, argmax, argmin."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.numpy.shape import require_static_axis
from numjax._src.numpy.util import canonicalize_axis, ensure_array
from numjax._src.runtime import transfer_guard

Array = Any


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    require_static_axis(axis)
    if isinstance(axis, int | np.integer):
        return (canonicalize_axis(int(axis), ndim),)
    axes = tuple(canonicalize_axis(a, ndim) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return axes


def _keepdims(out: Array, shape: tuple[int, ...], axes: tuple[int, ...]) -> Array:
    new = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return lax.reshape(out, new)


_HALF = (np.dtype(np.float16), np.dtype(dtypes.bfloat16))


def _reduction(name: str, reducer: Callable[[Array, tuple[int, ...]], Array],
               identity: Any, upcast_bool: bool = False, bool_op: Any = None,
               upcast_half: bool = False) -> Callable[..., Array]:
    def fn(a: Array, axis: Any = None, dtype: Any = None, out: None = None,
           keepdims: bool = False, initial: Any = None, where: Any = None) -> Array:
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        a = ensure_array(a, name)
        aval = get_aval(a)
        axes = _axes(axis, aval.ndim)
        if dtype is not None:
            dtypes.check_user_dtype_supported(dtype, name)
            a = lax._convert_element_type(a, dtypes.canonicalize_dtype(dtype))
        elif upcast_bool and aval.dtype.kind in "bui" and aval.dtype.itemsize < 4 or (
                upcast_bool and aval.dtype == np.bool_):
            a = lax._convert_element_type(
                a, dtypes.default_uint_dtype() if aval.dtype.kind == "u"
                else dtypes.default_int_dtype())
        elif bool_op is not None and aval.dtype == np.bool_:
            return _finish(bool_op(a, axes), aval.shape, axes, keepdims)
        result_dtype = get_aval(a).dtype
        if upcast_half and result_dtype in _HALF:
            # Half-precision sums and products accumulate in float32 (as JAX's do), rounding
            # once at the end.
            a = lax._convert_element_type(a, np.float32)
        if where is not None:
            from numjax._src.numpy.lax_numpy import where as jnp_where
            fill = identity(get_aval(a).dtype) if callable(identity) else identity
            if fill is None:
                if initial is None:
                    raise ValueError(f"reduction operation {name} does not have an identity, "
                                     "so to use a where mask one has to specify 'initial'")
                fill = initial
            a = jnp_where(where, a, lax._convert_element_type(fill, get_aval(a).dtype))
        if builtins.any(aval.shape[i] == 0 for i in axes) and identity is None and initial is None:
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             "identity")
        result = reducer(a, axes)
        if initial is not None:
            init = lax._convert_element_type(initial, get_aval(result).dtype)
            combine = {"sum": lax.add, "prod": lax.mul, "max": lax.max, "min": lax.min}[name]
            result = combine(result, init)
        if get_aval(result).dtype != result_dtype:
            result = lax._convert_element_type(result, result_dtype)
        return _finish(result, aval.shape, axes, keepdims)

    fn.__name__ = name
    fn.__doc__ = f"jnp.{name}: reduce over `axis` (all axes when None)."
    return fn


def _finish(result: Array, shape: tuple[int, ...], axes: tuple[int, ...],
            keepdims: bool) -> Array:
    return _keepdims(result, shape, axes) if keepdims else result


def _max_identity(dt: np.dtype) -> Any:
    return None


sum = _reduction("sum", lax.reduce_sum, 0, upcast_bool=True, upcast_half=True)
prod = _reduction("prod", lax.reduce_prod, 1, upcast_bool=True, upcast_half=True)
max = _reduction("max", lax.reduce_max, None, bool_op=lax.reduce_or)
min = _reduction("min", lax.reduce_min, None, bool_op=lax.reduce_and)
amax, amin = max, min


def _bool_reduction(name: str, reducer: Callable[[Array, tuple[int, ...]], Array]
                    ) -> Callable[..., Array]:
    def fn(a: Array, axis: Any = None, out: None = None, keepdims: bool = False, *,
           where: Any = None) -> Array:
        a = ensure_array(a, name)
        aval = get_aval(a)
        if aval.dtype != np.bool_:
            a = lax.ne(a, lax._convert_element_type(0, aval.dtype))
        if where is not None:
            from numjax._src.numpy.lax_numpy import where as jnp_where
            a = jnp_where(where, a, name == "all")
        axes = _axes(axis, aval.ndim)
        return _finish(reducer(a, axes), aval.shape, axes, keepdims)

    fn.__name__ = name
    return fn


all = _bool_reduction("all", lax.reduce_and)
any = _bool_reduction("any", lax.reduce_or)


def mean(a: Array, axis: Any = None, dtype: Any = None, out: None = None,
         keepdims: bool = False, *, where: Any = None) -> Array:
    """Arithmetic mean over `axis`.

    >>> import numjax.numpy as jnp
    >>> jnp.mean(jnp.array([1., 2., 3.]))
    Array(2., dtype=float32)
    """
    a = ensure_array(a, "mean")
    aval = get_aval(a)
    axes = _axes(axis, aval.ndim)
    if dtype is None:
        dtype = dtypes.to_inexact_dtype(aval.dtype)
    else:
        dtypes.check_user_dtype_supported(dtype, "mean")
        dtype = dtypes.canonicalize_dtype(dtype)
    a = lax._convert_element_type(a, dtype, aval.weak_type)
    if where is None:
        count: Any = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
        total = sum(a, axis=axes, keepdims=keepdims)
        return lax.div(total, lax._convert_element_type(count, dtype))
    from numjax._src.numpy.shape import broadcast_to
    mask = broadcast_to(where, aval.shape)
    total = sum(a, axis=axes, keepdims=keepdims, where=mask)
    count = sum(lax._convert_element_type(mask, dtype), axis=axes, keepdims=keepdims)
    return lax.div(total, count)


@transfer_guard.places_constants
def var(a: Array, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, correction: Any = None) -> Array:
    if correction is not None:
        ddof = correction
    # JAX passes ddof on to a compiled function as an argument: it is placed on the device.
    transfer_guard.library_constant(ddof, np.int32)
    a = ensure_array(a, "var")
    aval = get_aval(a)
    axes = _axes(axis, aval.ndim)
    computation_dtype = dtypes.to_inexact_dtype(aval.dtype) if dtype is None else \
        dtypes.canonicalize_dtype(dtype)
    a = lax._convert_element_type(a, computation_dtype, aval.weak_type)
    centered = lax.sub(a, mean(a, axes, keepdims=True, where=where))
    if computation_dtype.kind == "c":
        from numjax._src.lax import complex_ops
        sq = complex_ops.real(lax.mul(centered, complex_ops.conj(centered)))
    else:
        sq = lax.mul(centered, centered)
    n = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
    total = sum(sq, axis=axes, keepdims=keepdims, where=where)
    denom = lax._convert_element_type(n - ddof, get_aval(total).dtype)
    return lax.div(total, denom)


@transfer_guard.places_constants
def std(a: Array, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, correction: Any = None) -> Array:
    a = ensure_array(a, "std")
    return lax.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where,
                        correction=correction))


def argmax(a: Array, axis: int | None = None, out: None = None,
           keepdims: bool | None = None) -> Array:
    return _arg("argmax", lax.argmax, a, axis, keepdims)


def argmin(a: Array, axis: int | None = None, out: None = None,
           keepdims: bool | None = None) -> Array:
    return _arg("argmin", lax.argmin, a, axis, keepdims)


def _arg(name: str, op: Any, a: Array, axis: int | None, keepdims: bool | None) -> Array:
    a = ensure_array(a, name)
    aval = get_aval(a)
    if axis is None:
        if aval.size == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        flat = lax.reshape(a, (aval.size,))
        out = op(flat, 0, dtypes.default_int_dtype())
        return lax.reshape(out, (1,) * aval.ndim) if keepdims else out
    ax = canonicalize_axis(axis, aval.ndim)
    if aval.shape[ax] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    out = op(a, ax, dtypes.default_int_dtype())
    return lax.expand_dims(out, (ax,)) if keepdims else out
