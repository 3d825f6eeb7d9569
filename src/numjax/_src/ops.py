"""Segment reductions (`jax.ops`): combine the rows of `data` that share a segment id.

Each is a scatter of `data` into an array of `num_segments` rows filled with the reduction's
identity (0 for sum, 1 for prod, the dtype's lowest/highest value or -inf/inf for max/min),
so empty segments hold the identity and out-of-range ids are dropped (mode FILL_OR_DROP;
negative ids are not wrapped). Differentiation and vmap come from the scatter primitives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.dtypes import iinfo, issubdtype
from numjax._src.lax import gather_scatter as gs
from numjax._src.lax import lax
from numjax._src.numpy.creation import arange, asarray, full
from numjax._src.numpy.manipulation import _concrete_or_error
from numjax._src.numpy.reductions import max as jnp_max
from numjax._src.numpy.reductions import min as jnp_min
from numjax._src.numpy.reductions import prod
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.shape import stack
from numjax._src.numpy.util import check_arraylike
from numjax._src.typing import Array


def _identity(scatter: Callable[..., Array], dtype: np.dtype) -> Any:
    if scatter is gs.scatter_add:
        return 0
    if scatter is gs.scatter_mul:
        return 1
    lowest = scatter is gs.scatter_max
    if dtype == np.bool_:
        return not lowest
    if issubdtype(dtype, np.integer):
        info = iinfo(dtype)
        return info.min if lowest else info.max
    return -np.inf if lowest else np.inf


def _segment_update(name: str, data: Array, segment_ids: Array,
                    scatter: Callable[..., Array], reducer: Callable[..., Array],
                    num_segments: int | None, indices_are_sorted: bool, unique_indices: bool,
                    bucket_size: int | None, mode: Any) -> Array:
    check_arraylike(name, data, segment_ids)
    mode = gs.GatherScatterMode.FILL_OR_DROP if mode is None else mode
    data = asarray(data)
    segment_ids = asarray(segment_ids)
    dtype = dtypes.dtype(data)
    context = "segment_sum() `num_segments` argument.\n"  # JAX names segment_sum for all four
    if num_segments is None:
        num_segments = jnp_max(segment_ids) + 1
    num_segments = int(_concrete_or_error(num_segments, context))
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    identity = _identity(scatter, dtype)
    rows = data.shape[1:]
    if bucket_size is None:
        out = full((num_segments, *rows), identity, dtype=dtype)
        dnums = gs.ScatterDimensionNumbers(
            update_window_dims=tuple(range(segment_ids.ndim, data.ndim)),
            inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
        return scatter(out, segment_ids[..., None], data, dnums,
                       indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                       mode=mode)
    # Reduce each bucket of `bucket_size` consecutive rows separately, then combine the
    # buckets: shorter accumulation chains, better rounding for sums and products.
    num_buckets = -(-segment_ids.size // bucket_size)
    out = full((num_buckets, num_segments, *rows), identity, dtype=dtype)
    bucket = arange(segment_ids.shape[0]) // bucket_size
    index = stack([bucket, segment_ids], axis=-1)
    dnums = gs.ScatterDimensionNumbers(update_window_dims=tuple(range(1, data.ndim)),
                                       inserted_window_dims=(0, 1),
                                       scatter_dims_to_operand_dims=(0, 1))
    out = scatter(out, index, data, dnums, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
    return lax.convert_element_type(reducer(out, axis=0), dtype)


def segment_sum(data: Array, segment_ids: Array, num_segments: int | None = None,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                bucket_size: int | None = None, mode: Any = None) -> Array:
    """Sum the rows of `data` per segment id (0 for empty segments).

    >>> import numjax.numpy as jnp
    >>> segment_sum(jnp.arange(5), jnp.array([0, 0, 1, 1, 2]))
    Array([1, 5, 4], dtype=int32)
    """
    return _segment_update("segment_sum", data, segment_ids, gs.scatter_add, jnp_sum,
                           num_segments, indices_are_sorted, unique_indices, bucket_size, mode)


def segment_prod(data: Array, segment_ids: Array, num_segments: int | None = None,
                 indices_are_sorted: bool = False, unique_indices: bool = False,
                 bucket_size: int | None = None, mode: Any = None) -> Array:
    """Multiply the rows of `data` per segment id (1 for empty segments).

    >>> import numjax.numpy as jnp
    >>> segment_prod(jnp.arange(1, 6), jnp.array([0, 0, 1, 1, 2]))
    Array([ 2, 12,  5], dtype=int32)
    """
    return _segment_update("segment_prod", data, segment_ids, gs.scatter_mul, prod,
                           num_segments, indices_are_sorted, unique_indices, bucket_size, mode)


def segment_max(data: Array, segment_ids: Array, num_segments: int | None = None,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                bucket_size: int | None = None, mode: Any = None) -> Array:
    """Maximum of the rows of `data` per segment id (-inf, or the dtype's lowest value, for
    empty segments).

    >>> import numjax.numpy as jnp
    >>> segment_max(jnp.array([1., 3., 2.]), jnp.array([0, 0, 2]))
    Array([  3., -inf,   2.], dtype=float32)
    """
    return _segment_update("segment_max", data, segment_ids, gs.scatter_max, jnp_max,
                           num_segments, indices_are_sorted, unique_indices, bucket_size, mode)


def segment_min(data: Array, segment_ids: Array, num_segments: int | None = None,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                bucket_size: int | None = None, mode: Any = None) -> Array:
    """Minimum of the rows of `data` per segment id (inf, or the dtype's highest value, for
    empty segments).

    >>> import numjax.numpy as jnp
    >>> segment_min(jnp.array([1., 3., 2.]), jnp.array([0, 0, 2]))
    Array([ 1., inf,  2.], dtype=float32)
    """
    return _segment_update("segment_min", data, segment_ids, gs.scatter_min, jnp_min,
                           num_segments, indices_are_sorted, unique_indices, bucket_size, mode)
