"""Indexing: `x[idx]` and `x.at[idx]` updates.

Static basic indices (integers, slices, None, Ellipsis) lower to slice/rev/reshape, except on
an Array split across devices, which JAX reads with a gather. Traced integers, integer arrays
and boolean masks need gather/scatter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.lax.gather_scatter import GatherDimensionNumbers, GatherScatterMode
from numjax._src.numpy.advanced_indexing import IndexUpdateRef, advanced_getitem
from numjax._src.runtime import placement, transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.typing import Array


def _is_static_int(i: Any) -> bool:
    return isinstance(i, int | np.integer) and not isinstance(i, bool)


def _consumed_dims(i: Any) -> int:
    """How many dimensions of the indexed array an index item reads: a boolean mask its own
    rank (0 for x[True], which adds an axis), None and Ellipsis none, anything else one."""
    if i is None or i is Ellipsis or isinstance(i, bool | np.bool_):
        return 0
    if isinstance(i, slice | int | np.integer):
        return 1
    try:
        aval = get_aval(i)
    except TypeError:
        return 1
    return aval.ndim if aval.dtype == np.bool_ else 1


def _expand_index(index: Any, ndim: int) -> list[Any]:
    if not isinstance(index, tuple):
        index = (index,)
    n_real = sum(_consumed_dims(i) for i in index)
    out: list[Any] = []
    seen_ellipsis = False
    for i in index:
        if i is Ellipsis:
            if seen_ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen_ellipsis = True
            out.extend([slice(None)] * (ndim - n_real))
        else:
            out.append(i)
    if n_real > ndim:
        raise IndexError(f"Too many indices for array: {n_real} non-None/Ellipsis indices for "
                         f"dim {ndim}.")
    if not seen_ellipsis:  # the unindexed trailing dimensions are taken whole
        out.extend([slice(None)] * (ndim - n_real))
    return out


def _slice_bounds(i: slice, size: int) -> tuple[int, int, int, int]:
    """A slice of an axis of `size` as lax.slice's (start, limit) over the elements it reads,
    its step and their count; a negative step reads the same elements, reversed after."""
    start, stop, step = i.indices(size)
    if step > 0:
        n = max(0, (stop - start + step - 1) // step)
        return start, start + (n - 1) * step + 1 if n else start, step, n
    n = max(0, (start - stop - step - 1) // -step)
    first = start + (n - 1) * step if n else 0
    return first, start + 1 if n else 0, step, n


def _is_gather_in_jax(items: list[Any]) -> bool:
    """Whether JAX indexes with a gather rather than a slice: a new axis, or a slice with a
    step other than 1 that is not a plain reverse `::-1`."""
    for i in items:
        if i is None:
            return True
        if isinstance(i, slice) and i.step is not None and i.step != 1 and not (
                i.step == -1 and i.start is None and i.stop is None):
            return True
    return False


def _gather_from_split(x: Array, items: list[Any], shape: tuple[int, ...]) -> Array | None:
    """`x[items]` for a static basic index as JAX reads an Array split across devices: one
    gather at static places, then the new axes (a slice run eagerly would be a dynamic slice
    at places passed in, which JAX's partitioner lays out whole once it cuts a split
    dimension; the gather keeps the split of the dimensions it reads whole). Integers and
    unit-step parts of a dimension are windows of the gather, other steps index arrays of
    it. None for an Array on one device, or an index reading whole dimensions only, some
    reversed (JAX reverses them)."""
    if not placement.split_across_devices(x):
        return None
    real = [i for i in items if i is not None]
    if len(real) == len(items) and all(
            i.indices(n) in ((0, n, 1), (n - 1, -1, -1)) if isinstance(i, slice) else False
            for i, n in zip(real, shape, strict=True)):
        return None
    windows: list[tuple[int, int]] = []  # (dimension, start) of each window cut from x
    arrays: list[tuple[int, np.ndarray]] = []  # (dimension, places) read by index arrays
    sizes: list[int] = []
    collapsed: list[int] = []
    out_dims: list[int] = []
    offset_dims: list[int] = []
    for d, (i, n) in enumerate(zip(real, shape, strict=True)):
        if _is_static_int(i):
            if not -n <= int(i) < n:
                return None  # out of bounds: advanced indexing's clamping gather
            windows.append((d, int(i) % n))
            sizes.append(1)
            collapsed.append(d)
            continue
        start, stop, step = i.indices(n)
        if step == 1:
            count = max(0, stop - start)
            if count != n:
                windows.append((d, start))
            offset_dims.append(len(out_dims))
            sizes.append(count)
        else:
            places = np.arange(start, stop, step, dtype=np.int32)
            arrays.append((d, places))
            count = len(places)
            sizes.append(1)
            collapsed.append(d)
        out_dims.append(count)
    if 0 in out_dims:
        # JAX makes no gather for an empty result, but a new zero constant.
        return lax.full_like(x, 0, shape=tuple(_with_new_axes(items, out_dims)))
    # The index vectors: each index array along its own batch dimension, the windows'
    # starts broadcast along all of them.
    batch = [len(places) for _, places in arrays]
    columns = [np.broadcast_to(places.reshape([-1 if k == j else 1 for k in range(len(batch))]),
                               batch) for j, (_, places) in enumerate(arrays)]
    columns += [np.full(batch, start, np.int32) for _, start in windows]
    indices = np.stack(columns, axis=-1) if columns else np.zeros((0,), np.int32)
    if transfer_guard._in_use:
        transfer_guard.library_constant(0, np.int32)  # JAX places the places on the device
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(offset_dims), collapsed_slice_dims=tuple(collapsed),
        start_index_map=tuple(d for d, _ in arrays) + tuple(d for d, _ in windows))
    out = lax.gather(x, indices.astype(np.int32), dnums, tuple(sizes),
                     indices_are_sorted=not arrays, unique_indices=True,
                     mode=GatherScatterMode.PROMISE_IN_BOUNDS)
    new_axes = tuple(k for k, i in enumerate(items) if i is None)
    return lax.expand_dims(out, new_axes) if new_axes else out


def _with_new_axes(items: list[Any], dims: list[int]) -> list[int]:
    """`dims`, the sizes of the read dimensions, with a 1 where `items` has a new axis."""
    it = iter(dims)
    return [1 if i is None else next(it) for i in items if i is None or not _is_static_int(i)]


def _row(x: Any, index: Any) -> Array | None:
    """The fast path of `x[i]` for an int on a concrete Array (the eager-op budget); None for
    anything else, an index out of bounds, or an Array split across devices (which JAX
    gathers from)."""
    if type(index) is not int or type(x) is not ArrayImpl or not x._buf.ndim:
        return None
    shape = x._buf.shape
    if -shape[0] <= index < shape[0] and getattr(x, "_sharding", None) is None:
        i = index + shape[0] if index < 0 else index
        row = lax.slice(x, (i,) + (0,) * (len(shape) - 1), (i + 1, *shape[1:]))
        return lax.squeeze(row, (0,))
    return None


@transfer_guard.places_constants
def getitem(x: Array, index: Any) -> Array:
    """`x[index]` for static basic indices.

    >>> import numjax.numpy as jnp
    >>> jnp.arange(5)[1:4]
    Array([1, 2, 3], dtype=int32)
    """
    row = _row(x, index)
    if row is not None:
        return row
    aval = get_aval(x)
    items = _expand_index(index, aval.ndim)
    if not all(i is None or isinstance(i, slice) or _is_static_int(i) for i in items):
        return advanced_getitem(x, index)
    gathered = _gather_from_split(x, items, aval.shape)
    if gathered is not None:
        return gathered
    starts, limits, strides, squeeze_dims, flips = [], [], [], [], []
    out_shape: list[tuple[Any, ...]] = []
    out_sizes: list[int] = []
    dim = 0
    for i in items:
        if i is None:
            out_shape.append(("new",))
            out_sizes.append(1)
            continue
        size = aval.shape[dim]
        if _is_static_int(i):
            j = int(i)
            if not -size <= j < size:
                # As JAX 0.4.30: an out-of-bounds integer is no error but a gather, whose index
                # is clamped (jnp.arange(10)[11] is 9; its gradient is zero).
                return advanced_getitem(x, index)
            j %= size
            starts.append(j)
            limits.append(j + 1)
            strides.append(1)
            squeeze_dims.append(dim)
        else:
            first, limit, stride, n = _slice_bounds(i, size)
            starts.append(first)
            limits.append(limit)
            strides.append(abs(stride))
            flips.extend([dim] if stride < 0 else [])
            out_shape.append(("dim", dim))
            out_sizes.append(n)
        dim += 1
    if 0 in out_sizes and _is_gather_in_jax(items):
        # JAX reads such an index with a gather, and an empty gather is no operation on `x`
        # but a new zero constant: under vmap or grad its result is a concrete Array, so a
        # boolean mask made from it may index (in JAX, vmap(lambda x: x[x[2:0:2] > 0]) runs).
        return lax.full_like(x, 0, shape=tuple(out_sizes))
    if transfer_guard._in_use and any(s != 1 for s in strides):
        # A strided index is a gather in JAX, with its index constants placed on the device.
        transfer_guard.library_constant(0, np.int32)
    if not (starts == [0] * aval.ndim and list(limits) == list(aval.shape)
            and all(s == 1 for s in strides)):
        x = lax.slice(x, starts, limits, strides if any(s != 1 for s in strides) else None)
    elif squeeze_dims and transfer_guard._in_use:
        # JAX slices for an integer index even when the slice takes everything.
        transfer_guard.library_constant(0, np.int32)
    if flips:
        x = lax.rev(x, tuple(flips))
    if squeeze_dims:
        x = lax.squeeze(x, tuple(squeeze_dims))
    new_axes = tuple(i for i, o in enumerate(out_shape) if o == ("new",))
    if new_axes:
        x = lax.expand_dims(x, new_axes)
    return x


class IndexUpdateHelper:
    """`x.at[idx]`: functional updates (`set`, `add`, ...) and `get`."""

    __slots__ = ("array",)

    def __init__(self, array: Array) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> Any:
        return IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


transfer_guard.entry_points(globals())
