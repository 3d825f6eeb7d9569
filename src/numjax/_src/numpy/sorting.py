"""Sorting, searching and set operations over lax.sort / lax.top_k.

Set operations have data-dependent output sizes: on concrete inputs the size is read from the
values; under tracing a static `size=` is required (JAX's ConcretizationTypeError otherwise).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from numjax._src import dtypes
from numjax._src.core import errors
from numjax._src.core.avals import check_args_abstractify, get_aval
from numjax._src.core.trace import Tracer
from numjax._src.lax import lax
from numjax._src.numpy.advanced_indexing import nonzero
from numjax._src.numpy.creation import array
from numjax._src.numpy.shape import (
    broadcast_arrays,
    broadcast_to,
    concatenate,
    moveaxis,
    ravel,
    reshape,
)
from numjax._src.numpy.ufuncs import negative
from numjax._src.numpy.util import (
    canonicalize_axis,
    check_arraylike,
    ensure_array,
    promote_dtypes,
)
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.typing import Array


def _idt() -> np.dtype:
    return dtypes.default_int_dtype()


def sort(a: Array, axis: int | None = -1, *, kind: None = None, order: None = None,
         stable: bool = True, descending: bool = False) -> Array:
    """Sorted copy of `a` along `axis` (flattened when None); NaNs last.

    >>> import numjax.numpy as jnp
    >>> jnp.sort(jnp.array([3, 1, 2]))
    Array([1, 2, 3], dtype=int32)
    """
    check_arraylike("sort", a)
    if order is not None:
        raise ValueError("'order' argument to sort is not supported.")
    a = ensure_array(a, "sort")
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, get_aval(a).ndim)
    if descending:
        return lax.rev(lax.sort(lax.rev(a, (axis,)), dimension=axis, is_stable=stable),
                       (axis,))
    return lax.sort(a, dimension=axis, is_stable=stable)


def argsort(a: Array, axis: int | None = -1, *, kind: None = None, order: None = None,
            stable: bool = True, descending: bool = False) -> Array:
    """Indices that sort `a` along `axis`; ties keep their order (also when descending).

    >>> import numjax.numpy as jnp
    >>> jnp.argsort(jnp.array([3, 1, 2]))
    Array([1, 2, 0], dtype=int32)
    """
    check_arraylike("argsort", a)
    if order is not None:
        raise ValueError("'order' argument to argsort is not supported.")
    a = ensure_array(a, "argsort")
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, get_aval(a).ndim)
    iota = lax.broadcasted_iota(_idt(), get_aval(a).shape, axis)
    if descending:
        # Sorting the reversed array ascending and reversing back keeps ties in input order.
        _, idx = lax.sort((lax.rev(a, (axis,)), lax.rev(iota, (axis,))), dimension=axis,
                          is_stable=stable, num_keys=1)
        return lax.rev(idx, (axis,))
    _, idx = lax.sort((a, iota), dimension=axis, is_stable=stable, num_keys=1)
    return idx


def sort_complex(a: Array) -> Array:
    """Sort by real part, then imaginary part; the result is complex."""
    a = ensure_array(a, "sort_complex")
    out = sort(a, axis=0)
    return lax.convert_element_type(out, dtypes.to_complex_dtype(get_aval(out).dtype))


def lexsort(keys: Sequence[Array], axis: int = -1) -> Array:
    """Indices sorting by the last key, then the one before, and so on."""
    if not (isinstance(keys, list | tuple) and all(type(k) is ArrayImpl for k in keys)):
        check_args_abstractify((keys,))  # JAX compiles lexsort: jit's errors first
    key_list = [ensure_array(k) for k in keys]
    if not key_list:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    key_list = broadcast_arrays(*key_list)
    shape = get_aval(key_list[0]).shape
    if not shape:
        return lax._convert_element_type(0, _idt())  # as JAX: scalar keys sort to index 0
    axis = canonicalize_axis(axis, len(shape))
    iota = lax.broadcasted_iota(_idt(), shape, axis)
    out = lax.sort((*key_list[::-1], iota), dimension=axis, num_keys=len(key_list))
    return out[-1]


def partition(a: Array, kth: int, axis: int = -1) -> Array:
    """The `kth` smallest element at position kth, smaller ones before, larger ones after."""
    a = ensure_array(a, "partition")
    check_arraylike("partition", a)
    axis = canonicalize_axis(axis, get_aval(a).ndim)
    a = moveaxis(a, axis, -1)
    n = get_aval(a).shape[-1]
    kth = canonicalize_axis(kth, n)
    bottom = negative(lax.top_k(negative(a), kth + 1)[0])
    top = lax.top_k(a, n - kth - 1)[0]
    return moveaxis(lax.concatenate([bottom, top], get_aval(a).ndim - 1), -1, axis)


def argpartition(a: Array, kth: int, axis: int = -1) -> Array:
    """Indices that would partition `a` (see `partition`), as JAX orders them: the kth + 1
    smallest (by lax.top_k of the reversed order, smallest first), then the other indices
    in increasing order. int32, as lax.top_k's indices.

    >>> import numjax.numpy as jnp
    >>> jnp.argpartition(jnp.array([3, 1, 2, 1, 5]), 1)
    Array([1, 3, 0, 2, 4], dtype=int32)
    """
    check_arraylike("partition", a)
    a = ensure_array(a)
    if get_aval(a).dtype.kind == "c":
        raise NotImplementedError("jnp.argpartition for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, get_aval(a).ndim)
    a = moveaxis(a, axis, -1)
    shape = get_aval(a).shape
    n = shape[-1]
    kth = canonicalize_axis(kth, n)
    # The complement reverses an integer order without overflow (JAX negates, which wraps the
    # most negative int and puts unsigned zeros last); floats are negated, bool is refused.
    reversed_ = lax.bitwise_not(a) if get_aval(a).dtype.kind in "iu" else lax.neg(a)
    bottom = lax.top_k(reversed_, kth + 1)[1]
    # The rest in index order: a top_k (ties in index order) of ones zeroed at the bottom.
    ishape = get_aval(bottom).shape
    where_ = tuple(lax.broadcasted_iota(np.dtype(np.int32), ishape, d)
                   for d in range(len(ishape) - 1)) + (bottom,)
    proxy = lax.full(shape, 1, np.dtype(np.int32)).at[where_].set(0)
    top = lax.top_k(proxy, n - kth - 1)[1]
    return moveaxis(lax.concatenate([bottom, top], len(shape) - 1), -1, axis)


# ---- searching -----------------------------------------------------------------------------


def searchsorted(a: Array, v: Array, side: str = "left", sorter: Array | None = None, *,
                 method: str = "scan") -> Array:
    """Insertion points of `v` into the sorted 1-d `a` (a binary search of log2(n) steps).

    >>> import numjax.numpy as jnp
    >>> jnp.searchsorted(jnp.array([1, 2, 3]), jnp.array([2, 5]))
    Array([1, 3], dtype=int32)
    """
    check_arraylike("searchsorted", a, v)
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'. Expected one of "
                         "['left', 'right'].")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"{method!r} is an invalid value for keyword 'method'. Expected one "
                         "of ['sort', 'scan', 'scan_unrolled', 'compare_all'].")
    a = ensure_array(a, "searchsorted")
    if get_aval(a).ndim != 1:
        raise ValueError("a should be 1-dimensional")
    if sorter is not None:
        a = a[ensure_array(sorter)]
    a, v = promote_dtypes(a, v)
    n = get_aval(a).shape[0]
    vshape = get_aval(v).shape
    # JAX's insertion points are int32 (int64 only past 2**31 - 1 elements), with x64 too.
    idt = np.dtype(np.int32 if n <= np.iinfo(np.int32).max else np.int64)
    if n == 0:
        return lax.full(vshape, 0, idt)
    # NaN-aware order: NaN sorts last, as in sort.
    less = _nan_less if side == "left" else _nan_less_equal
    lo = lax.full(vshape, 0, idt)
    # Past 2**31 - 1 elements JAX makes its upper bound with `jnp.int64(len(a))`: without x64
    # that request warns, and NumPy 2 refuses the length in int32 (an OverflowError).
    hi = lax.full(vshape, array(n, idt) if idt == np.int64 else n, idt)
    for _ in range(int(np.ceil(np.log2(n + 1))) + 1):
        mid = lax.div(lax.add(lo, hi), lax._convert_element_type(2, idt))
        safe = lax.min(mid, lax._convert_element_type(n - 1, idt))
        go_right = less(a[safe], v)
        lo = lax.select(go_right & lax.lt(lo, hi), lax.add(mid, lax._convert_element_type(1, idt)),
                        lo)
        hi = lax.select(go_right, hi, mid)
    return lo


def _nan_less(x: Array, y: Array) -> Array:
    """x < y in sort's order: NaN after everything (and equal to NaN); complex numbers
    lexicographically by (real, imag)."""
    dtype = get_aval(x).dtype
    if dtype.kind == "c":
        xr, yr = lax.real(x), lax.real(y)
        same_real = lax.bitwise_not(_nan_less(xr, yr) | _nan_less(yr, xr))
        return _nan_less(xr, yr) | (same_real & _nan_less(lax.imag(x), lax.imag(y)))
    if dtype.kind != "f" and dtype != dtypes.bfloat16:
        return lax.lt(x, y)
    x_nan, y_nan = lax.ne(x, x), lax.ne(y, y)
    return lax.select(x_nan, lax.full_like(x_nan, False),
                      lax.select(y_nan, lax.full_like(y_nan, True), lax.lt(x, y)))


def _nan_less_equal(x: Array, y: Array) -> Array:
    return lax.bitwise_not(_nan_less(y, x))


def digitize(x: Array, bins: Array, right: bool = False, *, method: str = "scan") -> Array:
    """Indices of the bins (monotonic, increasing or decreasing) each `x` falls in."""
    check_arraylike("digitize", x, bins)
    bins = ensure_array(bins, "digitize")
    if get_aval(bins).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    n = get_aval(bins).shape[0]
    if n == 0:
        return lax.full(get_aval(ensure_array(x, "digitize")).shape, 0, np.dtype(np.int32))
    side = "left" if right else "right"
    inc = searchsorted(bins, x, side=side, method=method)
    # Decreasing bins: the count of bins above x (at or above when `right`).
    rev = searchsorted(lax.rev(bins, (0,)), x, side=side, method=method)
    dec = lax.sub(lax._convert_element_type(n, get_aval(rev).dtype), rev)
    return lax.select(lax.broadcast_in_dim(lax.ge(bins[-1], bins[0]), get_aval(inc).shape, ()),
                      inc, dec)


# ---- unique and sets -----------------------------------------------------------------------


def _size_or_error(name: str, count: Array, size: int | None, arg: Any) -> int:
    if size is not None:
        return operator.index(size)
    value = count.to_concrete_value() if isinstance(count, Tracer) else count
    if isinstance(arg, Tracer) and arg.to_concrete_value() is None:
        value = None
    if value is None:
        raise errors.ConcretizationTypeError(
            arg, f"The error arose for the first argument of jnp.{name}(). To make "
                 f"jnp.{name}() compatible with JIT and other transforms, you can specify a "
                 "concrete value for the size argument, which will determine the output "
                 "size.\n")
    return int(np.asarray(value))


def _not_equal(x: Array, y: Array, equal_nan: bool) -> Array:
    ne = lax.ne(x, y)
    if equal_nan and (get_aval(x).dtype.kind in "fc" or get_aval(x).dtype == dtypes.bfloat16):
        ne = ne & lax.bitwise_not(lax.ne(x, x) & lax.ne(y, y))
    return ne


@transfer_guard.places_constants  # JAX runs it op by op
def unique(ar: Array, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value: Any = None) -> Any:
    """Sorted unique elements (or rows along `axis`), optionally with first indices, inverse
    and counts. Padded to `size` with `fill_value` (default: the smallest unique value).

    >>> import numjax.numpy as jnp
    >>> jnp.unique(jnp.array([3, 1, 3]))
    Array([1, 3], dtype=int32)
    """
    check_arraylike("unique", ar)
    ar = ensure_array(ar, "unique")
    in_shape = get_aval(ar).shape
    if axis is None:
        arr2 = reshape(ravel(ar), (-1, 1))
        axis_ = 0
    else:
        axis_ = canonicalize_axis(axis, len(in_shape))
        moved = moveaxis(ar, axis_, 0)
        rest = in_shape[:axis_] + in_shape[axis_ + 1:]
        arr2 = reshape(moved, (in_shape[axis_], math.prod(rest)))  # -1 is ambiguous for 0
    n, width = get_aval(arr2).shape
    if n == 0 and size and fill_value is None:
        # Nothing to pad with: JAX asks for the fill value.
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    idt = _idt()
    iota = lax.iota(idt, n)
    cols = [arr2[:, j] for j in range(width)]
    if n == 0:
        sorted_cols, perm = cols, iota
    else:
        out = lax.sort((*cols, iota), dimension=0, num_keys=max(width, 1))
        sorted_cols, perm = list(out[:-1]), out[-1]
    # mask[i]: sorted row i starts a new group.
    if n:
        diff = lax.full((n - 1,), False, np.dtype(bool))
        for c in sorted_cols:
            diff = diff | _not_equal(c[1:], c[:-1], equal_nan)
        mask = lax.concatenate([lax.full((1,), True, np.dtype(bool)), diff], 0)
    else:
        mask = lax.full((0,), False, np.dtype(bool))
    count = lax.reduce_sum(lax.convert_element_type(mask, idt), (0,))
    k = _size_or_error("unique", count, size, ar)
    starts = nonzero(mask, size=k, fill_value=n)[0] if n else lax.full((k,), 0, idt)
    valid = lax.lt(starts, lax._convert_element_type(n, idt))
    safe = lax.min(starts, lax._convert_element_type(max(n - 1, 0), idt))
    sorted2 = lax.concatenate([lax.expand_dims(c, (1,)) for c in sorted_cols], 1) if width \
        else arr2
    if n:
        rows = sorted2[safe]
    else:  # only padding (size > 0 needs a fill value, checked above)
        rows = lax.full((k, width), 0 if fill_value is None else fill_value,
                        get_aval(arr2).dtype)
    if size is not None and n:
        # A fill value along an axis is one slice (the shape without that axis), as in JAX.
        fill = rows[0:1] if fill_value is None else lax.reshape(broadcast_to(
            lax._convert_element_type(fill_value, get_aval(rows).dtype),
            () if axis is None else in_shape[:axis_] + in_shape[axis_ + 1:]), (1, width))
        rows = lax.select(lax.broadcast_in_dim(valid, (k, width), (0,)),
                          rows, lax.broadcast_in_dim(lax.squeeze(fill, (0,)), (k, width), (1,)))
    if axis is None:
        values = reshape(rows, (k,))
    else:
        rest = in_shape[:axis_] + in_shape[axis_ + 1:]
        values = moveaxis(reshape(rows, (k, *rest)), 0, axis_)
    outs = [values]
    if return_index:
        index = perm[safe] if n else lax.full((k,), 0, idt)
        if size is not None and n:
            index = lax.select(valid, index, lax.broadcast_in_dim(index[0], (k,), ()))
        outs.append(index)
    if return_inverse:
        group = lax.sub(lax.cumsum(lax.convert_element_type(mask, idt), 0),
                        lax._convert_element_type(1, idt)) if n else lax.full((0,), 0, idt)
        inverse = lax.full((n,), 0, idt).at[perm].set(group) if n else group
        outs.append(reshape(inverse, in_shape if axis is None else
                            tuple(n if i == axis_ else 1 for i in range(len(in_shape)))))
    if return_counts:
        if n:
            ends = lax.concatenate([starts[1:], lax.full((1,), n, idt)], 0)
            ends = lax.min(ends, lax._convert_element_type(n, idt))
            counts = lax.select(valid, lax.sub(ends, starts), lax.full((k,), 0, idt))
        else:
            counts = lax.full((k,), 0, idt)
        outs.append(counts)
    return outs[0] if len(outs) == 1 else tuple(outs)


class _UniqueAllResult(NamedTuple):
    """What `unique_all` returns (JAX's field names)."""

    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class _UniqueCountsResult(NamedTuple):
    """What `unique_counts` returns."""

    values: Array
    counts: Array


class _UniqueInverseResult(NamedTuple):
    """What `unique_inverse` returns."""

    values: Array
    inverse_indices: Array


# The array-API variants compare NaNs as distinct (equal_nan=False), unlike `unique`'s default:
# unique_values([nan, nan, 1]) is [1, nan, nan] in JAX 0.4.30.


def unique_values(x: Array, /, *, size: int | None = None, fill_value: Any = None) -> Array:
    """Sorted unique values, NaNs kept apart.

    >>> import numjax.numpy as jnp
    >>> unique_values(jnp.array([2, 1, 2]))
    Array([1, 2], dtype=int32)
    """
    return unique(ensure_array(x, "unique_values"), equal_nan=False, size=size,
                  fill_value=fill_value)


def unique_counts(x: Array, /, *, size: int | None = None,
                  fill_value: Any = None) -> _UniqueCountsResult:
    """Sorted unique values and how often each occurs, as a named tuple.

    >>> import numjax.numpy as jnp
    >>> unique_counts(jnp.array([2, 1, 2])).counts
    Array([1, 2], dtype=int32)
    """
    values, counts = unique(x, return_counts=True, equal_nan=False, size=size,
                            fill_value=fill_value)
    return _UniqueCountsResult(values=values, counts=counts)


def unique_inverse(x: Array, /, *, size: int | None = None,
                   fill_value: Any = None) -> _UniqueInverseResult:
    """Sorted unique values and, for each element of `x`, its index among them.

    >>> import numjax.numpy as jnp
    >>> unique_inverse(jnp.array([2, 1, 2])).inverse_indices
    Array([1, 0, 1], dtype=int32)
    """
    values, inverse = unique(x, return_inverse=True, equal_nan=False, size=size,
                             fill_value=fill_value)
    return _UniqueInverseResult(values=values, inverse_indices=inverse)


def unique_all(x: Array, /, *, size: int | None = None,
               fill_value: Any = None) -> _UniqueAllResult:
    """Sorted unique values with first indices, inverse indices and counts.

    >>> import numjax.numpy as jnp
    >>> unique_all(jnp.array([2, 1, 2])).indices
    Array([1, 0], dtype=int32)
    """
    values, indices, inverse, counts = unique(
        x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False,
        size=size, fill_value=fill_value)
    return _UniqueAllResult(values=values, indices=indices, inverse_indices=inverse,
                            counts=counts)


def isin(element: Array, test_elements: Array, assume_unique: bool = False,
         invert: bool = False) -> Array:
    """Whether each element occurs in `test_elements` (all pairs compared)."""
    check_arraylike("isin", element, test_elements)
    try:
        element, test = promote_dtypes(element, ravel(test_elements))
    except TypeError:
        check_args_abstractify((element, test_elements))  # JAX compiles the rest
        raise
    shape = get_aval(element).shape
    m = get_aval(test).shape[0]
    nd = len(shape)
    eq = lax.eq(lax.broadcast_in_dim(element, (*shape, m), tuple(range(nd))),
                lax.broadcast_in_dim(test, (*shape, m), (nd,)))
    out = lax.reduce_or(eq, (nd,))
    out = lax.bitwise_not(out) if invert else out
    # JAX reduces with jnp.any, whose result is strong even for weak inputs.
    return lax._convert_element_type(out, np.dtype(bool), False)


def in1d(ar1: Array, ar2: Array, assume_unique: bool = False, invert: bool = False) -> Array:
    return isin(ravel(ar1), ar2, assume_unique, invert)


def union1d(ar1: Array, ar2: Array, *, size: int | None = None, fill_value: Any = None
            ) -> Array:
    """Sorted unique elements of both arrays."""
    check_arraylike("union1d", ar1, ar2)
    if size is None:
        for arg in (ar1, ar2):
            if isinstance(arg, Tracer) and arg.to_concrete_value() is None:
                _size_or_error("union1d", None, None, arg)
    return unique(concatenate([ravel(ar1), ravel(ar2)]), size=size, fill_value=fill_value)


def setdiff1d(ar1: Array, ar2: Array, assume_unique: bool = False, *,
              size: int | None = None, fill_value: Any = None) -> Array:
    """Sorted unique elements of ar1 not in ar2 (padded with fill_value, default 0)."""
    check_arraylike("setdiff1d", ar1, ar2)
    ar1 = ravel(ensure_array(ar1, "setdiff1d"))
    if not assume_unique:
        ar1 = ensure_array(ar1)
    keep = lax.bitwise_not(isin(ar1, ar2))
    return _select_sorted_unique("setdiff1d", ar1, keep, size, 0 if fill_value is None
                                 else fill_value)


def intersect1d(ar1: Array, ar2: Array, assume_unique: bool = False,
                return_indices: bool = False) -> Any:
    """Sorted unique elements in both arrays (concrete inputs: the size depends on values)."""
    check_arraylike("intersect1d", ar1, ar2)
    # Both in their promoted dtype, as JAX (int with float intersects as float32).
    a1, a2 = promote_dtypes(ravel(ensure_array(ar1, "intersect1d")),
                            ravel(ensure_array(ar2, "intersect1d")))
    u1, i1 = unique(a1, return_index=True) if not assume_unique else (
        a1, lax.iota(_idt(), get_aval(a1).shape[0]))
    u2, i2 = unique(a2, return_index=True) if not assume_unique else (
        a2, lax.iota(_idt(), get_aval(a2).shape[0]))
    keep = isin(u1, u2)
    count = lax.reduce_sum(lax.convert_element_type(keep, _idt()), (0,))
    k = _size_or_error("intersect1d", count, None, ar1)
    pos = nonzero(keep, size=k)[0]
    vals = u1[pos]
    order = argsort(vals)
    vals, pos = vals[order], pos[order]
    if not return_indices:
        return vals
    j = searchsorted(sort(u2), vals)
    order2 = argsort(u2)
    return vals, i1[pos], i2[order2[j]]


def setxor1d(ar1: Array, ar2: Array, assume_unique: bool = False) -> Array:
    """Sorted elements in exactly one of the arrays."""
    check_arraylike("setxor1d", ar1, ar2)
    a1, a2 = ravel(ar1), ravel(ar2)  # first, as in JAX: a string fails as jit rejects it
    u1 = unique(a1) if not assume_unique else a1
    u2 = unique(a2) if not assume_unique else a2
    both = concatenate([u1, u2])
    keep = lax.bitwise_not(isin(both, u1) & isin(both, u2))
    return _select_sorted_unique("setxor1d", both, keep, None, 0)


def _select_sorted_unique(name: str, values: Array, keep: Array, size: int | None,
                          fill_value: Any) -> Array:
    """The unique values where `keep`, sorted, padded to `size` with fill_value."""
    dt = get_aval(values).dtype
    # Dropped entries sort after every kept one: key (not keep, value).
    drop = lax.bitwise_not(keep)
    _, sorted_vals, sorted_keep = lax.sort((lax.convert_element_type(drop, np.int8), values,
                                            keep), dimension=0, num_keys=2)
    n = get_aval(values).shape[0]
    if n:
        first = lax.concatenate([lax.full((1,), True, np.dtype(bool)),
                                 lax.ne(sorted_vals[1:], sorted_vals[:-1])], 0)
    else:
        first = sorted_keep
    sel = first & sorted_keep
    count = lax.reduce_sum(lax.convert_element_type(sel, _idt()), (0,))
    k = _size_or_error(name, count, size, values)
    pos = nonzero(sel, size=k, fill_value=n)[0] if n else lax.full((k,), 0, _idt())
    valid = lax.lt(pos, lax._convert_element_type(n, _idt()))
    safe = lax.min(pos, lax._convert_element_type(max(n - 1, 0), _idt()))
    # JAX fills with `where(valid, out, fill_value)`: a weak fill (a Python scalar, the
    # default 0) keeps weak values weak.
    weak = get_aval(values).weak_type and get_aval(fill_value).weak_type
    fill = lax.broadcast(lax._convert_element_type(fill_value, dt, weak), (k,))
    out = sorted_vals[safe] if n else fill
    return lax.select(valid, out, fill)


transfer_guard.entry_points(globals())
