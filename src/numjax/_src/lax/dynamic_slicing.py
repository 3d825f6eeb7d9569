"""Slices whose start indices are runtime values: dynamic_slice and dynamic_update_slice.

Start indices are scalar integer operands, one per dimension, clamped (as XLA does) so the
slice stays inside the operand. Both primitives are linear in their array operands: the
slice transposes to an update into zeros, the update to a slice of the cotangent.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import native_structural
from numjax._src.core import extended
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive, Tracer, operand_aval
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero, is_undefined_primal
from numjax._src.interpreters.batching import bdim_at_front, not_mapped
from numjax._src.lax import elementwise as ew
from numjax._src.lax import gather_scatter as gs
from numjax._src.lax import structural as st
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array

__all__ = [
    "dynamic_index_in_dim",
    "dynamic_slice",
    "dynamic_slice_in_dim",
    "dynamic_slice_p",
    "dynamic_update_index_in_dim",
    "dynamic_update_slice",
    "dynamic_update_slice_in_dim",
    "dynamic_update_slice_p",
]

Shape = tuple[int, ...]


def _clamped_starts(starts: Sequence[Any], shape: Shape, sizes: Shape) -> list[int]:
    return [int(np.clip(int(s), 0, d - n)) for s, d, n in zip(starts, shape, sizes, strict=True)]


def _check_indices(name: str, operand: ShapedArray, indices: Sequence[ShapedArray]) -> None:
    if len(indices) != operand.ndim:
        raise ValueError("Length of slice indices must match number of operand dimensions "
                         f"({len(indices)} vs {operand.shape})")
    if indices:
        first = indices[0].dtype
        if any(i.dtype.kind not in "iu" or i.dtype != first for i in indices):
            got = ", ".join(i.dtype.name for i in indices)
            sep = ":" if name == "dynamic_slice" else ""  # JAX's two texts
            raise TypeError(f"index arguments to {name} must be integers of the same type, "
                            f"got{sep} {got}")
    if any(i.ndim != 0 for i in indices):
        raise TypeError(f"{name} start indices must be scalars, got shapes "
                        f"{[i.shape for i in indices]}")


# ---- dynamic_slice -------------------------------------------------------------------------

dynamic_slice_p = Primitive("dynamic_slice")


def _dynamic_slice_kernel(x: Any, *starts: Any, slice_sizes: Shape) -> Any:
    x = np.asarray(x)
    begin = _clamped_starts(starts, x.shape, slice_sizes)
    return x[tuple(builtins.slice(b, b + n) for b, n in zip(begin, slice_sizes, strict=True))]


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract_eval(x: ShapedArray, *starts: ShapedArray,
                                 slice_sizes: Shape) -> ShapedArray:
    _check_indices("dynamic_slice", x, starts)
    if len(slice_sizes) != x.ndim:
        raise TypeError("dynamic_slice slice_sizes must have the same length as operand "
                        f"dimensions, got slice_sizes {slice_sizes} for operand shape "
                        f"{x.shape}.")
    if any(n > d for n, d in zip(slice_sizes, x.shape, strict=True)):
        raise TypeError("slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {slice_sizes} for operand shape {x.shape}.")
    if any(n < 0 for n in slice_sizes):
        raise TypeError("slice slice_sizes must be greater than or equal to zero, got "
                        f"slice_sizes of {slice_sizes}.")
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _dynamic_slice_jvp(primals: Sequence[Any], tangents: Sequence[Any], *,
                       slice_sizes: Shape) -> tuple[Any, Any]:
    x, *starts = primals
    out = dynamic_slice_p.bind(x, *starts, slice_sizes=slice_sizes)
    t = tangents[0]
    if type(t) is Zero:
        return out, Zero(ad.tangent_aval(get_aval(out)))
    return out, dynamic_slice_p.bind(t, *starts, slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct: Any, x: Any, *starts: Any, slice_sizes: Shape) -> list[Any]:
    if any(is_undefined_primal(s) for s in starts):
        raise ValueError("dynamic_slice is not linear in its start indices")
    rest: list[Any] = [None] * len(starts)
    if type(ct) is Zero:
        return [Zero(x.aval), *rest]
    zeros = st.zeros_like_aval(x.aval)
    return [dynamic_update_slice_p.bind(zeros, ct, *starts), *rest]


def _dynamic_slice_batch(args: Sequence[Any], dims: Sequence[Any], *,
                         slice_sizes: Shape) -> tuple[Any, Any]:
    x, *starts = args
    xd, *sds = dims
    size = next(get_aval(a).shape[d] for a, d in zip(args, dims, strict=True)
                if d is not not_mapped)
    if builtins.all(d is not_mapped for d in sds):
        x = bdim_at_front(x, xd, size)
        zero = np.zeros((), get_aval(starts[0]).dtype if starts else np.int32)[()]
        return dynamic_slice_p.bind(x, zero, *starts, slice_sizes=(size, *slice_sizes)), 0
    # Batched starts: one window per example, a gather of clamped windows (XLA's
    # dynamic-slice semantics are the gather's CLIP mode).
    dn = gs.GatherDimensionNumbers(offset_dims=tuple(range(len(starts))),
                                   collapsed_slice_dims=(),
                                   start_index_map=tuple(range(len(starts))))
    rule = gs.gather_p.batch
    assert rule is not None
    return rule(
        [x, _batched_index_vectors(starts, sds, size)], [xd, 0], dimension_numbers=dn,
        slice_sizes=slice_sizes, indices_are_sorted=True, unique_indices=True,
        mode=gs.GatherScatterMode.CLIP, fill_value=None)


def _batched_index_vectors(starts: Sequence[Any], dims: Sequence[Any], size: int) -> Array:
    """The scalar start indices of each example as rows of a (size, len(starts)) array."""
    columns = [st.reshape(bdim_at_front(s, d, size), (size, 1))
               for s, d in zip(starts, dims, strict=True)]
    return st.concatenate(columns, 1)


dynamic_slice_p.def_impl(_dynamic_slice_kernel)
dynamic_slice_p.def_jvp(_dynamic_slice_jvp)
dynamic_slice_p.def_transpose(_dynamic_slice_transpose)
dynamic_slice_p.def_batch(_dynamic_slice_batch)
dynamic_slice_p.native = native_structural.dynamic_slice_rule


# ---- dynamic_update_slice ------------------------------------------------------------------

dynamic_update_slice_p = Primitive("dynamic_update_slice")


def _dynamic_update_slice_kernel(x: Any, update: Any, *starts: Any,
                                 out: np.ndarray | None = None) -> Any:
    x, update = np.asarray(x), np.asarray(update)
    begin = _clamped_starts(starts, x.shape, update.shape)
    out = x.copy() if out is None else out  # `out` is x's own dead buffer (updates_in_place)
    out[tuple(builtins.slice(b, b + n) for b, n in zip(begin, update.shape, strict=True))] = update
    return out


@dynamic_update_slice_p.def_abstract_eval
def _dynamic_update_slice_abstract_eval(x: ShapedArray, update: ShapedArray,
                                        *starts: ShapedArray) -> ShapedArray:
    _check_indices("dynamic_update_slice", x, starts)
    if update.ndim != x.ndim:
        raise TypeError("dynamic_update_slice update must have the same rank as operand, got "
                        f"update shape {update.shape} for operand shape {x.shape}.")
    if any(u > d for u, d in zip(update.shape, x.shape, strict=True)):
        raise TypeError("dynamic_update_slice update shape must be smaller than operand shape, "
                        f"got update shape {update.shape} for operand shape {x.shape}.")
    if x.dtype != update.dtype:
        raise TypeError("lax.dynamic_update_slice requires arguments to have the same dtypes, "
                        f"got {x.dtype.name}, {update.dtype.name}.")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _dynamic_update_slice_jvp(primals: Sequence[Any], tangents: Sequence[Any]
                              ) -> tuple[Any, Any]:
    x, update, *starts = primals
    out = dynamic_update_slice_p.bind(x, update, *starts)
    tx, tu = tangents[:2]
    if type(tx) is Zero and type(tu) is Zero:
        return out, Zero(ad.tangent_aval(get_aval(out)))
    tx, tu = ad.instantiate_zeros(tx), ad.instantiate_zeros(tu)
    return out, dynamic_update_slice_p.bind(tx, tu, *starts)


def _dynamic_update_slice_transpose(ct: Any, x: Any, update: Any, *starts: Any) -> list[Any]:
    if any(is_undefined_primal(s) for s in starts):
        raise ValueError("dynamic_update_slice is not linear in its start indices")
    rest: list[Any] = [None] * len(starts)
    update_aval = update.aval if is_undefined_primal(update) else get_aval(update)
    x_ct: Any = None
    u_ct: Any = None
    if type(ct) is Zero:
        x_ct = Zero(x.aval) if is_undefined_primal(x) else None
        u_ct = Zero(update.aval) if is_undefined_primal(update) else None
        return [x_ct, u_ct, *rest]
    if is_undefined_primal(x):
        x_ct = dynamic_update_slice_p.bind(ct, st.zeros_like_aval(update_aval), *starts)
    if is_undefined_primal(update):
        u_ct = dynamic_slice_p.bind(ct, *starts, slice_sizes=update_aval.shape)
    return [x_ct, u_ct, *rest]


def _dynamic_update_slice_batch(args: Sequence[Any], dims: Sequence[Any]) -> tuple[Any, Any]:
    x, update, *starts = args
    xd, ud, *sds = dims
    size = next(get_aval(a).shape[d] for a, d in zip(args, dims, strict=True)
                if d is not not_mapped)
    if builtins.all(d is not_mapped for d in sds):
        x = bdim_at_front(x, xd, size)
        update = bdim_at_front(update, ud, size)
        zero = np.zeros((), get_aval(starts[0]).dtype if starts else np.int32)[()]
        return dynamic_update_slice_p.bind(x, update, zero, *starts), 0
    # Batched starts: a scatter of one clamped window per example (the CLIP mode).
    ndim = len(starts)
    dn = gs.ScatterDimensionNumbers(update_window_dims=tuple(range(ndim)),
                                    inserted_window_dims=(),
                                    scatter_dims_to_operand_dims=tuple(range(ndim)))
    rule = gs.scatter_p.batch
    assert rule is not None
    return rule(
        [x, _batched_index_vectors(starts, sds, size), update], [xd, 0, ud],
        dimension_numbers=dn, indices_are_sorted=True, unique_indices=True,
        mode=gs.GatherScatterMode.CLIP)


dynamic_update_slice_p.def_impl(_dynamic_update_slice_kernel)
dynamic_update_slice_p.def_jvp(_dynamic_update_slice_jvp)
dynamic_update_slice_p.is_linear = True
dynamic_update_slice_p.updates_in_place = True
dynamic_update_slice_p.def_transpose(_dynamic_update_slice_transpose)
dynamic_update_slice_p.def_batch(_dynamic_update_slice_batch)
dynamic_update_slice_p.native = native_structural.dynamic_update_slice_rule


# ---- wrappers ------------------------------------------------------------------------------


def _start_indices(name: str, operand: Array, start_indices: Any) -> list[Any]:
    """One scalar index operand per dimension; negative indices count from the end (the
    wrapper's convention, as in JAX), then the primitive clamps."""
    shape = operand_aval(operand, "ndim").shape
    if isinstance(start_indices, np.ndarray | Tracer) or hasattr(start_indices, "aval"):
        aval = get_aval(start_indices)
        if aval.ndim != 1:
            raise ValueError(f"{name}: start_indices must be a 1-d array, got shape "
                             f"{aval.shape}")
        start_indices = [st.index_in_dim(start_indices, i, 0, keepdims=False)
                         for i in range(aval.shape[0])]
    starts = list(start_indices)
    if len(starts) != len(shape):
        raise ValueError("Length of slice indices must match number of operand dimensions "
                         f"({len(starts)} vs {shape})")
    out: list[Any] = []
    for s, d in zip(starts, shape, strict=True):
        if type(s) is int or isinstance(s, np.integer):
            # A static index keeps its own canonical dtype (a Python int the default int, an
            # np.int16 int16), as in JAX: indices of different types are then refused.
            dtype = dtypes.dtype(s, canonicalize=True)
            if transfer_guard._in_use:
                transfer_guard.library_constant(s, dtype)  # placed on the device, as in JAX
            if dtype.kind == "u":
                out.append(np.asarray(s, dtype)[()])
            else:
                out.append(np.asarray(int(s) + d if int(s) < 0 else int(s), dtype)[()])
            continue
        aval = get_aval(s)
        if aval.dtype.kind != "i":
            out.append(s)  # unsigned is never negative; abstract eval rejects non-integers
            continue
        if transfer_guard._in_use:
            transfer_guard.library_constant(0, aval.dtype)  # JAX's wrap-around constants
        dim = st._convert_element_type(d, aval.dtype)
        out.append(st.select(ew.lt(s, st._convert_element_type(0, aval.dtype)),
                              ew.add(s, dim), s))
    return out


def dynamic_slice(operand: Array, start_indices: Any, slice_sizes: Sequence[int]) -> Array:
    """The slice of `slice_sizes` starting at runtime `start_indices` (clamped in bounds).

    >>> import numjax.numpy as jnp
    >>> dynamic_slice(jnp.arange(5), (jnp.int32(4),), (2,))
    Array([3, 4], dtype=int32)
    """
    if isinstance(operand, extended.array_types):  # typed PRNG keys
        return extended.rule("lax.dynamic_slice")(operand, start_indices, slice_sizes)
    starts = _start_indices("dynamic_slice", operand, start_indices)
    sizes = tuple(int(n) for n in slice_sizes)
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=sizes)


def dynamic_update_slice(operand: Array, update: Array, start_indices: Any) -> Array:
    """`operand` with `update` written at runtime `start_indices` (clamped in bounds).

    >>> import numjax.numpy as jnp
    >>> dynamic_update_slice(jnp.zeros(4, jnp.int32), jnp.array([1, 2]), (jnp.int32(1),))
    Array([0, 1, 2, 0], dtype=int32)
    """
    if isinstance(operand, extended.array_types):  # typed PRNG keys
        return extended.rule("lax.dynamic_update_slice")(operand, update, start_indices)
    starts = _start_indices("dynamic_update_slice", operand, start_indices)
    return dynamic_update_slice_p.bind(operand, update, *starts)


def _zero_starts(start_index: Any, ndim: int) -> list[Any]:
    """The other dimensions start at a zero of `start_index`'s dtype, as in JAX, so an
    np.int16 index is not refused for mixing with int32 zeros."""
    return [np.zeros((), dtypes.dtype(start_index, canonicalize=True))[()]] * ndim


def dynamic_slice_in_dim(operand: Array, start_index: Any, slice_size: int,
                         axis: int = 0) -> Array:
    """`dynamic_slice` along one axis, keeping the others whole.

    >>> import numjax.numpy as jnp
    >>> dynamic_slice_in_dim(jnp.arange(6).reshape(2, 3), 1, 2, axis=1)
    Array([[1, 2],
           [4, 5]], dtype=int32)
    """
    shape = st.operand_shape(operand, "ndim")
    axis = int(axis) % len(shape)
    starts = _zero_starts(start_index, len(shape))
    starts[axis] = start_index
    sizes = list(shape)
    sizes[axis] = int(slice_size)
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand: Array, index: Any, axis: int = 0,
                         keepdims: bool = True) -> Array:
    """Element `index` along `axis` (a runtime index), keeping that axis if `keepdims`.

    >>> import numjax.numpy as jnp
    >>> dynamic_index_in_dim(jnp.arange(6).reshape(2, 3), 1, axis=0, keepdims=False)
    Array([3, 4, 5], dtype=int32)
    """
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    if keepdims:
        return out
    return st.squeeze(out, (int(axis) % len(st.operand_shape(operand)),))


def dynamic_update_slice_in_dim(operand: Array, update: Array, start_index: Any,
                                axis: int) -> Array:
    """`dynamic_update_slice` at `start_index` along `axis` (0 along the others).

    >>> import numjax.numpy as jnp
    >>> dynamic_update_slice_in_dim(jnp.zeros(4, jnp.int32), jnp.array([7]), 2, 0)
    Array([0, 0, 7, 0], dtype=int32)
    """
    ndim = len(st.operand_shape(operand))
    axis = int(axis) % ndim
    starts = _zero_starts(start_index, ndim)
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(operand: Array, update: Array, index: Any,
                                axis: int) -> Array:
    """Write `update` (with or without the indexed axis) at `index` along `axis`.

    >>> import numjax.numpy as jnp
    >>> dynamic_update_index_in_dim(jnp.zeros((2, 2), jnp.int32), jnp.array([1, 2]), 1, 0)
    Array([[0, 0],
           [1, 2]], dtype=int32)
    """
    ndim = len(st.operand_shape(operand))
    axis = int(axis) % ndim
    if len(st.operand_shape(update)) == ndim - 1:
        update = st.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)
