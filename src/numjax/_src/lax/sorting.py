"""Sorting: `sort` over one or several operands (lexicographic keys), `sort_key_val`, `top_k`.

`sort` orders floats as JAX does: -0.0 and 0.0 compare equal (the sort is stable, so they keep
their input order) and every NaN, whatever its sign, sorts last. NumPy's stable sorts already use
exactly that order, so the kernel is `np.argsort`/`np.lexsort` plus `take_along_axis`.

`top_k` follows XLA's TopK instead, which uses the total order of IEEE floats: -NaN < -inf < ...
< -0.0 < 0.0 < ... < inf < NaN; ties keep the lower index first. The kernel maps floats to
integers with that order (their bit patterns, with the magnitude bits of negatives flipped) and
sorts the integers' complement stably.

Both are differentiable by permutation: the jvp gathers the tangents with the sort permutation
(sort computes it by carrying an extra iota operand, as JAX does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive, operand_aval
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero
from numjax._src.interpreters.batching import moveaxis, not_mapped
from numjax._src.lax import gather_scatter as gs
from numjax._src.lax import structural as st
from numjax._src.typing import Array

__all__ = ["sort", "sort_key_val", "sort_p", "top_k", "top_k_p"]


# ---- sort ----------------------------------------------------------------------------------

sort_p = Primitive("sort")
sort_p.multiple_results = True


def _sort_key(x: np.ndarray) -> np.ndarray:
    # NumPy has no sort for bfloat16 (an ml_dtypes extension type); float32 keeps the order.
    if x.dtype == dtypes.bfloat16:
        return x.astype(np.float32)
    return x


def _sort_kernel(*operands: Any, dimension: int, is_stable: bool, num_keys: int) -> list[Any]:
    arrays = [np.asarray(o) for o in operands]
    keys = [_sort_key(a) for a in arrays[:num_keys]]
    if num_keys == 1:
        perm = np.argsort(keys[0], axis=dimension, kind="stable")
    else:
        # lexsort's last key is the primary one.
        perm = np.lexsort(keys[::-1], axis=dimension)
    return [np.take_along_axis(a, perm, axis=dimension) for a in arrays]


def _sort_abstract_eval(*operands: ShapedArray, dimension: int, is_stable: bool,
                        num_keys: int) -> list[ShapedArray]:
    shapes = [o.shape for o in operands]
    if any(s != shapes[0] for s in shapes[1:]):
        raise TypeError("Arguments to sort must have equal shapes, got: "
                        + " ".join(str(s) for s in shapes))
    ndim = len(shapes[0])
    if not 0 <= dimension < ndim:
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension {ndim}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"num_keys={num_keys} must be between 1 and "
                         f"len(operand)={len(operands)}")
    return [ShapedArray(o.shape, o.dtype, o.weak_type) for o in operands]


def _take_along_axis(x: Array, idx: Array, axis: int) -> Array:
    """x[..., idx, ...] along `axis`, where idx has x's shape except (maybe) along `axis`: a
    gather of single elements, so that it has jvp, transpose and batching rules."""
    shape = get_aval(idx).shape
    if 0 in shape:
        # Nothing to read (and a gather's slice of size 1 would not fit an empty axis of x).
        return st.full_like(x, 0, shape=shape)
    columns = [idx if d == axis else st.broadcasted_iota(get_aval(idx).dtype, shape, d)
               for d in range(len(shape))]
    indices = st.concatenate([st.expand_dims(c, (len(shape),)) for c in columns], len(shape))
    ndim = len(shape)
    dn = gs.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=tuple(range(ndim)),
                                   start_index_map=tuple(range(ndim)))
    return gs.gather(x, indices, dn, (1,) * ndim, mode=gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def _sort_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, dimension: int,
              is_stable: bool, num_keys: int) -> tuple[list[Any], list[Any]]:
    shape = get_aval(primals[0]).shape
    iota = st.broadcasted_iota(np.int32, shape, dimension)
    *outs, perm = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                              num_keys=num_keys)
    out_tangents = [t if type(t) is Zero else _take_along_axis(t, perm, dimension)
                    for t in tangents]
    return outs, out_tangents


def _sort_batch(args: Sequence[Any], dims: Sequence[Any], *, dimension: int, is_stable: bool,
                num_keys: int) -> tuple[list[Any], list[int]]:
    size = next(get_aval(a).shape[d] for a, d in zip(args, dims, strict=True)
                if d is not not_mapped)
    moved = []
    for a, d in zip(args, dims, strict=True):
        if d is not_mapped:
            aval = get_aval(a)
            a = st.broadcast_in_dim(a, (size, *aval.shape), tuple(range(1, aval.ndim + 1)))
        else:
            a = moveaxis(a, d, 0)
        moved.append(a)
    outs = sort_p.bind(*moved, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
    return outs, [0] * len(outs)


sort_p.def_impl(_sort_kernel)
sort_p.def_abstract_eval(_sort_abstract_eval)
sort_p.def_jvp(_sort_jvp)
sort_p.def_batch(_sort_batch)


def sort(operand: Array | Sequence[Array], dimension: int = -1, is_stable: bool = True,
         num_keys: int = 1) -> Array | tuple[Array, ...]:
    """Sort along `dimension`; several operands are sorted together by their first `num_keys`.

    NaNs sort last; the sort is stable.

    >>> import numjax.numpy as jnp
    >>> sort(jnp.array([3.0, jnp.nan, 1.0]))
    Array([ 1.,  3., nan], dtype=float32)
    >>> sort((jnp.array([2, 1, 2]), jnp.array([0.5, 1.5, 2.5])), num_keys=1)[1]
    Array([1.5, 0.5, 2.5], dtype=float32)
    """
    if isinstance(operand, Sequence):
        operands = tuple(operand)
        if not operands:
            raise ValueError("Sort requires at least one operand")
        single = False
    else:
        operands, single = (operand,), True
    if not hasattr(operands[0], "shape"):  # JAX reads the first operand's shape
        raise AttributeError(f"'{type(operands[0]).__name__}' object has no attribute 'shape'")
    ndim = operand_aval(operands[0]).ndim
    dimension = int(dimension)
    if not -ndim <= dimension < ndim:
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension {ndim}")
    out = sort_p.bind(*operands, dimension=dimension % ndim, is_stable=bool(is_stable),
                      num_keys=int(num_keys))
    return out[0] if single else tuple(out)


def sort_key_val(keys: Array, values: Array, dimension: int = -1,
                 is_stable: bool = True) -> tuple[Array, Array]:
    """Sort `keys` along `dimension` and permute `values` the same way.

    >>> import numjax.numpy as jnp
    >>> sort_key_val(jnp.array([3, 1, 2]), jnp.array([10, 20, 30]))[1]
    Array([20, 30, 10], dtype=int32)
    """
    k, v = sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)
    return k, v


# ---- top_k ---------------------------------------------------------------------------------

top_k_p = Primitive("top_k")
top_k_p.multiple_results = True

_SAME_SIZE_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def _total_order_key(x: np.ndarray) -> np.ndarray:
    """Integers ordered as XLA's total order orders `x` (floats: -NaN first, NaN last)."""
    if x.dtype.kind == "b":
        return x.astype(np.uint8)
    if x.dtype.kind in "iu":
        return x
    ints = x.view(_SAME_SIZE_INT[x.dtype.itemsize])
    magnitude = np.array(np.iinfo(ints.dtype).max, ints.dtype)
    # Negative floats have the sign bit set and grow in magnitude as their bits grow; flipping
    # the magnitude bits makes them increase with the float, below all non-negative floats.
    return np.where(ints < 0, ints ^ magnitude, ints)


def _top_k_kernel(x: Any, *, k: int) -> list[Any]:
    x = np.asarray(x)
    # The complement reverses the integer order without overflow; a stable ascending sort of it
    # is a descending sort that keeps ties in index order.
    perm = np.argsort(~_total_order_key(x), axis=-1, kind="stable")[..., :k]
    return [np.take_along_axis(x, perm, axis=-1), perm.astype(np.int32)]


@top_k_p.def_abstract_eval
def _top_k_abstract_eval(x: ShapedArray, *, k: int) -> list[ShapedArray]:
    if x.dtype.kind == "c":
        raise ValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if x.ndim == 0:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {x.shape}")
    if x.shape[-1] < k:
        raise ValueError("k argument to top_k must be no larger than minor dimension; "
                         f"{k} vs {list(x.shape)}")
    shape = (*x.shape[:-1], k)
    # As JAX's rule (the operand's aval with a new shape and dtype), the indices of a weakly
    # typed operand are weakly typed too.
    return [ShapedArray(shape, x.dtype, x.weak_type),
            ShapedArray(shape, np.dtype(np.int32), x.weak_type)]


def _top_k_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, k: int
               ) -> tuple[list[Any], list[Any]]:
    (x,), (t,) = primals, tangents
    values, indices = top_k_p.bind(x, k=k)
    idx_zero = Zero(ad.tangent_aval(get_aval(indices)))
    if type(t) is Zero:
        return [values, indices], [Zero(ad.tangent_aval(get_aval(values))), idx_zero]
    ndim = get_aval(x).ndim
    return [values, indices], [_take_along_axis(t, indices, ndim - 1), idx_zero]


def _top_k_batch(args: Sequence[Any], dims: Sequence[Any], *, k: int
                 ) -> tuple[list[Any], list[int]]:
    (x,), (d,) = args, dims
    # top_k works on the last axis; the batch axis goes in front so it stays out of the way.
    outs = top_k_p.bind(moveaxis(x, d, 0), k=k)
    return outs, [0, 0]


top_k_p.def_impl(_top_k_kernel)
top_k_p.def_jvp(_top_k_jvp)
top_k_p.def_batch(_top_k_batch)


def top_k(operand: Array, k: int) -> list[Array]:
    """The `k` largest entries along the last axis, in descending order, and their int32
    indices, as a list (the primitive's results, as JAX returns them).

    >>> import numjax.numpy as jnp
    >>> top_k(jnp.array([1.0, 3.0, 2.0]), 2)
    [Array([3., 2.], dtype=float32), Array([1, 2], dtype=int32)]
    """
    values, indices = top_k_p.bind(operand, k=int(k))
    return [values, indices]
