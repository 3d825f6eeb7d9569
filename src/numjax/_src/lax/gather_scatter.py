"""Gather and scatter: XLA's general indexed reads and writes.

`gather` reads one window per index vector (`start_indices[..., :]` names the window start in the
dimensions `start_index_map`); `scatter*` writes one window of `updates` per index vector,
combining with the operand by set, add, mul, min or max. Index vectors always lie along the last
axis of the indices (JAX's convention).

The NumPy kernels are vectorized: for B index vectors and a window of shape W they build one
broadcast integer index array per operand dimension, of shape (B, *W), and use fancy indexing
(gather) or `np.<ufunc>.at` (scatters, which accumulate over repeated indices).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive, Tracer, operand_aval
from numjax._src.interpreters import ad, batching
from numjax._src.interpreters.ad import Zero, is_undefined_primal
from numjax._src.lax import elementwise as ew
from numjax._src.lax import reductions as red
from numjax._src.lax import structural as st
from numjax._src.lax.elementwise import _pick_lexicographic
from numjax._src.typing import Array

__all__ = [
    "GatherDimensionNumbers",
    "GatherScatterMode",
    "ScatterDimensionNumbers",
    "gather",
    "gather_p",
    "scatter",
    "scatter_add",
    "scatter_add_p",
    "scatter_apply",
    "scatter_max",
    "scatter_max_p",
    "scatter_min",
    "scatter_min_p",
    "scatter_mul",
    "scatter_mul_p",
    "scatter_p",
]

Shape = tuple[int, ...]


class GatherDimensionNumbers(NamedTuple):
    """How `gather` maps index vectors and windows onto the operand and the output.

    offset_dims: output dimensions holding the (uncollapsed) window dimensions, in order.
    collapsed_slice_dims: operand dimensions of window size 1 dropped from the output.
    start_index_map: operand dimension indexed by each component of an index vector.
    """

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]


class ScatterDimensionNumbers(NamedTuple):
    """How `scatter` maps index vectors and update windows onto the operand.

    update_window_dims: dimensions of `updates` that are window dimensions.
    inserted_window_dims: operand dimensions of window size 1 absent from `updates`.
    scatter_dims_to_operand_dims: operand dimension indexed by each index-vector component.
    """

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]


class GatherScatterMode(enum.Enum):
    """Out-of-bounds behaviour. CLIP clamps window starts into range; FILL_OR_DROP returns
    `fill_value` for gathers of out-of-bounds windows and drops out-of-bounds scatter updates;
    PROMISE_IN_BOUNDS lets the implementation choose (here: clamp for gather, drop for
    scatter, as XLA on CPU does)."""

    CLIP = 1
    FILL_OR_DROP = 2
    PROMISE_IN_BOUNDS = 3

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f'Unknown gather mode "{s}"')


# ---- shared index arithmetic ---------------------------------------------------------------


def _window_starts(idx: np.ndarray, operand_shape: Shape, index_map: Shape,
                   window: Shape, clamp: bool) -> tuple[np.ndarray, np.ndarray]:
    """(B, ndim) window starts (clamped if `clamp`) and the (B,) in-bounds mask."""
    ndim = len(operand_shape)
    starts = np.zeros((idx.shape[0], ndim), np.int64)
    starts[:, list(index_map)] = idx
    upper = np.asarray(operand_shape, np.int64) - np.asarray(window, np.int64)
    in_bounds = np.all((starts >= 0) & (starts <= upper), axis=1)
    if clamp:
        starts = np.clip(starts, 0, np.maximum(upper, 0))
    return starts, in_bounds


def _window_index(starts: np.ndarray, window: Shape) -> tuple[np.ndarray, ...]:
    """One broadcastable index array of shape (B, *window) per operand dimension."""
    ndim = len(window)
    out = []
    for d in range(ndim):
        view = [1] * (ndim + 1)
        view[d + 1] = window[d]
        offsets = np.arange(window[d], dtype=np.int64).reshape(view)
        out.append(starts[:, d].reshape((-1,) + (1,) * ndim) + offsets)
    return tuple(out)


def _default_fill(dtype: np.dtype) -> Any:
    if dtypes.issubdtype(dtype, np.inexact):
        return np.nan
    if dtype == np.bool_:
        return True
    if dtypes.issubdtype(dtype, np.signedinteger):
        return np.iinfo(dtype).min
    return np.iinfo(dtype).max


def _check_sorted(op: str, name: str, dims: Sequence[int]) -> None:
    if any(b < a for a, b in zip(dims[:-1], dims[1:], strict=True)):
        raise TypeError(f"{name} in {op} op must be sorted; got {dims}")


def _check_no_repeats(op: str, name: str, dims: Sequence[int]) -> None:
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name} in {op} op must not repeat; got: {dims}.")


def _check_sorted_in_range(op: str, name: str, dims: Sequence[int], rank: int) -> None:
    """`dims` is sorted: its ends are its extremes. A bad dim of 0 (a rank-0 operand) passes,
    as in JAX, whose later window-size check then names the problem."""
    if dims and (dims[0] < 0 or dims[-1] >= rank) and (dims[0] < 0 or dims[-1] != 0):
        bad = dims[0] if dims[0] < 0 else dims[-1]
        raise TypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); got: "
                        f"{bad}.")


def _check_index_vector(op: str, indices: ShapedArray) -> None:
    """The index vector is the last dimension of `indices` (JAX's implicit index_vector_dim),
    so `indices` needs one."""
    if indices.ndim < 1:
        raise TypeError(f"{op.capitalize()} index leaf dimension must be within [0, "
                        f"rank(indices) + 1). rank(indices) is {indices.ndim} and {op} index "
                        f"leaf dimension is {indices.ndim - 1}.")


def _check_integer_indices(indices: ShapedArray) -> None:
    # JAX checks dtypes after shapes (its dtype rule runs after the shape rule), and this one
    # is a ValueError.
    if not dtypes.issubdtype(indices.dtype, np.integer):
        raise ValueError("indices must have an integer type")


# ---- gather --------------------------------------------------------------------------------

gather_p = Primitive("gather")


def _gather_kernel(operand: Any, indices: Any, *, dimension_numbers: GatherDimensionNumbers,
                   slice_sizes: Shape, indices_are_sorted: bool, unique_indices: bool,
                   mode: GatherScatterMode, fill_value: Any) -> Any:
    operand, indices = np.asarray(operand), np.asarray(indices)
    dn = dimension_numbers
    batch_shape = indices.shape[:-1]
    idx = indices.reshape(math.prod(indices.shape[:-1]), indices.shape[-1]).astype(np.int64)
    fill = mode is GatherScatterMode.FILL_OR_DROP
    starts, in_bounds = _window_starts(idx, operand.shape, dn.start_index_map, slice_sizes,
                                       clamp=True)
    if operand.size == 0 or idx.shape[0] == 0:
        windows = np.zeros((idx.shape[0], *slice_sizes), operand.dtype)
        in_bounds = np.zeros(idx.shape[0], bool) if operand.size == 0 else in_bounds
    else:
        windows = operand[_window_index(starts, slice_sizes)]
    if fill and not in_bounds.all():
        value = _default_fill(operand.dtype) if fill_value is None else fill_value
        mask = in_bounds.reshape((-1,) + (1,) * operand.ndim)
        windows = np.where(mask, windows, np.asarray(value).astype(operand.dtype))
    offset_sizes = tuple(s for d, s in enumerate(slice_sizes) if d not in dn.collapsed_slice_dims)
    out = windows.reshape(batch_shape + offset_sizes)
    return np.moveaxis(out, tuple(range(len(batch_shape), out.ndim)), dn.offset_dims)


@gather_p.def_abstract_eval
def _gather_abstract_eval(operand: ShapedArray, indices: ShapedArray, *,
                          dimension_numbers: GatherDimensionNumbers, slice_sizes: Shape,
                          indices_are_sorted: bool, unique_indices: bool,
                          mode: GatherScatterMode, fill_value: Any) -> ShapedArray:
    dn = dimension_numbers
    # JAX's checks, in its order and words (XLA's gather shape inference), then the dtype.
    _check_index_vector("gather", indices)
    _check_sorted("gather", "offset_dims", dn.offset_dims)
    _check_no_repeats("gather", "offset_dims", dn.offset_dims)
    out_rank = len(dn.offset_dims) + indices.ndim - 1
    for i, d in enumerate(dn.offset_dims):
        if not 0 <= d < out_rank:
            raise TypeError(f"Offset dimension {i} in gather op is out of bounds; got {d}, but "
                            f"should have been in [0, {out_rank})")
    if len(dn.start_index_map) != indices.shape[-1]:
        raise TypeError(f"Gather op has {len(dn.start_index_map)} elements in start_index_map "
                        f"and the bound of dimension index_vector_dim={indices.ndim - 1} of "
                        f"indices is {indices.shape[-1]}. These two numbers must be equal.")
    for i, d in enumerate(dn.start_index_map):
        if not 0 <= d < operand.ndim:
            raise TypeError(f"Invalid start_index_map; domain is [0, {operand.ndim}), got: "
                            f"{i}->{d}.")
    _check_no_repeats("gather", "start_index_map", dn.start_index_map)
    _check_sorted("gather", "collapsed_slice_dims", dn.collapsed_slice_dims)
    _check_sorted_in_range("gather", "collapsed_slice_dims", dn.collapsed_slice_dims,
                           operand.ndim)
    _check_no_repeats("gather", "collapsed_slice_dims", dn.collapsed_slice_dims)
    if len(slice_sizes) != operand.ndim:
        raise TypeError(f"Gather op must have one slice size for every input dimension; got: "
                        f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}")
    if len(slice_sizes) != len(dn.offset_dims) + len(dn.collapsed_slice_dims):
        raise TypeError(f"All components of the offset index in a gather op must either be a "
                        f"offset dimension or explicitly collapsed; got len(slice_sizes)="
                        f"{len(slice_sizes)}, output_slice_sizes={dn.offset_dims}, "
                        f"collapsed_slice_dims={dn.collapsed_slice_dims}.")
    for d, (size, n) in enumerate(zip(slice_sizes, operand.shape, strict=True)):
        if not 0 <= size <= n:
            raise TypeError(f"Slice size at index {d} in gather op is out of range, must be "
                            f"within [0, {n} + 1), got {size}.")
    for i, d in enumerate(dn.collapsed_slice_dims):
        if slice_sizes[d] != 1:
            raise TypeError(f"Gather op can only collapse slice dims with bound 1, but bound is "
                            f"{slice_sizes[d]} for index {d} at position {i}.")
    offset_sizes = tuple(s for d, s in enumerate(slice_sizes) if d not in dn.collapsed_slice_dims)
    batch = iter(indices.shape[:-1])
    offsets = iter(offset_sizes)
    shape = tuple(next(offsets) if i in dn.offset_dims else next(batch) for i in range(out_rank))
    _check_integer_indices(indices)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _gather_jvp(primals: Sequence[Any], tangents: Sequence[Any],
                **params: Any) -> tuple[Any, Any]:
    operand, indices = primals
    t = tangents[0]
    out = gather_p.bind(operand, indices, **params)
    if type(t) is Zero:
        return out, Zero(ad.tangent_aval(get_aval(out)))
    # Linear in the operand; out-of-bounds windows of a filling gather have zero tangent.
    return out, gather_p.bind(t, indices, **{**params, "fill_value": 0})


def _gather_transpose(ct: Any, operand: Any, indices: Any, *,
                      dimension_numbers: GatherDimensionNumbers, slice_sizes: Shape,
                      indices_are_sorted: bool, unique_indices: bool, mode: GatherScatterMode,
                      fill_value: Any) -> list[Any]:
    if is_undefined_primal(indices):
        raise ValueError("gather is not linear in its indices")
    aval = operand.aval
    if type(ct) is Zero:
        return [Zero(aval), None]
    dn = dimension_numbers
    sdn = ScatterDimensionNumbers(update_window_dims=dn.offset_dims,
                                  inserted_window_dims=dn.collapsed_slice_dims,
                                  scatter_dims_to_operand_dims=dn.start_index_map)
    # The scatter keeps the gather's mode, as in JAX: a PROMISE_IN_BOUNDS gather clamps an
    # out-of-bounds index but its transpose drops it, so the gradient of jnp.arange(10.)[11]
    # is zero (XLA's behaviour on CPU).
    out = scatter_add_p.bind(st.zeros_like_aval(aval), indices, ct, dimension_numbers=sdn,
                             indices_are_sorted=indices_are_sorted,
                             unique_indices=unique_indices, mode=mode)
    return [out, None]


def _iota_column(indices: Any) -> Any:
    """`indices` (batch dim at 0) with a leading index component counting the batch."""
    aval = get_aval(indices)
    shape = aval.shape[:-1] + (1,)
    counter = st.broadcasted_iota(aval.dtype, shape, 0)
    return st.concatenate([counter, indices], aval.ndim - 1)


def _gather_batch(args: Sequence[Any], dims: Sequence[Any], *,
                  dimension_numbers: GatherDimensionNumbers, slice_sizes: Shape,
                  **params: Any) -> tuple[Any, Any]:
    operand, indices = args
    op_dim, idx_dim = dims
    dn = dimension_numbers
    if idx_dim is None:
        operand = batching.moveaxis(operand, op_dim, 0)
        size = get_aval(operand).shape[0]
        new = GatherDimensionNumbers(
            offset_dims=(0, *(d + 1 for d in dn.offset_dims)),
            collapsed_slice_dims=tuple(d + 1 for d in dn.collapsed_slice_dims),
            start_index_map=tuple(d + 1 for d in dn.start_index_map))
        return gather_p.bind(operand, indices, dimension_numbers=new,
                             slice_sizes=(size, *slice_sizes), **params), 0
    indices = batching.moveaxis(indices, idx_dim, 0)
    offset_dims = tuple(d + 1 for d in dn.offset_dims)
    if op_dim is None:
        new = dn._replace(offset_dims=offset_dims)
        return gather_p.bind(operand, indices, dimension_numbers=new, slice_sizes=slice_sizes,
                             **params), 0
    # Both batched: the batch index becomes one more gathered (and collapsed) operand dim.
    operand = batching.moveaxis(operand, op_dim, 0)
    op_aval = get_aval(operand)
    if op_aval.shape[0] == 0:
        # No examples: a slice of size 1 along the empty batch axis would not fit it, and
        # there is nothing to read anyway.
        aval = _gather_abstract_eval(
            ShapedArray(op_aval.shape[1:], op_aval.dtype, op_aval.weak_type),
            ShapedArray(get_aval(indices).shape[1:], get_aval(indices).dtype),
            dimension_numbers=dn, slice_sizes=slice_sizes, **params)
        return st.full_like(operand, 0, shape=(0, *aval.shape)), 0
    new = GatherDimensionNumbers(
        offset_dims=offset_dims,
        collapsed_slice_dims=(0, *(d + 1 for d in dn.collapsed_slice_dims)),
        start_index_map=(0, *(d + 1 for d in dn.start_index_map)))
    return gather_p.bind(operand, _iota_column(indices), dimension_numbers=new,
                         slice_sizes=(1, *slice_sizes), **params), 0


gather_p.def_impl(_gather_kernel)


def _gather_kernel_factory(in_avals: Sequence[Any], **params: Any) -> Any:
    """A kernel planned once for these shapes: a gather of one window (one index vector, as
    `x[i]` or `x[i, j]` traced with array indices) reads it by basic slicing from the start
    indices as Python ints; any other gather takes the general kernel."""
    operand, indices = in_avals
    general = lambda o, i: _gather_kernel(o, i, **params)
    if math.prod(indices.shape[:-1]) != 1 or math.prod(operand.shape) == 0:
        return general
    dn: GatherDimensionNumbers = params["dimension_numbers"]
    sizes = tuple(params["slice_sizes"])
    upper = [n - size for n, size in zip(operand.shape, sizes, strict=True)]
    out_shape = _gather_abstract_eval(operand, indices, **params).shape
    index_map = tuple(dn.start_index_map)
    fill = params["mode"] is GatherScatterMode.FILL_OR_DROP
    value = params["fill_value"]
    fill_value = np.asarray(_default_fill(operand.dtype) if value is None else value
                            ).astype(operand.dtype)

    def kernel(x: Any, idx: Any) -> Any:
        starts = [0] * len(sizes)
        inside = True
        for d, i in zip(index_map, np.asarray(idx).reshape(-1).tolist(), strict=True):
            top = upper[d]
            if not 0 <= i <= top:
                inside = False
                i = 0 if i < 0 else top
            starts[d] = i
        if fill and not inside:
            return np.full(out_shape, fill_value, operand.dtype)
        window = np.asarray(x)[tuple(slice(s, s + n) for s, n in zip(starts, sizes,
                                                                       strict=True))]
        return window.reshape(out_shape).copy()  # its own buffer, as the general kernel's

    return kernel


gather_p.def_kernel_factory(_gather_kernel_factory)
gather_p.def_jvp(_gather_jvp)
gather_p.def_transpose(_gather_transpose)
gather_p.def_batch(_gather_batch)


def _canonical_ints(x: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(d) for d in x)


def gather(operand: Array, start_indices: Array, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Sequence[int], *, unique_indices: bool = False,
           indices_are_sorted: bool = False, mode: str | GatherScatterMode | None = None,
           fill_value: Any = None) -> Array:
    """Gather windows of `operand` starting at the index vectors in `start_indices`.

    >>> import numjax.numpy as jnp
    >>> dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
    ...                             start_index_map=(0,))
    >>> gather(jnp.array([10, 20, 30]), jnp.array([[2], [0]]), dn, (1,))
    Array([30, 10], dtype=int32)
    """
    dn = GatherDimensionNumbers(*(_canonical_ints(f) for f in dimension_numbers))
    parsed = GatherScatterMode.from_any(mode)
    if fill_value is not None and parsed is GatherScatterMode.FILL_OR_DROP:
        fill_value = np.asarray(fill_value).item()
    else:
        fill_value = None
    return gather_p.bind(operand, start_indices, dimension_numbers=dn,
                         slice_sizes=_canonical_ints(slice_sizes),
                         indices_are_sorted=bool(indices_are_sorted),
                         unique_indices=bool(unique_indices), mode=parsed, fill_value=fill_value)


def index_take(src: Array, idxs: Sequence[Array], axes: Sequence[int]) -> Array:
    """`src` indexed along `axes` by the index arrays `idxs` taken together (one per axis,
    the same shape); negative and out-of-range indices wrap around modulo the axis size.

    >>> import numjax.numpy as jnp
    >>> index_take(jnp.arange(6).reshape(2, 3), (jnp.array([0, -1]),), (1,))
    Array([[0, 3],
           [2, 5]], dtype=int32)
    """
    src_shape = operand_aval(src).shape
    indices = st.concatenate([st.expand_dims(i, (1,)) for i in idxs], 1)
    aval = get_aval(indices)
    sizes = np.array([src_shape[ax] for ax in axes], dtype=aval.dtype)
    bound = st.expand_dims(sizes, tuple(range(aval.ndim - 1)))
    # Floor modulo (Python's `%`), so that -1 is the last element: rem truncates.
    indices = ew.rem(ew.add(ew.rem(indices, bound), bound), bound)
    slice_sizes = list(src_shape)
    for ax in axes:
        slice_sizes[ax] = 1
    offset_dims = tuple(range(1, len(src_shape) - aval.shape[1] + 1))
    dn = GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=tuple(axes),
                                start_index_map=tuple(axes))
    return gather(src, indices, dn, tuple(slice_sizes))


# ---- scatters ------------------------------------------------------------------------------


def _scatter_window(dn: ScatterDimensionNumbers, operand_shape: Shape,
                    updates_shape: Shape) -> Shape:
    sizes = iter(updates_shape[d] for d in dn.update_window_dims)
    return tuple(1 if d in dn.inserted_window_dims else next(sizes)
                 for d in range(len(operand_shape)))


def _scatter_kernel_for(combine: np.ufunc | None) -> Callable[..., Any]:
    def kernel(operand: Any, indices: Any, updates: Any, *,
               dimension_numbers: ScatterDimensionNumbers, indices_are_sorted: bool,
               unique_indices: bool, mode: GatherScatterMode, out: np.ndarray | None = None
               ) -> Any:
        operand, indices, updates = map(np.asarray, (operand, indices, updates))
        dn = dimension_numbers
        # `out` is the operand's own dead buffer (updates_in_place): updated where it lies.
        out = operand.copy() if out is None else out
        window = _scatter_window(dn, operand.shape, updates.shape)
        idx = indices.reshape(math.prod(indices.shape[:-1]), indices.shape[-1]).astype(np.int64)
        if idx.shape[0] == 0 or updates.size == 0 or operand.size == 0:
            return out
        starts, in_bounds = _window_starts(idx, operand.shape, dn.scatter_dims_to_operand_dims,
                                           window, clamp=mode is GatherScatterMode.CLIP)
        scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
        upd = np.transpose(updates, (*scatter_dims, *dn.update_window_dims))
        upd = upd.reshape((idx.shape[0], *window))
        if mode is not GatherScatterMode.CLIP:
            starts, upd = starts[in_bounds], upd[in_bounds]
        where = _window_index(starts, window)
        upd = upd.astype(out.dtype, copy=False)
        if combine is None:
            out[where] = upd
        elif out.dtype.kind == "c" and combine in (np.minimum, np.maximum):
            _complex_pick_at(out, where, upd, combine is np.maximum)
        else:
            combine.at(out, where, upd)
        return out

    return kernel


def _complex_pick_at(out: np.ndarray, where: tuple[np.ndarray, ...], upd: np.ndarray,
                     greater: bool) -> None:
    """`np.maximum.at`/`np.minimum.at` for complex values with XLA's combiner, lax.max/min's
    lexicographic pick (NaNs compare false: scatter_min of nan + 0j with 1j is 1j), applied
    update after update: in rounds, each taking every position's next update."""
    pos = np.ravel_multi_index(np.broadcast_arrays(*where), out.shape).reshape(-1)
    vals = np.broadcast_to(upd, np.broadcast_shapes(*(w.shape for w in where), upd.shape))
    vals = vals.reshape(-1)
    order = np.argsort(pos, kind="stable")
    sorted_pos = pos[order]
    first = np.searchsorted(sorted_pos, sorted_pos, side="left")
    rank = np.empty_like(pos)
    rank[order] = np.arange(pos.size) - first  # how many earlier updates hit the same place
    flat = out.reshape(-1)
    for r in range(int(rank.max()) + 1 if pos.size else 0):
        at = rank == r
        flat[pos[at]] = _pick_lexicographic(flat[pos[at]], vals[at], greater)


def _scatter_abstract_eval(operand: ShapedArray, indices: ShapedArray, updates: ShapedArray, *,
                           dimension_numbers: ScatterDimensionNumbers, indices_are_sorted: bool,
                           unique_indices: bool, mode: GatherScatterMode) -> ShapedArray:
    dn = dimension_numbers
    # JAX's checks, in its order and words (XLA's scatter shape inference), then the dtypes.
    _check_index_vector("scatter", indices)
    expected_rank = indices.ndim - 1 + len(dn.update_window_dims)
    if updates.ndim != expected_rank:
        raise TypeError(f"Updates tensor must be of rank {expected_rank}; got {updates.ndim}.")
    for what, dims, rank in (("update_window_dims", dn.update_window_dims, updates.ndim),
                             ("inserted_window_dims", dn.inserted_window_dims, operand.ndim)):
        _check_sorted("scatter", what, dims)
        _check_no_repeats("scatter", what, dims)
        _check_sorted_in_range("scatter", what, dims, rank)
    window_size = len(dn.update_window_dims) + len(dn.inserted_window_dims)
    if window_size != operand.ndim:
        raise TypeError(f"Scatter op has window of size {window_size}; doesn't match operand "
                        f"of rank {operand.ndim}.")
    if len(dn.scatter_dims_to_operand_dims) != indices.shape[-1]:
        raise TypeError(f"Scatter op has {len(dn.scatter_dims_to_operand_dims)} elements in "
                        f"scatter_dims_to_operand_dims and the bound of dimension "
                        f"index_vector_dim={indices.ndim - 1} of indices is "
                        f"{indices.shape[-1]}. These two numbers must be equal")
    for i, d in enumerate(dn.scatter_dims_to_operand_dims):
        if not 0 <= d < operand.ndim:
            raise TypeError(f"Invalid scatter_dims_to_operand_dims mapping; domain is "
                            f"[0, {operand.ndim}), got: {i}->{d}.")
    _check_no_repeats("scatter", "scatter_dims_to_operand_dims",
                      dn.scatter_dims_to_operand_dims)
    # Only the window dims present in `updates` are bounded by the operand: an inserted dim
    # (window size 1) may index an axis of length 0 when there are no updates (a vmap over
    # 0 examples scatters along its batch axis so).
    bounds = [n for d, n in enumerate(operand.shape) if d not in dn.inserted_window_dims]
    for d, n in zip(dn.update_window_dims, bounds, strict=True):
        if updates.shape[d] > n:
            raise TypeError(f"Bounds of the window dimensions of updates must not exceed the "
                            f"bounds of the corresponding dimensions of operand. For dimension "
                            f"{d}, updates bound is {updates.shape[d]}, operand bound is {n}.")
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    for d, n in zip(scatter_dims, indices.shape[:-1], strict=True):
        if updates.shape[d] != n:
            raise TypeError(f"Bounds of the scatter dimensions of updates must be the same as "
                            f"the bounds of the corresponding dimensions of scatter indices. "
                            f"For scatter dimension {d}, updates bound is {updates.shape[d]}, "
                            f"indices bound is {n}.")
    _check_integer_indices(indices)
    if updates.dtype != operand.dtype:
        raise TypeError(f"lax.scatter requires arguments to have the same dtypes, got "
                        f"{operand.dtype.name}, {updates.dtype.name}.")
    return ShapedArray(operand.shape, operand.dtype, operand.weak_type)


def _gather_dnums_for(dn: ScatterDimensionNumbers, operand_shape: Shape,
                      updates_shape: Shape) -> tuple[GatherDimensionNumbers, Shape]:
    """The gather reading, for each update element, the operand element it lands on."""
    gdn = GatherDimensionNumbers(offset_dims=dn.update_window_dims,
                                 collapsed_slice_dims=dn.inserted_window_dims,
                                 start_index_map=dn.scatter_dims_to_operand_dims)
    return gdn, _scatter_window(dn, operand_shape, updates_shape)


def _gather_like_updates(x: Any, indices: Any, updates_shape: Shape,
                         dn: ScatterDimensionNumbers, mode: GatherScatterMode,
                         fill_value: Any = 0) -> Any:
    aval = get_aval(x)
    if aval.size == 0:
        # Every window lies off an empty axis of `x` (a gather could not even take its
        # slice of size 1 there): each update position reads as dropped.
        return st.full_like(x, 0 if fill_value is None else fill_value, shape=updates_shape)
    gdn, slice_sizes = _gather_dnums_for(dn, aval.shape, updates_shape)
    # A dropped update window reads as `fill_value`; a clipped one reads where it landed.
    gmode = GatherScatterMode.CLIP if mode is GatherScatterMode.CLIP else \
        GatherScatterMode.FILL_OR_DROP
    return gather_p.bind(x, indices, dimension_numbers=gdn, slice_sizes=slice_sizes,
                         indices_are_sorted=False, unique_indices=False, mode=gmode,
                         fill_value=fill_value)


def _scatter_batch_for(p: Primitive) -> Callable[..., tuple[Any, Any]]:
    def rule(args: Sequence[Any], dims: Sequence[Any], *,
             dimension_numbers: ScatterDimensionNumbers, **params: Any) -> tuple[Any, Any]:
        operand, indices, updates = args
        size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True)
                    if d is not None)
        dn = dimension_numbers
        operand = batching.bdim_at_front(operand, dims[0], size)
        updates = batching.bdim_at_front(updates, dims[2], size)
        if dims[1] is None:
            # Shared indices: the batch is one more window dimension of every update (the
            # first, matching operand dim 0, so window dims stay in ascending order).
            new = ScatterDimensionNumbers(
                update_window_dims=(0, *(d + 1 for d in dn.update_window_dims)),
                inserted_window_dims=tuple(d + 1 for d in dn.inserted_window_dims),
                scatter_dims_to_operand_dims=tuple(d + 1
                                                   for d in dn.scatter_dims_to_operand_dims))
            return p.bind(operand, indices, updates, dimension_numbers=new, **params), 0
        indices = batching.moveaxis(indices, dims[1], 0)
        new = ScatterDimensionNumbers(
            update_window_dims=tuple(d + 1 for d in dn.update_window_dims),
            inserted_window_dims=(0, *(d + 1 for d in dn.inserted_window_dims)),
            scatter_dims_to_operand_dims=(0, *(d + 1 for d in dn.scatter_dims_to_operand_dims)))
        return p.bind(operand, _iota_column(indices), updates, dimension_numbers=new,
                      **params), 0

    return rule


def _scatter_transpose_for(p: Primitive) -> Callable[..., list[Any]]:
    """scatter_add: linear in operand and updates. scatter (set): linear too, jointly."""

    def rule(ct: Any, operand: Any, indices: Any, updates: Any, *,
             dimension_numbers: ScatterDimensionNumbers, indices_are_sorted: bool,
             unique_indices: bool, mode: GatherScatterMode) -> list[Any]:
        if is_undefined_primal(indices):
            raise ValueError(f"{p.name} is not linear in its indices")
        op_aval = operand.aval if is_undefined_primal(operand) else get_aval(operand)
        upd_aval = updates.aval if is_undefined_primal(updates) else get_aval(updates)
        dn = dimension_numbers
        if type(ct) is Zero:
            return [Zero(op_aval) if is_undefined_primal(operand) else None, None,
                    Zero(upd_aval) if is_undefined_primal(updates) else None]
        ct_operand = ct_updates = None
        if is_undefined_primal(operand):
            if p is scatter_add_p:
                ct_operand = ct
            else:
                # Overwritten positions do not see the old operand.
                zeros = st.full(upd_aval.shape, 0, upd_aval.dtype)
                ct_operand = scatter_p.bind(ct, indices, zeros, dimension_numbers=dn,
                                            indices_are_sorted=indices_are_sorted,
                                            unique_indices=unique_indices, mode=mode)
        if is_undefined_primal(updates):
            ct_updates = _gather_like_updates(ct, indices, upd_aval.shape, dn, mode)
            if p is scatter_p and not unique_indices:
                ct_updates = ew.mul(ct_updates, _winner_mask(op_aval, indices, upd_aval, dn,
                                                              mode, ct_updates))
        return [ct_operand, None, ct_updates]

    return rule


def _winner_mask(op_aval: Any, indices: Any, upd_aval: Any, dn: ScatterDimensionNumbers,
                 mode: GatherScatterMode, like: Any) -> Any:
    """1 for update elements that survive a scatter with repeated indices (the last write
    wins, as in the kernel), else 0: scatter each update's id, read the winning id back."""
    nb = len(upd_aval.shape) - len(dn.update_window_dims)
    scatter_dims = [d for d in range(len(upd_aval.shape)) if d not in dn.update_window_dims]
    batch_shape = tuple(upd_aval.shape[d] for d in scatter_dims)
    count = int(np.prod(batch_shape, dtype=np.int64))
    ids = st.reshape(st.iota(np.int32, count), batch_shape) if nb else st.full((), 0,
                                                                                   np.int32)
    ids = st.broadcast_in_dim(ids, upd_aval.shape, tuple(scatter_dims))
    slots = st.full(op_aval.shape, -1, np.int32)
    winners = scatter_p.bind(slots, indices, ids, dimension_numbers=dn,
                             indices_are_sorted=False, unique_indices=False, mode=mode)
    back = _gather_like_updates(winners, indices, upd_aval.shape, dn, mode, fill_value=-1)
    return st.convert_element_type(ew.eq(back, ids), get_aval(like).dtype)


def _scatter_linear_jvp(p: Primitive) -> Callable[..., tuple[Any, Any]]:
    def jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        operand, indices, updates = primals
        t_op, _, t_upd = tangents
        out = p.bind(operand, indices, updates, **params)
        if type(t_op) is Zero and type(t_upd) is Zero:
            return out, Zero(ad.tangent_aval(get_aval(out)))
        return out, p.bind(ad.instantiate_zeros(t_op), indices, ad.instantiate_zeros(t_upd),
                           **params)

    return jvp


def _scatter_mul_jvp(primals: Sequence[Any], tangents: Sequence[Any],
                     **params: Any) -> tuple[Any, Any]:
    operand, indices, updates = primals
    t_op, _, t_upd = tangents
    out = scatter_mul_p.bind(operand, indices, updates, **params)
    t_out: Any = Zero(ad.tangent_aval(get_aval(out)))
    if type(t_op) is not Zero:
        # Linear in the operand: d(x * u) = dx * u.
        t_out = scatter_mul_p.bind(t_op, indices, updates, **params)
    if type(t_upd) is not Zero:
        if not params["unique_indices"]:
            raise NotImplementedError(
                "scatter_mul gradients are only implemented if `unique_indices=True`")
        dn, mode = params["dimension_numbers"], params["mode"]
        x_at = _gather_like_updates(operand, indices, get_aval(updates).shape, dn, mode)
        zeros = st.full_like(operand, 0)
        term = scatter_add_p.bind(zeros, indices, ew.mul(x_at, t_upd), **params)
        t_out = ad.add_tangents(t_out, term)
    return out, t_out


def _scatter_extremal_jvp(p: Primitive) -> Callable[..., tuple[Any, Any]]:
    """The tangent of whichever input attains the extremum; ties share it equally."""

    def jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        operand, indices, updates = primals
        t_op, _, t_upd = map(ad.instantiate_zeros, tangents)
        out = p.bind(operand, indices, updates, **params)
        dn, mode = params["dimension_numbers"], params["mode"]
        dtype = get_aval(out).dtype
        upd_shape = get_aval(updates).shape
        op_hit = st.convert_element_type(ew.eq(operand, out), dtype)
        out_at = _gather_like_updates(out, indices, upd_shape, dn, mode, fill_value=np.nan)
        upd_hit = st.convert_element_type(ew.eq(updates, out_at), dtype)
        zeros = st.full_like(out, 0)
        add = dict(params)
        count = ew.add(op_hit, scatter_add_p.bind(zeros, indices, upd_hit, **add))
        total = ew.add(ew.mul(op_hit, t_op),
                        scatter_add_p.bind(zeros, indices, ew.mul(upd_hit, t_upd), **add))
        return out, ew.div(total, count)

    return jvp


def _make_scatter(name: str, combine: np.ufunc | None) -> Primitive:
    p = Primitive(name)
    p.def_impl(_scatter_kernel_for(combine))
    combiner = {"scatter-add": "add", "scatter-mul": "mul"}.get(name)
    if combiner is None:
        p.def_abstract_eval(_scatter_abstract_eval)
    else:
        def abstract_eval(operand: ShapedArray, *args: Any, **params: Any) -> ShapedArray:
            # The combiner is an add or mul computation, which takes no booleans (JAX's text).
            if operand.dtype == np.bool_:
                raise TypeError(f"{combiner} does not accept dtype bool at position 0. Accepted "
                                "dtypes at position 0 are subtypes of integer, complexfloating, "
                                "floating.")
            return _scatter_abstract_eval(operand, *args, **params)

        p.def_abstract_eval(abstract_eval)
    p.def_batch(_scatter_batch_for(p))
    return p


scatter_p = _make_scatter("scatter", None)
scatter_add_p = _make_scatter("scatter-add", np.add)
scatter_mul_p = _make_scatter("scatter-mul", np.multiply)
scatter_min_p = _make_scatter("scatter-min", np.minimum)
scatter_max_p = _make_scatter("scatter-max", np.maximum)

for _p in (scatter_p, scatter_add_p, scatter_mul_p, scatter_min_p, scatter_max_p):
    _p.updates_in_place = True
for _p in (scatter_p, scatter_add_p):
    _p.def_jvp(_scatter_linear_jvp(_p))
    _p.def_transpose(_scatter_transpose_for(_p))
scatter_mul_p.def_jvp(_scatter_mul_jvp)


def _scatter_mul_transpose(ct: Any, operand: Any, indices: Any, updates: Any,
                           **params: Any) -> list[Any]:
    # Multiplying the operand elementwise by a fixed factor is its own transpose.
    if is_undefined_primal(updates) or is_undefined_primal(indices):
        raise NotImplementedError("scatter_mul is linear only in its operand")
    if type(ct) is Zero:
        return [Zero(operand.aval), None, None]
    return [scatter_mul_p.bind(ct, indices, updates, **params), None, None]


scatter_mul_p.def_transpose(_scatter_mul_transpose)
scatter_min_p.def_jvp(_scatter_extremal_jvp(scatter_min_p))
scatter_max_p.def_jvp(_scatter_extremal_jvp(scatter_max_p))


def _scatter_bind(p: Primitive, operand: Array, indices: Array, updates: Array,
                  dimension_numbers: ScatterDimensionNumbers, indices_are_sorted: bool,
                  unique_indices: bool, mode: str | GatherScatterMode | None) -> Array:
    dn = ScatterDimensionNumbers(*(_canonical_ints(f) for f in dimension_numbers))
    if p is not scatter_p:  # JAX makes the combiner from a constant of the operand's dtype
        try:
            get_aval(operand)
        except TypeError:
            dtypes.dtype(operand)
            raise
    return p.bind(operand, indices, updates, dimension_numbers=dn,
                  indices_are_sorted=bool(indices_are_sorted),
                  unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode))


def scatter(operand: Array, scatter_indices: Array, updates: Array,
            dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Array:
    """Overwrite windows of `operand` with `updates` (repeated indices: one write wins).

    >>> import numjax.numpy as jnp
    >>> dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                              scatter_dims_to_operand_dims=(0,))
    >>> scatter(jnp.zeros(3), jnp.array([[2]]), jnp.array([5.0]), dn)
    Array([0., 0., 5.], dtype=float32)
    """
    return _scatter_bind(scatter_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_add(operand: Array, scatter_indices: Array, updates: Array,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False,
                mode: str | GatherScatterMode | None = None) -> Array:
    """Add `updates` into windows of `operand` (repeated indices accumulate).

    >>> import numjax.numpy as jnp
    >>> dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                              scatter_dims_to_operand_dims=(0,))
    >>> scatter_add(jnp.zeros(3), jnp.array([[1], [1]]), jnp.array([1.0, 2.0]), dn)
    Array([0., 3., 0.], dtype=float32)
    """
    return _scatter_bind(scatter_add_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_mul(operand: Array, scatter_indices: Array, updates: Array,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False,
                mode: str | GatherScatterMode | None = None) -> Array:
    """Multiply windows of `operand` by `updates`."""
    return _scatter_bind(scatter_mul_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_min(operand: Array, scatter_indices: Array, updates: Array,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False,
                mode: str | GatherScatterMode | None = None) -> Array:
    """Elementwise minimum of windows of `operand` with `updates`."""
    return _scatter_bind(scatter_min_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_max(operand: Array, scatter_indices: Array, updates: Array,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False,
                mode: str | GatherScatterMode | None = None) -> Array:
    """Elementwise maximum of windows of `operand` with `updates`."""
    return _scatter_bind(scatter_max_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


_UNROLLED_APPLY_ROUNDS = 8  # index vectors up to which traced scatter_apply rounds are unrolled


def scatter_apply(operand: Array, scatter_indices: Array, func: Callable[[Array], Array],
                  dimension_numbers: ScatterDimensionNumbers, *, update_shape: Sequence[int] = (),
                  indices_are_sorted: bool = False, unique_indices: bool = False,
                  mode: str | GatherScatterMode | None = None) -> Array:
    """Apply the elementwise `func` to the elements of `operand` the scatter windows cover,
    once per update as XLA does (an element hit twice gets `func(func(x))`).

    >>> import numjax.numpy as jnp
    >>> dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                              scatter_dims_to_operand_dims=(0,))
    >>> scatter_apply(jnp.arange(3.0), jnp.array([[1], [1]]), lambda v: v * 10, dn,
    ...               update_shape=(2,))
    Array([  0., 100.,   2.], dtype=float32)
    """
    dn = ScatterDimensionNumbers(*(_canonical_ints(f) for f in dimension_numbers))
    parsed = GatherScatterMode.from_any(mode)
    update_shape = _canonical_ints(update_shape)

    def apply_once(x: Any) -> Any:
        current = _gather_like_updates(x, scatter_indices, update_shape, dn, parsed,
                                       fill_value=None)
        updated = func(current)
        if get_aval(updated).dtype != get_aval(current).dtype:
            # XLA's scatter combiner must keep the operand's type (JAX fails to lower it).
            raise ValueError(
                "Cannot lower jaxpr with verifier errors:\n\tThe type of reduction-region's "
                "parameter at index 0 is different than the corresponding result type: "
                f"'tensor<{_hlo_type(get_aval(current).dtype)}>' vs "
                f"'tensor<{_hlo_type(get_aval(updated).dtype)}>'")
        return _scatter_bind(scatter_p, x, scatter_indices, updated, dn,
                             indices_are_sorted, unique_indices, parsed)

    if unique_indices or math.prod(get_aval(scatter_indices).shape[:-1]) <= 1:
        # One index vector (or none) cannot hit an element twice, traced or not: one round,
        # which reverse mode can differentiate under jit too.
        return apply_once(operand)
    # XLA applies `func` once per update, so an element hit k times becomes func applied k
    # times: count the hits, then apply in rounds, round k changing the elements hit more than
    # k times.
    indices_value = _concrete_value(scatter_indices)
    if indices_value is not None:
        hits = np.zeros(get_aval(operand).shape, np.int32)
        hits = _scatter_kernel_for(np.add)(hits, indices_value, np.ones(update_shape, np.int32),
                                           dimension_numbers=dn, indices_are_sorted=False,
                                           unique_indices=False, mode=parsed)
        for k in range(int(hits.max(initial=0))):
            updated = apply_once(operand)
            operand = updated if k == 0 else st.select(hits > k, updated, operand)
        return operand
    # Traced indices: as many rounds as the most-hit element needs. No element is hit more
    # often than there are index vectors, so a few of them get that many rounds written out
    # (differentiable in both modes); more run in a loop bounded by the actual hits
    # (forward-mode differentiable; JAX's scatter_apply has no derivative at all). Loops sit
    # above lax, so the import is local.
    from numjax._src.control_flow.loops import while_loop
    hits = scatter_add_p.bind(st.full(get_aval(operand).shape, 0, np.int32), scatter_indices,
                              st.full(update_shape, 1, np.int32), dimension_numbers=dn,
                              indices_are_sorted=False, unique_indices=False, mode=parsed)
    n_updates = math.prod(get_aval(scatter_indices).shape[:-1])
    if n_updates <= _UNROLLED_APPLY_ROUNDS:
        operand = apply_once(operand)
        for k in range(1, n_updates):
            operand = st.select(ew.gt(hits, np.int32(k)), apply_once(operand), operand)
        return operand
    rounds = red.reduce_max(hits, tuple(range(len(get_aval(hits).shape))))

    def body(carry: tuple[Any, Any]) -> tuple[Any, Any]:
        k, x = carry
        return ew.add(k, np.int32(1)), st.select(ew.gt(hits, k), apply_once(x), x)

    return while_loop(lambda carry: ew.lt(carry[0], rounds), body, (np.int32(0), operand))[1]


def _hlo_type(dtype: np.dtype) -> str:
    """The MLIR spelling of an element type (f32, ui8, i1, complex<f32>) in XLA's messages."""
    if dtype == np.bool_:
        return "i1"
    if dtype.kind == "c":
        return f"complex<f{dtype.itemsize * 4}>"
    if dtype == np.dtype(dtypes.bfloat16):
        return "bf16"
    prefix = {"f": "f", "i": "i", "u": "ui"}.get(dtype.kind, dtype.name)
    return f"{prefix}{dtype.itemsize * 8}"


def _concrete_value(x: Any) -> np.ndarray | None:
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        return None if value is None else np.asarray(value)
    return np.asarray(x)
