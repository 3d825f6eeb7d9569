"""Descriptive statistics of samples, `jax.scipy.stats.mode`, `rankdata` and `sem`.

All three are jitted with their mode arguments static, as in JAX, so their errors are raised
while tracing and their results are fixed-size (mode finds unique values with `size=`).
"""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import numpy as np

from numjax._src import dtypes
from numjax._src.api.jit import jit
from numjax._src.api.transformations import vmap
from numjax._src.numpy.advanced_indexing import nonzero
from numjax._src.numpy.creation import arange, array, asarray, empty_like
from numjax._src.numpy.manipulation import insert
from numjax._src.numpy.reductions import argmax
from numjax._src.numpy.scalar_types import float64
from numjax._src.numpy.selection import apply_along_axis
from numjax._src.numpy.shape import atleast_1d, moveaxis, ravel
from numjax._src.numpy.sorting import argsort, unique
from numjax._src.numpy.statistics import nanstd
from numjax._src.numpy.ufuncs import isnan, sqrt
from numjax._src.numpy.util import canonicalize_axis, check_arraylike, promote_args_inexact
from numjax._src.typing import Array

_NAN_POLICIES = ("propagate", "omit", "raise")


class ModeResult(NamedTuple):
    """`mode`'s result: the most common values and how often each occurs."""

    mode: Array
    count: Array


def _check_nan_policy(nan_policy: str, name: str) -> None:
    if nan_policy not in _NAN_POLICIES:
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; "
                         "expected one of {'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        # JAX's message names `mode` here even when raised from `rankdata`.
        raise NotImplementedError(
            "In order to best JIT compile `mode`, we cannot know whether `x` contains nans. "
            f"Please check if nans exist in `x` outside of the `{name}` function.")


def _mode_1d(x: Array) -> tuple[Array, Array]:
    if x.size == 0:
        float_ = dtypes.canonicalize_dtype(float64)
        return array(np.nan, dtype=float_), array(0, dtype=float_)
    values, counts = unique(x, return_counts=True, size=x.size)
    # argmax takes the first maximum: ties go to the smallest value, as in SciPy
    return values[argmax(counts)], counts.max()


@partial(jit, static_argnames=["axis", "nan_policy", "keepdims"])
def mode(a: Array, axis: int | None = 0, nan_policy: str = "propagate",
         keepdims: bool = False) -> ModeResult:
    """The most common value along `axis` (all of `a` when None) and its count.

    >>> import numjax.numpy as jnp
    >>> mode(jnp.array([2, 1, 2, 3, 1, 2]))
    ModeResult(mode=Array(2, dtype=int32), count=Array(3, dtype=int32))
    """
    check_arraylike("mode", a)
    x = atleast_1d(a)
    _check_nan_policy(nan_policy, "mode")
    shape = x.shape
    # As in JAX, the result shape is computed from `axis` as given (not normalized).
    if keepdims:
        out_shape = tuple(1 if axis is None or i == axis else s for i, s in enumerate(shape))
    elif axis is None:
        out_shape = ()
    else:
        out_shape = tuple(s for i, s in enumerate(shape) if i != axis)
    if axis is None:
        axis = 0
        x = x.ravel()
    axis = canonicalize_axis(axis, x.ndim)
    x = moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    values, counts = vmap(_mode_1d, in_axes=1)(x)
    return ModeResult(values.reshape(out_shape), counts.reshape(out_shape))


def _invert_permutation(perm: Array) -> Array:
    return empty_like(perm).at[perm].set(arange(perm.size, dtype=perm.dtype))


@partial(jit, static_argnames=["method", "axis", "nan_policy"])
def rankdata(a: Array, method: str = "average", *, axis: int | None = None,
             nan_policy: str = "propagate") -> Array:
    """Ranks from 1 of the values of `a` (flattened, or each slice along `axis`); `method`
    ('average', 'min', 'max', 'dense', 'ordinal') says how ties are ranked.

    >>> import numjax.numpy as jnp
    >>> rankdata(jnp.array([40, 10, 30, 10]))
    Array([4. , 1.5, 3. , 1.5], dtype=float32)
    """
    check_arraylike("rankdata", a)
    _check_nan_policy(nan_policy, "rankdata")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    a = asarray(a)
    if axis is not None:
        return apply_along_axis(rankdata, axis, a, method)
    arr = ravel(a)
    sorter = argsort(arr)
    inv = _invert_permutation(sorter)
    if method == "ordinal":
        return inv + 1
    arr = arr[sorter]
    first_of_run = insert(arr[1:] != arr[:-1], 0, True)
    dense = first_of_run.cumsum()[inv]
    if method == "dense":
        return dense
    # run_start[r] is where run r (0-based) starts in sorted order; one past the end follows.
    run_start = nonzero(first_of_run, size=arr.size + 1, fill_value=len(first_of_run))[0]
    if method == "max":
        return run_start[dense]
    if method == "min":
        return run_start[dense - 1] + 1
    average = 0.5 * (run_start[dense] + run_start[dense - 1] + 1)
    return average.astype(dtypes.canonicalize_dtype(float64))


@partial(jit, static_argnames=["axis", "nan_policy", "keepdims"])
def sem(a: Array, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False) -> Array:
    """The standard error of the mean, std(a, ddof) / sqrt(n), along `axis`; `keepdims` is
    accepted and ignored, as in JAX.

    >>> import numjax.numpy as jnp
    >>> sem(jnp.array([1.0, 2.0, 3.0, 4.0]))
    Array(0.64549726, dtype=float32)
    """
    (b,) = promote_args_inexact("sem", a)
    if axis is None:
        b = b.ravel()
        axis = 0
    if nan_policy == "propagate":
        return b.std(axis, ddof=ddof) / sqrt(b.shape[axis]).astype(b.dtype)
    if nan_policy == "omit":
        count = (~isnan(b)).sum(axis)
        return nanstd(b, axis, ddof=ddof) / sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
