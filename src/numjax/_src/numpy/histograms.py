"""Counting: bincount, histogram (1-d, 2-d, N-d) and bin edges."""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.numpy import reductions
from numjax._src.numpy.creation import asarray, linspace
from numjax._src.numpy.lax_numpy import where as _where
from numjax._src.numpy.manipulation import _concrete_or_error
from numjax._src.numpy.shape import ravel, stack
from numjax._src.numpy.sorting import searchsorted
from numjax._src.numpy.statistics import diff
from numjax._src.numpy.util import (
    check_arraylike,
    ensure_array,
    promote_dtypes_inexact,
)
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array


@transfer_guard.places_constants
def bincount(x: Array, weights: Array | None = None, minlength: int = 0, *,
             length: int | None = None) -> Array:
    """Counts (or summed weights) of each integer in `x`, negative ones counted in bin 0;
    `length` (required under tracing) fixes the output size, dropping larger values.

    >>> import numjax.numpy as jnp
    >>> jnp.bincount(jnp.array([0, 1, 1, 3]))
    Array([1, 2, 0, 1], dtype=int32)
    """
    check_arraylike("bincount", x)
    x = ensure_array(x, "bincount")
    if not dtypes.issubdtype(get_aval(x).dtype, np.integer):
        raise TypeError(f"x argument to bincount must have an integer type; got "
                        f"{get_aval(x).dtype}")
    if get_aval(x).ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("minlength must not be negative")
    if length is None:
        value = _concrete_or_error(x, "The error occurred because of argument 'x' of "
                                      "jnp.bincount. To avoid this error, pass a static "
                                      "`length` argument.\n")
        length = builtins.max(minlength, int(value.max()) + 1 if value.size else 0)
    else:
        length = operator.index(length)
    if weights is None:
        w = lax.full(get_aval(x).shape, 1, dtypes.default_int_dtype())
    else:
        if np.shape(weights) != get_aval(x).shape:
            raise ValueError("shape of weights must match shape of x.")
        if isinstance(weights, list | tuple):
            raise TypeError(f"Cannot determine dtype of {weights}")
        w = ensure_array(weights)
    zeros = lax.full((length,), 0, get_aval(w).dtype)
    if length == 0:
        return zeros  # nothing to count into
    # Negative values count in bin 0 (JAX clips them), values past the end are dropped.
    idx = lax.max(x, lax.full_like(x, 0))
    return zeros.at[idx].add(w, mode="drop")


def histogram_bin_edges(a: Array, bins: Any = 10, range: Any = None,
                        weights: Array | None = None) -> Array:
    """Edges of `bins` equal bins over `range` (default: the data's min and max)."""
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    check_arraylike("histogram_bin_edges", a, bins)
    (a,) = promote_dtypes_inexact(ensure_array(a, "histogram_bin_edges"))
    dt = get_aval(a).dtype
    if np.ndim(bins) == 1:
        return asarray(bins, dt)  # edges in the data's inexact dtype, as JAX's
    if range is None:
        lo, hi = reductions.min(a), reductions.max(a)
    else:
        lo = lax._convert_element_type(range[0], dt)
        hi = lax._convert_element_type(range[1], dt)
    same = lax.eq(lo, hi)
    lo = _where(same, lax.sub(lo, lax._convert_element_type(0.5, dt)), lo)
    hi = _where(same, lax.add(hi, lax._convert_element_type(0.5, dt)), hi)
    # linspace makes the last edge exactly `hi` (lo + (hi - lo) * 1 can round below it in
    # float32), so the largest sample lands in the last bin instead of outside every bin.
    return linspace(lo, hi, operator.index(bins) + 1, dtype=dt)


def histogram(a: Array, bins: Any = 10, range: Any = None, weights: Array | None = None,
              density: bool | None = None) -> tuple[Array, Array]:
    """Counts (or summed weights) in each bin, and the bin edges."""
    check_arraylike("histogram", a)
    dtypes.dtype(a)  # JAX reads it first: "Cannot determine dtype of abc"
    a = ensure_array(a, "histogram")
    if weights is None:
        (a,) = promote_dtypes_inexact(a)
        w = lax.full_like(ravel(a), 1)
    else:
        # Promoted together with the data, as JAX's: int32 weights of float32 data count in
        # float32, float32 weights make float16 data's edges float32.
        weights = ensure_array(weights, "histogram")
        if get_aval(weights).shape != get_aval(a).shape:
            raise ValueError("weights should have the same shape as a.")
        a, weights = promote_dtypes_inexact(a, weights)
        w = ravel(weights)
    edges = histogram_bin_edges(a, bins, range, weights)
    a = ravel(a)
    nb = get_aval(edges).shape[0] - 1
    idx = searchsorted(edges, a, side="right")
    # The last bin is closed: values equal to the last edge belong to it.
    idx = _where(lax.eq(a, edges[-1]), nb, idx)
    # As JAX: slot 0 collects what lies below the first edge and is cut off, slot nb + 1
    # (past the end) what lies above the last one or is NaN. So complex data is binned by
    # searchsorted's lexicographic order, its counts complex, as in JAX.
    counts = lax.full((nb + 1,), 0, get_aval(w).dtype).at[idx].add(w, mode="drop")[1:]
    if density:
        widths = diff(edges)
        counts = lax.div(lax.div(counts, reductions.sum(counts)),
                         lax.convert_element_type(widths, get_aval(counts).dtype))
    return counts, edges


def histogramdd(sample: Array, bins: Any = 10, range: Any = None,
                weights: Array | None = None, density: bool | None = None
                ) -> tuple[Array, list[Array]]:
    """Counts of (N, D) `sample` in a D-dimensional grid of bins, and the edges per dimension.
    Counts are integers unless weighted or a density."""
    check_arraylike("histogramdd", sample)
    sample = ensure_array(sample, "histogramdd")
    if get_aval(sample).ndim != 2:
        raise ValueError("histogramdd: sample must be a 2-d array of shape (N, D)")
    n, d = get_aval(sample).shape
    bins_list = list(bins) if isinstance(bins, list | tuple) else [bins] * d
    ranges = list(range) if range is not None else [None] * d
    if len(bins_list) != d or len(ranges) != d:
        raise ValueError("should be a bin for each dimension.")
    edges = [histogram_bin_edges(sample[:, i], b, r) for i, (b, r) in
             enumerate(zip(bins_list, ranges, strict=True))]
    idt = dtypes.default_int_dtype()
    nbins = [get_aval(e).shape[0] - 1 for e in edges]
    flat = lax.full((n,), 0, idt)
    valid = lax.full((n,), True, np.dtype(bool))
    for i, e in enumerate(edges):
        col = lax.convert_element_type(sample[:, i], get_aval(e).dtype)
        idx = searchsorted(e, col, side="right")
        idx = _where(lax.eq(col, e[-1]), nbins[i], idx)
        idx = lax.sub(idx, lax.full_like(idx, 1))
        valid = valid & lax.ge(col, e[0]) & lax.le(col, e[-1])
        flat = lax.add(lax.mul(flat, lax._convert_element_type(nbins[i], idt)), idx)
    total = int(np.prod(nbins))
    flat = _where(valid, flat, total)
    if weights is None and not density:
        w: Array = lax.full((n,), 1, idt)
    elif weights is None:
        w = lax.full((n,), 1, get_aval(edges[0]).dtype)
    else:
        w = ravel(ensure_array(weights))
    counts = lax.full((total,), 0, get_aval(w).dtype).at[flat].add(w, mode="drop")
    counts = lax.reshape(counts, tuple(nbins))
    if density:
        counts = lax.convert_element_type(counts, get_aval(edges[0]).dtype)
        counts = lax.div(counts, reductions.sum(counts))
        for i, e in enumerate(edges):
            counts = lax.div(counts, lax.broadcast_in_dim(diff(e), tuple(nbins), (i,)))
    return counts, edges


def histogram2d(x: Array, y: Array, bins: Any = 10, range: Any = None,
                weights: Array | None = None, density: bool | None = None
                ) -> tuple[Array, Array, Array]:
    """Two-dimensional histogram of the points (x, y)."""
    check_arraylike("histogram2d", x, y)
    if not isinstance(bins, list | tuple) and np.ndim(bins) == 1:
        bins = [bins, bins]
    xy = [ravel(ensure_array(x, "histogram2d")), ravel(ensure_array(y, "histogram2d"))]
    counts, edges = histogramdd(stack(xy, 1), bins, range, weights, density)
    return counts, edges[0], edges[1]


transfer_guard.entry_points(globals())
