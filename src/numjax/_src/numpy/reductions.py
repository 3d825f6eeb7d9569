"""Reductions: sum, prod, max, min, any, all, mean, var, std, argmax, argmin."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.lax import complex_ops, lax
from numjax._src.numpy.lax_numpy import where as jnp_where
from numjax._src.numpy.shape import _require_static_axis, broadcast_to
from numjax._src.numpy.util import canonicalize_axis, ensure_array
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    _require_static_axis(axis)
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


def _upcast_half(dtype: np.dtype) -> np.dtype:
    """The dtype a reduction computes in: float32 for float16/bfloat16 (JAX sums, means and
    variances of half-precision values accumulate in float32 and round once), else `dtype`."""
    return np.dtype(np.float32) if dtype in _HALF else dtype


def _promote_integer_dtype(dtype: np.dtype) -> np.dtype:
    """JAX's sums and products widen bool and integers narrower than the default integer to
    the default (u)int of their signedness: int64/uint64 with x64, else int32/uint32."""
    if dtype == np.bool_:
        return dtypes.default_int_dtype()
    if dtype.kind == "u" and dtype.itemsize < dtypes.default_uint_dtype().itemsize:
        return dtypes.default_uint_dtype()
    if dtype.kind == "i" and dtype.itemsize < dtypes.default_int_dtype().itemsize:
        return dtypes.default_int_dtype()
    return dtype


def _init_value(init: float, dtype: np.dtype) -> Any:
    """The reduction's start value in `dtype`: the most negative/positive value where `init`
    is -inf/inf and the dtype has no infinity; a truthiness for bool."""
    if dtype == np.bool_:
        return init > 0
    if np.isinf(init) and dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if init < 0 else info.max
    return init


# name: (reducer, its binary op, the reducer and op for bool operands)
_OPS: dict[str, tuple[Callable[..., Array], ...]] = {
    "sum": (lax.reduce_sum, lax.add, lax.reduce_or, lax.bitwise_or),
    "prod": (lax.reduce_prod, lax.mul, lax.reduce_and, lax.bitwise_and),
    "max": (lax.reduce_max, lax.max, lax.reduce_or, lax.bitwise_or),
    "min": (lax.reduce_min, lax.min, lax.reduce_and, lax.bitwise_and),
    "all": (lax.reduce_and, lax.bitwise_and, lax.reduce_and, lax.bitwise_and),
    "any": (lax.reduce_or, lax.bitwise_or, lax.reduce_or, lax.bitwise_or),
}


def _reduce(name: str, a: Array, axis: Any, dtype: Any, out: None, keepdims: bool,
            initial: Any, where: Any, init: float, *, has_identity: bool = True,
            numeric: bool = False, promote_integers: bool = False) -> Array:
    """A jnp reduction as JAX's: the result dtype is `dtype` or the operand's (integers
    promoted for sums and products when `promote_integers`), half-precision sums and products
    computed in float32 (`numeric`), the result strongly typed."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    a = ensure_array(a, name)
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype, name)
    if initial is None and not has_identity and where is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                         "where mask one has to specify 'initial'")
    aval = get_aval(a)
    axes = _axes(axis, aval.ndim)
    if initial is None and not has_identity and builtins.any(aval.shape[i] == 0 for i in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if name in ("all", "any"):
        a = lax._convert_element_type(a, np.bool_)
    elif numeric and aval.dtype == np.bool_:
        # Sums and products count bools as int32 (then widened with promote_integers).
        a = lax._convert_element_type(a, dtypes.to_numeric_dtype(aval.dtype), aval.weak_type)
    if dtype is not None:
        result_dtype = dtypes.canonicalize_dtype(dtype)
    elif promote_integers:
        result_dtype = _promote_integer_dtype(get_aval(a).dtype)
    else:
        result_dtype = get_aval(a).dtype
    computation_dtype = _upcast_half(result_dtype) if numeric else result_dtype
    a = lax._convert_element_type(a, computation_dtype)
    if where is not None:
        fill = lax._convert_element_type(_init_value(init, computation_dtype), computation_dtype)
        a = jnp_where(where, a, fill)
    reducer, combine, bool_reducer, bool_combine = _OPS[name]
    if computation_dtype == np.bool_:
        reducer, combine = bool_reducer, bool_combine
    result = reducer(a, axes)
    if initial is not None:
        init_arr = lax._convert_element_type(initial, computation_dtype)
        if get_aval(init_arr).shape != ():
            raise ValueError("initial value must be a scalar. Got array of shape "
                             f"{get_aval(init_arr).shape}")
        result = combine(init_arr, result)
    if keepdims:
        result = _keepdims(result, aval.shape, axes)
    return lax._convert_element_type(result, result_dtype)


def sum(a: Array, axis: Any = None, dtype: Any = None, out: None = None,
        keepdims: bool = False, initial: Any = None, where: Any = None,
        promote_integers: bool = True) -> Array:
    """Sum over `axis` (all axes when None). Bool and integers narrower than the default
    integer are summed in the default (u)int unless `promote_integers=False`.

    >>> import numjax.numpy as jnp
    >>> jnp.sum(jnp.array([1, 2, 3], jnp.int8))
    Array(6, dtype=int32)
    """
    return _reduce("sum", a, axis, dtype, out, keepdims, initial, where, 0, numeric=True,
                   promote_integers=promote_integers)


def prod(a: Array, axis: Any = None, dtype: Any = None, out: None = None,
         keepdims: bool = False, initial: Any = None, where: Any = None,
         promote_integers: bool = True) -> Array:
    """Product over `axis` (all axes when None), promoting integers as `sum` does.

    >>> import numjax.numpy as jnp
    >>> jnp.prod(jnp.array([1., 2., 3.]))
    Array(6., dtype=float32)
    """
    return _reduce("prod", a, axis, dtype, out, keepdims, initial, where, 1, numeric=True,
                   promote_integers=promote_integers)


def max(a: Array, axis: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None) -> Array:
    """Maximum over `axis` (all axes when None).

    >>> import numjax.numpy as jnp
    >>> jnp.max(jnp.array([1., 3., 2.]))
    Array(3., dtype=float32)
    """
    return _reduce("max", a, axis, None, out, keepdims, initial, where, -np.inf,
                   has_identity=False)


def min(a: Array, axis: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None) -> Array:
    """Minimum over `axis` (all axes when None).

    >>> import numjax.numpy as jnp
    >>> jnp.min(jnp.array([1., 3., 2.]))
    Array(1., dtype=float32)
    """
    return _reduce("min", a, axis, None, out, keepdims, initial, where, np.inf,
                   has_identity=False)


amax, amin = max, min


def all(a: Array, axis: Any = None, out: None = None, keepdims: bool = False, *,
        where: Any = None) -> Array:
    """Whether every element over `axis` is true (nonzero).

    >>> import numjax.numpy as jnp
    >>> jnp.all(jnp.array([1, 0]))
    Array(False, dtype=bool)
    """
    return _reduce("all", a, axis, None, out, keepdims, None, where, True)


def any(a: Array, axis: Any = None, out: None = None, keepdims: bool = False, *,
        where: Any = None) -> Array:
    """Whether any element over `axis` is true (nonzero).

    >>> import numjax.numpy as jnp
    >>> jnp.any(jnp.array([1, 0]))
    Array(True, dtype=bool)
    """
    return _reduce("any", a, axis, None, out, keepdims, None, where, False)


def _read_divisor_dims(shape: tuple[int, ...], axis: Any) -> None:
    """JAX's mean (so var, std and an unweighted average) reads its divisor's dimensions,
    `shape[axis]`, before the sum checks the axes: an axis out of range raises Python's
    IndexError ("tuple index out of range") there, where sum raises a ValueError."""
    if axis is not None:
        for ax in (axis if isinstance(axis, tuple | list) else (axis,)):
            if isinstance(ax, int | np.integer):  # a traced axis gets _axes's error
                shape[ax]


def _axes_size(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    return int(np.prod([shape[i] for i in axes], dtype=np.int64))


def mean(a: Array, axis: Any = None, dtype: Any = None, out: None = None,
         keepdims: bool = False, *, where: Any = None) -> Array:
    """Arithmetic mean over `axis`. Integers give float32 (float64 for 64-bit integers with
    x64); float16 and bfloat16 are summed and divided in float32 and rounded once.

    >>> import numjax.numpy as jnp
    >>> jnp.mean(jnp.array([1., 2., 3.]))
    Array(2., dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.mean is not supported.")
    a = ensure_array(a, "mean")
    aval = get_aval(a)
    if dtype is None:
        result_dtype = dtypes.to_inexact_dtype(aval.dtype)
    else:
        dtypes.check_user_dtype_supported(dtype, "mean")
        result_dtype = dtypes.canonicalize_dtype(dtype)
    if where is None:
        _read_divisor_dims(aval.shape, axis)
    axes = _axes(axis, aval.ndim)
    computation_dtype = _upcast_half(result_dtype)
    if where is None:
        normalizer: Any = _axes_size(aval.shape, axes)
    else:
        normalizer = sum(broadcast_to(where, aval.shape), axes, dtype=dtype, keepdims=keepdims)
    total = sum(a, axes, dtype=computation_dtype, keepdims=keepdims, where=where)
    out_ = lax.div(total, lax._convert_element_type(normalizer, computation_dtype))
    return lax._convert_element_type(out_, result_dtype)


def _var_promote_types(a_dtype: np.dtype, dtype: Any) -> tuple[np.dtype, np.dtype]:
    """(computation dtype, result dtype) of var and std: a real result for complex input,
    float32 computation for half precision."""
    if dtype is not None:
        dtype = dtypes.canonicalize_dtype(dtype)
        if dtype.kind != "c" and a_dtype.kind == "c":
            raise ValueError(
                "jax.numpy.var does not yet support real dtype parameters when computing the "
                "variance of an array of complex values. The semantics of numpy.var seem "
                "unclear in this case. Please comment on "
                "https://github.com/google/jax/issues/2283 if this behavior is important to "
                "you.")
        computation_dtype = dtype
    elif not dtypes.issubdtype(a_dtype, np.inexact):
        dtype = computation_dtype = dtypes.to_inexact_dtype(a_dtype)
    else:
        dtype = np.dtype(np.finfo(a_dtype).dtype) if a_dtype.kind == "c" else a_dtype
        computation_dtype = a_dtype
    return _upcast_half(computation_dtype), np.dtype(dtype)


def _ddof(ddof: Any, correction: Any) -> Any:
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


@transfer_guard.places_constants
def var(a: Array, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, correction: Any = None) -> Array:
    """Variance over `axis`: the sum of squared deviations from the mean divided by
    `n - ddof`, NaN where that is not positive.

    >>> import numjax.numpy as jnp
    >>> jnp.var(jnp.array([1., 2., 3., 4.]), ddof=1)
    Array(1.6666666, dtype=float32)
    """
    ddof = _ddof(ddof, correction)
    # JAX passes ddof on to a compiled function as an argument: it is placed on the device.
    transfer_guard.library_constant(ddof, np.int32)
    a = ensure_array(a, "var")
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype, "var")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.var is not supported.")
    aval = get_aval(a)
    computation_dtype, result_dtype = _var_promote_types(aval.dtype, dtype)
    if where is None:
        _read_divisor_dims(aval.shape, axis)  # in JAX's mean, called first
    axes = _axes(axis, aval.ndim)
    a = lax._convert_element_type(a, computation_dtype)
    centered = lax.sub(a, mean(a, axes, dtype=computation_dtype, keepdims=True, where=where))
    if computation_dtype.kind == "c":
        centered = complex_ops.real(lax.mul(centered, complex_ops.conj(centered)))
        computation_dtype = get_aval(centered).dtype
    else:
        centered = lax.integer_pow(centered, 2)
    if where is None:
        normalizer = lax._convert_element_type(_axes_size(aval.shape, axes), computation_dtype)
    else:
        normalizer = sum(broadcast_to(where, aval.shape), axes, dtype=computation_dtype,
                         keepdims=keepdims)
    # JAX divides by n - ddof and gives NaN where that is not positive (ddof >= n).
    normalizer = lax.sub(normalizer, lax._convert_element_type(ddof, computation_dtype))
    total = sum(centered, axes, dtype=computation_dtype, keepdims=keepdims, where=where)
    result = lax._convert_element_type(lax.div(total, normalizer), result_dtype)
    return jnp_where(lax.gt(normalizer, lax.full_like(normalizer, 0)), result, np.nan)


@transfer_guard.places_constants
def std(a: Array, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, correction: Any = None) -> Array:
    """Standard deviation over `axis`: the square root of `var`.

    >>> import numjax.numpy as jnp
    >>> jnp.std(jnp.array([1., 3.]))
    Array(1., dtype=float32)
    """
    ddof = _ddof(ddof, correction)
    a = ensure_array(a, "std")
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype, "std")
        if not dtypes.issubdtype(dtype, np.inexact):
            raise ValueError(f"dtype argument to jnp.std must be inexact; got {dtype}")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.std is not supported.")
    return lax.sqrt(var(a, axis, dtype, None, ddof, keepdims, where=where))


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
    # The length is read first, as JAX does: an axis out of range is the shape tuple's
    # IndexError ("tuple index out of range").
    if tuple(aval.shape)[operator.index(axis)] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    ax = canonicalize_axis(axis, aval.ndim)
    out = op(a, ax, dtypes.default_int_dtype())
    return lax.expand_dims(out, (ax,)) if keepdims else out


transfer_guard.entry_points(globals())
