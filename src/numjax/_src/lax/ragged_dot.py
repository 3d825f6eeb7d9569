"""`ragged_dot`: a matrix product whose rows are split into groups, each group multiplied by
its own right-hand matrix.

`lhs` is `(m, k)`, `rhs` `(g, k, n)`, `group_sizes` `(g,)` integers. Group `i` covers the rows
`[ends[i] - sizes[i], ends[i])`, with `ends = cumsum(group_sizes)`; a row in no group gives a
zero row, a row in several (negative sizes make ranges overlap) the sum of their products.
That is `lhs` masked per group, `(g, m, k)`, contracted with `rhs` over `g` and `k`: the
kernel, the transpose for `rhs` and the batch rule all compute that masked product.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero, is_undefined_primal
from numjax._src.interpreters.batching import moveaxis, not_mapped
from numjax._src.lax import elementwise as ew
from numjax._src.lax import structural as st
from numjax._src.lax.cumulative import cumsum
from numjax._src.lax.dot import (
    _dot_general_kernel,
    canonicalize_precision,
    dot_general,
    dot_result_dtype,
)
from numjax._src.typing import Array

__all__ = ["ragged_dot", "ragged_dot_p"]

ragged_dot_p = Primitive("ragged_dot")

# lhs masked per group (g, m, k) . rhs (g, k, n): contract g and k.
_MASKED_DIMS = (((0, 2), (0, 1)), ((), ()))


def _group_mask_kernel(group_sizes: Any, m: int) -> Any:
    ends = np.cumsum(group_sizes, dtype=group_sizes.dtype)
    starts = ends - group_sizes
    rows = np.arange(m, dtype=group_sizes.dtype)
    return (starts[:, None] <= rows) & (rows < ends[:, None])


def _ragged_dot_kernel(lhs: Any, rhs: Any, group_sizes: Any, *, precision: Any,
                       preferred_element_type: Any, group_offset: Any) -> Any:
    lhs, rhs, group_sizes = np.asarray(lhs), np.asarray(rhs), np.asarray(group_sizes)
    mask = _group_mask_kernel(group_sizes, lhs.shape[0])
    masked = np.where(mask[:, :, None], lhs[None], np.zeros((), lhs.dtype))
    return _dot_general_kernel(masked, rhs, dimension_numbers=_MASKED_DIMS,
                               precision=precision,
                               preferred_element_type=preferred_element_type)


def _ragged_dot_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, group_sizes: ShapedArray,
                              *, precision: Any, preferred_element_type: Any,
                              group_offset: Any) -> ShapedArray:
    # Unpacked as JAX does, so a wrong rank raises the same ValueError.
    m, k = lhs.shape
    group_count, rk, n = rhs.shape
    if k != rk:
        raise TypeError(f"ragged_dot requires that lhs.shape[1] == rhs.shape[1]: got {k} and "
                        f"{rk}.")
    num_groups = group_sizes.shape[0]
    if group_count != num_groups:
        raise TypeError("ragged_dot requires that rhs.shape[0] == group_sizes.shape[0]: got "
                        f"{group_count} and {num_groups}.")
    if not dtypes.issubdtype(group_sizes.dtype, np.integer):
        raise TypeError("ragged_dot requires that group_sizes.dtype is subtype of np.integer.")
    dtype = dot_result_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
    weak = lhs.weak_type and rhs.weak_type and group_sizes.weak_type
    return ShapedArray((m, n), dtype, weak)


def _group_mask(group_sizes: Array, m: int) -> Array:
    """bool `(g, m)` (or `(B, g, m)` with a leading batch axis): row r is in group i."""
    sizes_aval = get_aval(group_sizes)
    ends = cumsum(group_sizes, axis=sizes_aval.ndim - 1)
    starts = ew.sub(ends, group_sizes)
    shape = (*sizes_aval.shape, m)
    rows = st.broadcasted_iota(sizes_aval.dtype, shape, len(shape) - 1)
    lead = tuple(range(sizes_aval.ndim))
    starts = st.broadcast_in_dim(starts, shape, lead)
    ends = st.broadcast_in_dim(ends, shape, lead)
    return ew.bitwise_and(ew.le(starts, rows), ew.lt(rows, ends))


def _masked_lhs(lhs: Array, group_sizes: Array, lhs_batched: bool, sizes_batched: bool
                ) -> Array:
    """`lhs` masked per group: `(g, m, k)`, with a leading batch axis when either is batched."""
    l_aval = get_aval(lhs)
    m, k = l_aval.shape[-2:]
    mask = _group_mask(group_sizes, m)
    batch = (l_aval.shape[0],) if lhs_batched else get_aval(group_sizes).shape[:-1]
    g = get_aval(group_sizes).shape[-1]
    shape = (*batch, g, m, k)
    nb = len(batch)
    lhs_dims = (*range(nb), nb + 1, nb + 2) if lhs_batched else (nb + 1, nb + 2)
    mask_dims = tuple(range(nb + 2)) if sizes_batched else (nb, nb + 1)
    lhs_b = st.broadcast_in_dim(lhs, shape, lhs_dims)
    mask_b = st.broadcast_in_dim(mask, shape, mask_dims)
    return st.select(mask_b, lhs_b, st.full_like(lhs_b, 0))


def _ragged_dot_jvp_lhs(t: Array, lhs: Array, rhs: Array, group_sizes: Array,
                        **params: Any) -> Array:
    return ragged_dot_p.bind(t, rhs, group_sizes, **params)


def _ragged_dot_jvp_rhs(t: Array, lhs: Array, rhs: Array, group_sizes: Array,
                        **params: Any) -> Array:
    return ragged_dot_p.bind(lhs, t, group_sizes, **params)


def _ragged_dot_transpose(ct: Any, lhs: Any, rhs: Any, group_sizes: Any, *, precision: Any,
                          preferred_element_type: Any, group_offset: Any) -> list[Any]:
    out: list[Any] = [None, None, None]
    if is_undefined_primal(lhs):
        if type(ct) is Zero:
            out[0] = Zero(lhs.aval)
        else:
            # d lhs[r] = sum over r's groups i of ct[r] . rhs[i]^T: ragged_dot with rhs^T.
            ct_lhs = ragged_dot_p.bind(ct, st.transpose(rhs, (0, 2, 1)), group_sizes,
                                       precision=precision, preferred_element_type=None,
                                       group_offset=group_offset)
            out[0] = st.convert_element_type(ct_lhs, lhs.aval.dtype)
    if is_undefined_primal(rhs):
        if type(ct) is Zero:
            out[1] = Zero(rhs.aval)
        else:
            # d rhs[i] = (lhs's rows of group i)^T . ct's rows: masked lhs (g, m, k) with ct.
            masked = _masked_lhs(lhs, group_sizes, False, False)
            ct_rhs = dot_general(masked, ct, (((1,), (0,)), ((), ())), precision)
            out[1] = st.convert_element_type(ct_rhs, rhs.aval.dtype)
    return out


def _ragged_dot_batch(args: Sequence[Any], dims: Sequence[Any], *, precision: Any,
                      preferred_element_type: Any, group_offset: Any) -> tuple[Any, Any]:
    lhs, rhs, group_sizes = args
    ld, rd, gd = dims
    lhs_b, rhs_b, sizes_b = (d is not not_mapped for d in dims)
    if lhs_b:
        lhs = moveaxis(lhs, ld, 0)
    if rhs_b:
        rhs = moveaxis(rhs, rd, 0)
    if sizes_b:
        group_sizes = moveaxis(group_sizes, gd, 0)
    params = {"precision": precision, "preferred_element_type": preferred_element_type}
    if not lhs_b and not sizes_b:
        # Only rhs batched: masked lhs (g, m, k) . rhs (B, g, k, n) gives (m, B, n).
        masked = _masked_lhs(lhs, group_sizes, False, False)
        return dot_general(masked, rhs, (((0, 2), (1, 2)), ((), ())), **params), 1
    masked = _masked_lhs(lhs, group_sizes, lhs_b, sizes_b)  # (B, g, m, k)
    if rhs_b:
        return dot_general(masked, rhs, (((1, 3), (1, 2)), ((0,), (0,))), **params), 0
    return dot_general(masked, rhs, (((1, 3), (0, 1)), ((), ())), **params), 0


ragged_dot_p.def_impl(_ragged_dot_kernel)
ragged_dot_p.def_abstract_eval(_ragged_dot_abstract_eval)
ad.defjvp(ragged_dot_p, _ragged_dot_jvp_lhs, _ragged_dot_jvp_rhs, None)
ragged_dot_p.def_transpose(_ragged_dot_transpose)
ragged_dot_p.def_batch(_ragged_dot_batch)


def ragged_dot(lhs: Array, rhs: Array, group_sizes: Array, precision: Any = None,
               preferred_element_type: Any = None, group_offset: Array | None = None) -> Array:
    """Grouped matrix product: the rows of `lhs` `(m, k)`, taken in consecutive groups of
    `group_sizes` `(g,)` rows, each times its own `rhs[i]` (`rhs`: `(g, k, n)`); `(m, n)`.

    >>> import numjax.numpy as jnp
    >>> ragged_dot(jnp.ones((3, 2)), jnp.stack([jnp.eye(2), 2 * jnp.eye(2)]),
    ...            jnp.array([1, 2]))
    Array([[1., 1.],
           [2., 2.],
           [2., 2.]], dtype=float32)
    """
    if group_offset is not None:
        raise NotImplementedError("Unimplemented group_offset support.")
    pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(
        preferred_element_type)
    return ragged_dot_p.bind(lhs, rhs, group_sizes, precision=canonicalize_precision(precision),
                             preferred_element_type=pet, group_offset=None)
