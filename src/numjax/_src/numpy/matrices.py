"""Triangles and diagonals: tri/tril/triu, diag/diagflat/diagonal/trace, fill_diagonal, the
triangle and diagonal index helpers, and vander."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.lax.constants import const_like
from numjax._src.numpy.advanced_indexing import nonzero
from numjax._src.numpy.creation import _dtype, array, asarray, ones
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.shape import moveaxis, ravel, reshape
from numjax._src.numpy.ufuncs import power
from numjax._src.numpy.util import canonicalize_axis, check_arraylike, ensure_array
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array


@transfer_guard.places_constants
def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Array:
    """Ones at and below the k-th diagonal.

    >>> tri(2, dtype=int)
    Array([[1, 0],
           [1, 1]], dtype=int32)
    """
    M = N if M is None else M
    dtype = _dtype(dtype, "tri") or np.dtype(np.float32)  # JAX: float32, also under x64
    # JAX adds k to an iota op by op: k is placed on the device.
    transfer_guard.library_constant(k, np.int32)
    return lax.convert_element_type(_tri_mask(N, M, k), dtype)


def _tri_mask(N: int, M: int, k: int) -> Array:
    idt = np.dtype(np.int32)
    rows = lax.broadcasted_iota(idt, (N, M), 0)
    cols = lax.broadcasted_iota(idt, (N, M), 1)
    # k as a host constant of the library's (for tril/triu it is static, as in JAX).
    return lax.ge(lax.add(rows, np.asarray(k, idt)), cols)


def _tri_select(m: Array, k: int, lower: bool) -> Array:
    name = "tril" if lower else "triu"
    try:
        k = operator.index(k)
    except TypeError:
        # JAX takes k as a static (compile-time) argument: an array is refused.
        raise ValueError(f"jnp.{name}: k must be a static integer, got {k!r}") from None
    m = ensure_array(m, name)
    shape = get_aval(m).shape
    if len(shape) < 2:
        raise ValueError(f"{'tril' if lower else 'triu'} requires an array of at least two "
                         f"dimensions")
    N, M = shape[-2:]
    mask = _tri_mask(N, M, k) if lower else lax.bitwise_not(_tri_mask(N, M, k - 1))
    mask = lax.broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))
    return lax.select(mask, m, lax.full_like(m, 0))


def tril(m: Array, k: int = 0) -> Array:
    """Zero the elements above the k-th diagonal (of the last two axes)."""
    return _tri_select(m, k, True)


def triu(m: Array, k: int = 0) -> Array:
    """Zero the elements below the k-th diagonal (of the last two axes)."""
    return _tri_select(m, k, False)


def diagonal(a: Array, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """The `offset` diagonal of the `axis1`/`axis2` planes, as a new last axis.

    >>> diagonal(array([[1, 2], [3, 4]]))
    Array([1, 4], dtype=int32)
    """
    a = ensure_array(a, "diagonal")
    nd = get_aval(a).ndim
    if nd < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    ax1, ax2 = canonicalize_axis(axis1, nd), canonicalize_axis(axis2, nd)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 must not be equal")
    a = moveaxis(a, (ax1, ax2), (-2, -1))
    N, M = get_aval(a).shape[-2:]
    offset = int(offset)
    length = max(0, min(N + min(offset, 0), M - max(offset, 0)))
    rows = np.arange(length) - min(offset, 0)
    cols = np.arange(length) + max(offset, 0)
    idt = dtypes.default_int_dtype()
    return a[..., rows.astype(idt), cols.astype(idt)]


def trace(a: Array, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: None = None) -> Array:
    """Sum along a diagonal, in `dtype` or as `jnp.sum` would (narrow integers widened).

    >>> trace(array([[1, 2], [3, 4]], dtype="int8"))
    Array(5, dtype=int32)
    """
    check_arraylike("trace", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    if dtype is not None:
        dtypes.check_user_dtype_supported(dtype, "trace")
    a = ensure_array(a, "trace")
    # The axes are checked first, as JAX's moveaxis of them does.
    for axis in (axis1, axis2):
        canonicalize_axis(axis, get_aval(a).ndim)
    return jnp_sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def diag(v: Array, k: int = 0) -> Array:
    """The k-th diagonal of a 2-d array, or a 2-d array with 1-d `v` on its k-th diagonal."""
    v = ensure_array(v, "diag")
    shape = get_aval(v).shape
    if len(shape) == 2:
        return diagonal(v, k)
    if len(shape) != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = shape[0] + abs(int(k))
    k = int(k)
    idt = np.dtype(np.int32)
    rows = lax.broadcasted_iota(idt, (n, n), 0)
    cols = lax.broadcasted_iota(idt, (n, n), 1)
    mask = lax.eq(lax.sub(cols, rows), lax._convert_element_type(k, idt))
    # JAX places v on a zero matrix with `where`: a weak v gives a weak result.
    padded = lax.pad(v, const_like(v, 0), [(0, abs(k), 0)])
    # On the k-th diagonal element (i, i + k) holds v[i] (k >= 0) and (j - k, j) holds v[j].
    vals = lax.broadcast_in_dim(padded, (n, n), (0,) if k >= 0 else (1,))
    return lax.select(mask, vals, lax.full_like(vals, 0))


def diagflat(v: Array, k: int = 0) -> Array:
    """A 2-d array with the flattened `v` on its k-th diagonal."""
    out = diag(ravel(ensure_array(v, "diagflat")), k)
    # JAX scatters into `zeros(dtype=v.dtype)`, a strong array: the result is strong.
    return lax._convert_element_type(out, get_aval(out).dtype, False)


def fill_diagonal(a: Array, val: Array, wrap: bool = False, *, inplace: bool = True) -> Array:
    """A copy of `a` with `val` on its main diagonal (`inplace=False` is required, as arrays
    are immutable)."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    a = asarray(a)
    shape = get_aval(a).shape
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    n = min(shape)
    if len(shape) == 2:
        step = shape[1] + 1
        end = shape[0] * shape[1] if wrap else min(shape[0], shape[1]) * shape[1]
        flat_idx = np.arange(0, end, step)
    else:
        flat_idx = np.arange(n) * int(np.sum(np.cumprod((1,) + shape[:0:-1])))
    vals = ravel(asarray(val))
    count = len(flat_idx)
    nv = get_aval(vals).shape[0]
    if nv == 0:
        return a
    reps = np.arange(count) % nv
    vals = lax.convert_element_type(vals[reps.astype(dtypes.default_int_dtype())],
                                    get_aval(a).dtype)
    flat = ravel(a).at[flat_idx.astype(dtypes.default_int_dtype())].set(vals)
    return reshape(flat, shape)


def _tri_indices(n: int, k: int, m: int | None, lower: bool) -> tuple[Array, Array]:
    mask = np.tri(n, m, k, dtype=bool)
    if not lower:
        mask = ~np.tri(n, m, k - 1, dtype=bool)
    i, j = np.nonzero(mask)
    idt = dtypes.default_int_dtype()
    return array(i.astype(idt)), array(j.astype(idt))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """Indices of the lower triangle of an (n, m) array."""
    return _tri_indices(n, k, m, True)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """Indices of the upper triangle of an (n, m) array."""
    return _tri_indices(n, k, m, False)


def tril_indices_from(arr: Array, k: int = 0) -> tuple[Array, Array]:
    shape = get_aval(arr).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return tril_indices(shape[0], k, shape[1])


def triu_indices_from(arr: Array, k: int = 0) -> tuple[Array, Array]:
    shape = get_aval(arr).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return triu_indices(shape[0], k, shape[1])


def diag_indices(n: int, ndim: int = 2) -> tuple[Array, ...]:
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (lax.iota(dtypes.default_int_dtype(), n),) * ndim


def diag_indices_from(arr: Array) -> tuple[Array, ...]:
    shape = get_aval(arr).shape
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


def mask_indices(n: int, mask_func: Any, k: int = 0, *, size: int | None = None
                 ) -> tuple[Array, Array]:
    mask = transfer_guard.user_function(mask_func)(ones((n, n), int), k)
    return nonzero(mask, size=size)  # type: ignore[return-value]


def vander(x: Array, N: int | None = None, increasing: bool = False) -> Array:
    """Columns are powers of `x` (decreasing unless `increasing`)."""
    x = ensure_array(x, "vander")
    if get_aval(x).ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    n = get_aval(x).shape[0] if N is None else int(N)
    if n < 0:
        raise ValueError("N must be nonnegative")
    # The exponents have x's dtype, as in JAX: a float x takes float powers (and strict
    # promotion has nothing to promote).
    dtype = get_aval(x).dtype
    exps = lax.iota(dtype, n)
    if not increasing:
        exps = lax.sub(lax._convert_element_type(n - 1, dtype), exps)
    # Both of rank 2 (a column of x, a row of exponents): no rank promotion, as in JAX.
    return power(lax.expand_dims(x, (1,)), lax.expand_dims(exps, (0,)))


transfer_guard.entry_points(globals())
