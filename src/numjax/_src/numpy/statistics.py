"""Cumulative and NaN-aware reductions, order statistics (quantiles, medians), averages,
differences, gradients and the trapezoid rule. Histograms are in `histograms.py`, convolution and
covariance in `correlation.py`."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.lax import complex_ops, lax
from numjax._src.lax.constants import const_like
from numjax._src.numpy import reductions
from numjax._src.numpy.creation import asarray
from numjax._src.numpy.lax_numpy import where as _where
from numjax._src.numpy.selection import take_along_axis
from numjax._src.numpy.shape import _require_static_axis, broadcast_to, concatenate, moveaxis, ravel
from numjax._src.numpy.sorting import sort
from numjax._src.numpy.ufuncs import add, multiply, subtract
from numjax._src.numpy.util import (
    canonicalize_axis,
    check_arraylike,
    ensure_array,
    promote_args_inexact,
    promote_dtypes_inexact,
)
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array


def _isnan(x: Array) -> Array:
    return lax.ne(x, x)


def _is_inexact(x: Array) -> bool:
    dt = get_aval(x).dtype
    return dt.kind in "fc" or dt == dtypes.bfloat16


# ---- cumulative ----------------------------------------------------------------------------


def _cumulative(name: str, op: Any, nan_fill: Any = None, promote_integers: bool = False
                ) -> Any:
    def fn(a: Array, axis: int | None = None, dtype: Any = None, out: None = None) -> Array:
        check_arraylike(name, a)
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        a = ensure_array(a)
        if dtype is not None:
            dtypes.check_user_dtype_supported(dtype, name)
        _require_static_axis(axis)
        # A weakly typed 0-d value (a Python scalar) is flattened whatever the axis; another
        # 0-d value only without one: JAX's `cumsum(np.array(3), axis=0)` and
        # `cumsum(np.int32(3), axis=0)` raise that axis 0 is out of bounds.
        if axis is None or (get_aval(a).ndim == 0 and get_aval(a).weak_type):
            a = ravel(a)
        axis = canonicalize_axis(0 if axis is None else axis, get_aval(a).ndim)
        if nan_fill is not None and _is_inexact(a):
            a = _where(_isnan(a), lax._convert_element_type(nan_fill, get_aval(a).dtype), a)
        # Unlike NumPy, JAX keeps integer dtypes (cumulative_sum excepted) and accumulates
        # bool in the default integer, converting back to bool when dtype=bool is asked for.
        result_dtype = get_aval(a).dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
        if dtype is None and promote_integers or result_dtype == np.bool_:
            result_dtype = reductions._promote_integer_dtype(result_dtype)
        out_ = op(lax._convert_element_type(a, result_dtype), axis)
        if dtype is not None and dtypes.canonicalize_dtype(dtype) == np.bool_:
            out_ = lax._convert_element_type(out_, np.bool_)
        return out_

    fn.__name__ = name
    fn.__doc__ = f"jnp.{name} along `axis` (the flattened array when None)."
    return transfer_guard.entry_point(fn)  # an entry point: its constants are its own


cumsum = _cumulative("cumsum", lax.cumsum)
cumprod = _cumulative("cumprod", lax.cumprod)
nancumsum = _cumulative("nancumsum", lax.cumsum, 0)
nancumprod = _cumulative("nancumprod", lax.cumprod, 1)
_cumsum_with_promotion = _cumulative("cumsum", lax.cumsum, promote_integers=True)


def cumulative_sum(x: Array, /, *, axis: int | None = None, dtype: Any = None,
                   include_initial: bool = False) -> Array:
    """The Array API's cumulative sum (optionally starting with a 0); integers narrower than
    the default integer are summed in it, as in `sum`."""
    check_arraylike("cumulative_sum", x)
    x = ensure_array(x, "cumulative_sum")
    if get_aval(x).ndim == 0:
        raise ValueError("The input must be non-scalar to take a cumulative sum, however a "
                         "scalar value or scalar array was given.")
    if axis is None:
        if get_aval(x).ndim > 1:
            raise ValueError(f"The input array has rank {get_aval(x).ndim}, however axis was "
                             "not set to an explicit value. The axis argument is only optional "
                             "for one-dimensional arrays.")
        axis = 0
    axis = canonicalize_axis(axis, get_aval(x).ndim)
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype)
    out = _cumsum_with_promotion(x, axis, dtype)
    if include_initial:
        shape = tuple(1 if i == axis else d for i, d in enumerate(get_aval(out).shape))
        out = lax.concatenate([lax.full(shape, 0, get_aval(out).dtype), out], axis)
    return out


# ---- NaN-aware reductions ------------------------------------------------------------------


def _nan_reduction(name: str, base: Any, fill: Any) -> Any:
    def fn(a: Array, axis: Any = None, dtype: Any = None, out: None = None,
           keepdims: bool = False, initial: Any = None, where: Any = None) -> Array:
        check_arraylike(name, a)
        a = ensure_array(a)
        kwargs: dict[str, Any] = {"keepdims": keepdims, "initial": initial, "where": where}
        if dtype is not None:
            kwargs["dtype"] = dtype
        if not _is_inexact(a):
            return base(a, axis, **kwargs)
        a = _where(_isnan(a), lax._convert_element_type(fill, get_aval(a).dtype), a)
        return base(a, axis, **kwargs)

    fn.__name__ = name
    fn.__doc__ = f"jnp.{name}: like {base.__name__}, treating NaNs as {fill}."
    return transfer_guard.entry_point(fn)  # an entry point: its fill is its own constant


nansum = _nan_reduction("nansum", reductions.sum, 0)
nanprod = _nan_reduction("nanprod", reductions.prod, 1)


def _nan_extremum(name: str, base: Any, fill: float) -> Any:
    def fn(a: Array, axis: Any = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Array:
        check_arraylike(name, a)
        a = ensure_array(a)
        if not _is_inexact(a):
            return base(a, axis, keepdims=keepdims, initial=initial, where=where)
        nan = _isnan(a)
        filled = _where(nan, lax._convert_element_type(fill, get_aval(a).dtype), a)
        out_ = base(filled, axis, keepdims=keepdims, initial=initial, where=where)
        all_nan = reductions.all(nan, axis, keepdims=keepdims)
        return _where(all_nan, lax._convert_element_type(np.nan, get_aval(
            out_).dtype), out_)

    fn.__name__ = name
    return transfer_guard.entry_point(fn)  # an entry point: its fill is its own constant


nanmax = _nan_extremum("nanmax", reductions.max, -np.inf)
nanmin = _nan_extremum("nanmin", reductions.min, np.inf)


def nanargmax(a: Array, axis: int | None = None, out: None = None,
              keepdims: bool | None = None) -> Array:
    """argmax ignoring NaNs (-1 where a slice is all NaN)."""
    return _nanarg("nanargmax", reductions.argmax, -np.inf, a, axis, keepdims)


def nanargmin(a: Array, axis: int | None = None, out: None = None,
              keepdims: bool | None = None) -> Array:
    return _nanarg("nanargmin", reductions.argmin, np.inf, a, axis, keepdims)


def _nanarg(name: str, base: Any, fill: float, a: Array, axis: int | None,
            keepdims: bool | None) -> Array:
    check_arraylike(name, a)
    a = ensure_array(a)
    if not _is_inexact(a):
        return base(a, axis, keepdims=keepdims)
    nan = _isnan(a)
    res = base(_where(nan, lax._convert_element_type(fill, get_aval(a).dtype), a), axis,
               keepdims=keepdims)
    all_nan = reductions.all(nan, axis, keepdims=bool(keepdims))
    return _where(all_nan, lax._convert_element_type(-1, get_aval(res).dtype), res)


def nanmean(a: Array, axis: Any = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, where: Any = None) -> Array:
    """Mean of the non-NaN elements."""
    check_arraylike("nanmean", a)
    a = ensure_array(a, "nanmean")
    if not _is_inexact(a):
        return reductions.mean(a, axis, dtype, keepdims=keepdims, where=where)
    valid = lax.bitwise_not(_isnan(a))
    if where is not None:
        valid = valid & ensure_array(where)
    if dtype is None:
        dtype = get_aval(a).dtype
    total = nansum(a, axis, dtype=dtype, keepdims=keepdims, where=valid)
    count = reductions.sum(valid, axis, dtype=dtype, keepdims=keepdims)
    return lax.div(total, count)


def nanvar(a: Array, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None) -> Array:
    """Variance of the non-NaN elements: NaN where fewer than `ddof + 1` remain.

    >>> import numjax.numpy as jnp
    >>> jnp.nanvar(jnp.array([1., jnp.nan, 3.]))
    Array(1., dtype=float32)
    """
    check_arraylike("nanvar", a)
    a = ensure_array(a, "nanvar")
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype, "nanvar")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanvar is not supported.")
    computation_dtype, result_dtype = reductions._var_promote_types(get_aval(a).dtype, dtype)
    a = lax._convert_element_type(a, computation_dtype)
    mean_ = nanmean(a, axis, dtype=computation_dtype, keepdims=True, where=where)
    nan = _isnan(a)
    # The double where keeps NaN inputs out of the gradient.
    centered = _where(nan, lax._convert_element_type(0, computation_dtype), lax.sub(a, mean_))
    if computation_dtype.kind == "c":
        centered = complex_ops.real(lax.mul(centered, complex_ops.conj(centered)))
    else:
        centered = lax.integer_pow(centered, 2)
    count = reductions.sum(lax.bitwise_not(nan), axis, keepdims=keepdims, where=where)
    count = subtract(count, ddof)  # an integer count, unless ddof is a float
    empty = lax.le(count, lax.full_like(count, 0))
    total = reductions.sum(centered, axis, keepdims=keepdims, where=where)
    total = _where(empty, lax._convert_element_type(np.nan, get_aval(total).dtype), total)
    divisor = _where(empty, lax.full_like(count, 1), count)
    out_ = lax.div(total, lax._convert_element_type(divisor, get_aval(total).dtype))
    return lax._convert_element_type(out_, result_dtype)


def nanstd(a: Array, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None) -> Array:
    check_arraylike("nanstd", a)
    return lax.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where))


def ptp(a: Array, axis: Any = None, out: None = None, keepdims: bool = False) -> Array:
    """max - min along `axis`."""
    check_arraylike("ptp", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.ptp is not supported.")
    return lax.sub(reductions.max(a, axis, keepdims=keepdims),
                   reductions.min(a, axis, keepdims=keepdims))


def count_nonzero(a: Array, axis: Any = None, keepdims: bool = False) -> Array:
    """The number of nonzero elements (default int dtype)."""
    check_arraylike("count_nonzero", a)
    a = ensure_array(a, "count_nonzero")
    nz = lax.ne(a, lax._convert_element_type(0, get_aval(a).dtype))
    return reductions.sum(nz, axis, dtype=dtypes.default_int_dtype(), keepdims=keepdims)


# ---- order statistics ----------------------------------------------------------------------


def quantile(a: Array, q: Array, axis: Any = None, out: None = None,
             overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
             *, interpolation: None = None) -> Array:
    """The q-th quantiles (q in [0, 1]) along `axis`, with NumPy's interpolation methods
    linear, lower, higher, midpoint and nearest.

    >>> import numjax.numpy as jnp
    >>> jnp.quantile(jnp.array([1., 2., 3., 4.]), 0.5)
    Array(2.5, dtype=float32)
    """
    check_arraylike("quantile", a, q)
    if overwrite_input or out is not None:
        raise ValueError("jax.numpy.quantile does not support overwrite_input=True or "
                         "out != None")
    if interpolation is not None:
        raise TypeError("quantile() argument interpolation was removed in JAX v0.4.27. Use "
                        "method instead.")
    return _quantile(a, q, axis, method, keepdims, squash_nans=False)


def percentile(a: Array, q: Array, axis: Any = None, out: None = None,
               overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
               *, interpolation: None = None) -> Array:
    check_arraylike("percentile", a, q)
    (q,) = promote_args_inexact("percentile", q)
    return quantile(a, lax.div(q, lax._convert_element_type(100, get_aval(q).dtype)), axis,
                    out, overwrite_input, method, keepdims, interpolation=interpolation)


def nanquantile(a: Array, q: Array, axis: Any = None, out: None = None,
                overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False, *, interpolation: None = None) -> Array:
    check_arraylike("nanquantile", a, q)
    return _quantile(a, q, axis, method, keepdims, squash_nans=True)


def nanpercentile(a: Array, q: Array, axis: Any = None, out: None = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False, *, interpolation: None = None) -> Array:
    (q,) = promote_args_inexact("nanpercentile", q)
    return nanquantile(a, lax.div(q, lax._convert_element_type(100, get_aval(q).dtype)), axis,
                       out, overwrite_input, method, keepdims)


def median(a: Array, axis: Any = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Array:
    """The middle value (mean of the two middle values for even counts)."""
    check_arraylike("median", a)
    return quantile(a, 0.5, axis, keepdims=keepdims, method="midpoint")


def nanmedian(a: Array, axis: Any = None, out: None = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Array:
    check_arraylike("nanmedian", a)
    return nanquantile(a, 0.5, axis, keepdims=keepdims, method="midpoint")


def _quantile(a: Array, q: Array, axis: Any, method: str, keepdims: bool,
              squash_nans: bool) -> Array:
    """Quantiles as JAX computes them: positions and weights in q's dtype, the result in a's
    inexact dtype (float16 stays float16, int32 gives float32 even with x64)."""
    if method not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', or "
                         "'nearest'")
    (a,) = promote_dtypes_inexact(ensure_array(a))
    q = ensure_array(q)
    if get_aval(a).dtype.kind == "c":
        raise ValueError("quantile does not support complex input, as the operation is poorly "
                         "defined.")
    a_shape = get_aval(a).shape
    if get_aval(q).ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {get_aval(q).shape}")
    if axis is None:
        a = ravel(a)
        axes: tuple[int, ...] = tuple(range(len(a_shape)))
    else:
        axes = reductions._axes(axis, len(a_shape))
        # Move the reduced axes to the end and merge them.
        a = moveaxis(a, axes, tuple(range(-len(axes), 0)))
        keep = get_aval(a).shape[:len(a_shape) - len(axes)]
        a = lax.reshape(a, (*keep, int(np.prod(get_aval(a).shape[len(keep):],
                                                dtype=np.int64))))
    batch, n = get_aval(a).shape[:-1], get_aval(a).shape[-1]
    if n == 0:
        _empty_quantile_error(axis, len(a_shape), batch, get_aval(q).shape, keepdims,
                              squash_nans)
    a_dtype, q_dtype = get_aval(a).dtype, get_aval(q).dtype
    nan = lax._convert_element_type(np.nan, a_dtype)
    if squash_nans:
        # NaNs (made positive) sort last; only the others are counted.
        a = _where(_isnan(a), nan, a)
        counts = reductions.sum(lax.bitwise_not(_isnan(a)), -1, dtype=q_dtype, keepdims=True)
    else:
        a = _where(reductions.any(_isnan(a), -1, keepdims=True), nan, a)
        counts = lax.full((*batch, 1), n, q_dtype)
    a = sort(a, axis=-1)
    nq = get_aval(q).size
    q_b = lax.broadcast_in_dim(lax.reshape(q, (nq,)), (*batch, nq), (len(batch),))
    one, zero = lax._convert_element_type(1, q_dtype), lax._convert_element_type(0, q_dtype)
    last = lax.sub(counts, one)
    pos = lax.mul(q_b, last)
    low, high = lax.floor(pos), lax.ceil(pos)
    high_weight = lax.sub(pos, low)
    low_weight = lax.sub(one, high_weight)
    idt = dtypes.default_int_dtype()

    def take(index: Array) -> Array:
        index = lax.max(zero, lax.min(index, last))
        return take_along_axis(a, lax.convert_element_type(index, idt), axis=-1)

    low_value, high_value = take(low), take(high)
    if method == "linear":
        out_ = lax.add(lax.mul(lax.convert_element_type(low_value, q_dtype), low_weight),
                       lax.mul(lax.convert_element_type(high_value, q_dtype), high_weight))
    elif method == "lower":
        out_ = low_value
    elif method == "higher":
        out_ = high_value
    elif method == "nearest":
        half = lax._convert_element_type(0.5, q_dtype)
        out_ = lax.select(lax.le(high_weight, lax.full_like(high_weight, half)), low_value,
                          high_value)
    else:
        out_ = lax.mul(lax.add(low_value, high_value), lax._convert_element_type(0.5, a_dtype))
    out_ = lax.convert_element_type(moveaxis(out_, -1, 0), a_dtype)
    if keepdims:
        kshape = tuple(1 if i in axes else d for i, d in enumerate(a_shape))
        out_ = lax.reshape(out_, (nq, *kshape))
    if get_aval(q).ndim == 0:
        out_ = lax.reshape(out_, get_aval(out_).shape[1:])
    return out_


def _empty_quantile_error(axis: Any, ndim: int, batch: tuple[int, ...],
                          q_shape: tuple[int, ...], keepdims: bool, squash_nans: bool) -> None:
    """JAX's errors for quantiles over an empty axis: the window of size 1 it reads at each
    quantile's position along that axis does not fit it (`quantile` always, `nanquantile`
    when there is something to read; a single position is an out-of-bounds integer index).
    The axis named is the reduced one; reduced tuples of axes are merged into the last."""
    if axis is None:
        where = 0
    elif isinstance(axis, tuple):
        where = ndim - len(axis)
    else:
        where = canonicalize_axis(axis, ndim)
    if squash_nans:
        if 0 in q_shape or 0 in batch:
            return
        if not q_shape and not batch and not keepdims:
            raise IndexError(f"index is out of bounds for axis {where} with size 0")
    raise TypeError(f"Slice size at index {where} in gather op is out of range, must be within "
                    "[0, 0 + 1), got 1.")


# ---- averages and differences --------------------------------------------------------------


def average(a: Array, axis: Any = None, weights: Array | None = None,
            returned: bool = False, keepdims: bool = False) -> Any:
    """Weighted mean; with `returned` also the sum of the weights."""
    check_arraylike("average", a)
    if weights is None:
        avg = reductions.mean(a, axis, keepdims=keepdims)
        a_aval = get_aval(ensure_array(a, "average"))
        axes = reductions._axes(axis, a_aval.ndim)
        count = int(np.prod([a_aval.shape[i] for i in axes], dtype=np.int64))
        wsum = lax.full_like(avg, count)
    else:
        a, weights = promote_dtypes_inexact(a, weights)
        a_shape, w_shape = get_aval(a).shape, get_aval(weights).shape
        if a_shape != w_shape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            if len(w_shape) != 1:
                raise ValueError("1D weights expected when shapes of a and weights differ.")
            ax = canonicalize_axis(axis, len(a_shape))
            if w_shape[0] != a_shape[ax]:
                raise ValueError("Length of weights not compatible with specified axis.")
            weights = lax.broadcast_in_dim(weights, a_shape, (ax,))
        wsum = reductions.sum(weights, axis, keepdims=keepdims)
        avg = lax.div(reductions.sum(lax.mul(a, weights), axis, keepdims=keepdims), wsum)
    if returned:
        return avg, broadcast_to(lax.convert_element_type(wsum, get_aval(avg).dtype),
                                 get_aval(avg).shape)
    return avg


def diff(a: Array, n: int = 1, axis: int = -1, prepend: Array | None = None,
         append: Array | None = None) -> Array:
    """n-th discrete difference along `axis`."""
    check_arraylike("diff", a)
    a = ensure_array(a, "diff")
    n = operator.index(n)
    if n == 0:
        return a  # before any other check, prepend and append ignored: NumPy's and JAX's
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    nd = get_aval(a).ndim
    if nd == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = canonicalize_axis(axis, nd)

    def edge(extra: Array) -> Array:
        e = ensure_array(extra)
        if get_aval(e).ndim == 0:
            shape = list(get_aval(a).shape)
            shape[axis] = 1
            e = broadcast_to(e, tuple(shape))
        return e

    parts = [*([edge(prepend)] if prepend is not None else []), a,
             *([edge(append)] if append is not None else [])]
    if len(parts) > 1:
        a = concatenate(parts, axis)
    for _ in range(n):
        m = get_aval(a).shape[axis]
        # a[1:] and a[:-1], both empty when the axis is (n may exceed its length).
        hi = lax.slice_in_dim(a, min(1, m), m, axis=axis)
        lo = lax.slice_in_dim(a, 0, max(m - 1, 0), axis=axis)
        a = lax.bitwise_xor(hi, lo) if get_aval(a).dtype == np.bool_ else lax.sub(hi, lo)
    return a


def ediff1d(ary: Array, to_end: Array | None = None, to_begin: Array | None = None) -> Array:
    """Differences of the flattened array (lax.sub, so bool is refused), with optional values
    before and after.

    >>> import numjax.numpy as jnp
    >>> ediff1d(jnp.array([1, 4, 9]), to_begin=0)
    Array([0, 3, 5], dtype=int32)
    """
    check_arraylike("ediff1d", ary)
    a = ravel(ensure_array(ary, "ediff1d"))
    n = get_aval(a).shape[0]
    out = lax.sub(lax.slice_in_dim(a, min(1, n), n), lax.slice_in_dim(a, 0, max(n - 1, 0)))
    dtype = get_aval(a).dtype
    if to_begin is not None:
        check_arraylike("ediff1d", to_begin)
        out = concatenate((ravel(asarray(to_begin, dtype=dtype)), out))
    if to_end is not None:
        check_arraylike("ediff1d", to_end)
        out = concatenate((out, ravel(asarray(to_end, dtype=dtype))))
    return out


def gradient(f: Array, *varargs: Any, axis: Any = None, edge_order: int | None = None) -> Any:
    """Central differences inside, one-sided at the edges (unit or given scalar spacing)."""
    check_arraylike("gradient", f)
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    (f,) = promote_dtypes_inexact(f)
    nd = get_aval(f).ndim
    axes = tuple(range(nd)) if axis is None else reductions._axes(axis, nd)
    if len(varargs) == 0:
        spacing: list[Any] = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(varargs)}")
    outs = []
    for ax, h in zip(axes, spacing, strict=True):
        m = get_aval(f).shape[ax]
        if m < 2:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                             "least 2 elements are required.")
        h = ensure_array(h)
        if get_aval(h).ndim:
            raise NotImplementedError("jnp.gradient with array spacing is not supported")
        aval = get_aval(f)
        # JAX halves with a Python scalar and divides by the spacing: weak values stay weak
        # unless an explicit spacing array is strong.
        half = const_like(f, 0.5)
        h = lax._convert_element_type(h, aval.dtype, aval.weak_type and get_aval(h).weak_type)
        sl = lambda lo, hi, ax=ax: lax.slice_in_dim(f, lo, hi, axis=ax)
        inner = lax.div(lax.mul(lax.sub(sl(2, m), sl(0, m - 2)), half), h)
        first = lax.div(lax.sub(sl(1, 2), sl(0, 1)), h)
        last = lax.div(lax.sub(sl(m - 1, m), sl(m - 2, m - 1)), h)
        outs.append(lax.concatenate([first, inner, last], ax))
    return outs[0] if len(outs) == 1 else outs


def trapezoid(y: Array, x: Array | None = None, dx: Any = 1.0, axis: int = -1) -> Array:
    """Integral by the trapezoid rule along `axis`: half the sum of the spacings times the
    sums of neighbouring values, in JAX's order of operations. A 1-d `x` gives the spacings;
    otherwise `x` must broadcast against `y`, its spacings taken along `axis`."""
    try:
        if x is None:
            (y,) = promote_dtypes_inexact(y)
        else:
            y, x = promote_dtypes_inexact(y, x)
    except (TypeError, ValueError):
        check_arraylike("trapezoid", y, *(() if x is None else (x,)))
        raise
    if x is None:
        d: Array = ensure_array(dx)
    elif get_aval(x).ndim == 1:
        d = diff(x)
    else:
        d = moveaxis(diff(x, axis=axis), axis, -1)
    y = moveaxis(y, axis, -1)
    m = get_aval(y).shape[-1]
    pairs = add(lax.slice_in_dim(y, min(1, m), m, axis=-1),
                lax.slice_in_dim(y, 0, max(m - 1, 0), axis=-1))
    if x is not None or not (isinstance(dx, int | float) and dx == 1):
        pairs = multiply(d, pairs)
    # (JAX's trapezoid is a compiled program, where a constant spacing of 1 is dropped, not
    # multiplied: a complex infinity keeps its real part, -inf+nanj rather than nan+nanj.)
    return multiply(0.5, reductions.sum(pairs, -1))


transfer_guard.entry_points(globals())
