"""Array manipulation beyond reshape/stack: roll, tile, repeat, split, pad, insert, delete, block.

Every function lowers to lax slices, concatenations, pads and gathers, so each works under
grad, vmap and jit; where an output shape depends on an argument's value the argument must be
concrete (JAX's ConcretizationTypeError otherwise).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core import errors, extended
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Tracer
from numjax._src.lax import lax
from numjax._src.numpy.creation import asarray
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.shape import (
    atleast_2d,
    broadcast_arrays,
    broadcast_to,
    concatenate,
    flip,
    moveaxis,
    ravel,
    reshape,
    swapaxes,
)
from numjax._src.numpy.sorting import sort
from numjax._src.numpy.ufuncs import floor_divide, greater, less, remainder
from numjax._src.numpy.util import (
    asarrays_deprecated,
    canonicalize_axis,
    check_arraylike,
    ensure_array,
    forwards_operands,
    not_arrays,
)
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.typing import Array


def _concrete_or_error(x: Any, context: str) -> np.ndarray:
    """The value of `x`, which decides an output shape and so must be known at trace time."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise errors.ConcretizationTypeError(x, context)
        return np.asarray(value)
    if isinstance(x, list | tuple):
        return np.asarray([_concrete_or_error(i, context) for i in x]) if x else np.asarray(x)
    return np.asarray(x)


# ---- rolling and rotating ------------------------------------------------------------------


def roll(a: Array, shift: Any, axis: int | Sequence[int] | None = None) -> Array:
    """Roll elements along `axis` (the flattened array when None); `shift` may be traced.

    >>> import numjax.numpy as jnp
    >>> jnp.roll(jnp.arange(5), 2)
    Array([3, 4, 0, 1, 2], dtype=int32)
    """
    check_arraylike("roll", a)
    a = ensure_array(a, "roll")
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), get_aval(a).shape)
    ndim = get_aval(a).ndim
    axes = np.atleast_1d(np.asarray(axis)).tolist()
    if isinstance(shift, Tracer):
        traced: Any = shift
        shifts = [traced] if get_aval(traced).ndim == 0 else \
            [traced[i] for i in range(get_aval(traced).shape[0])]
    else:
        shifts = np.atleast_1d(np.asarray(shift)).tolist()
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        elif len(axes) == 1:
            axes = axes * len(shifts)
        else:
            raise ValueError(f"shape mismatch: objects cannot be broadcast to a single shape "
                             f"({len(shifts)},) and ({len(axes)},)")
    for s, ax in zip(shifts, axes, strict=True):
        a = _roll_one(a, s, canonicalize_axis(ax, ndim))
    return a


def _roll_one(a: Array, shift: Any, axis: int) -> Array:
    n = get_aval(a).shape[axis]
    if n == 0:
        return a
    if not isinstance(shift, Tracer):
        s = int(shift) % n
        if s == 0:
            return a
        return lax.concatenate([lax.slice_in_dim(a, n - s, n, axis=axis),
                                lax.slice_in_dim(a, 0, n - s, axis=axis)], axis)
    # A traced shift: take the window [n - s, 2n - s) of the array repeated twice.
    idt = get_aval(shift).dtype if get_aval(shift).dtype.kind in "iu" \
        else dtypes.default_int_dtype()
    s = lax.rem(lax.convert_element_type(shift, idt), lax._convert_element_type(n, idt))
    s = lax.select(lax.lt(s, lax._convert_element_type(0, idt)),
                   lax.add(s, lax._convert_element_type(n, idt)), s)
    start = lax.sub(lax._convert_element_type(n, idt), s)
    doubled = lax.concatenate([a, a], axis)
    return lax.dynamic_slice_in_dim(doubled, start, n, axis)


def rollaxis(a: Array, axis: int, start: int = 0) -> Array:
    """Move `axis` to before position `start` (NumPy's older form of moveaxis)."""
    a = ensure_array(a)
    n = get_aval(a).ndim
    axis = canonicalize_axis(axis, n)
    if not -n <= start <= n:
        raise ValueError(f"start={start} must satisfy {-n}<=start<={n}")
    if start < 0:
        start += n
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start)


def rot90(m: Array, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Array:
    """Rotate by 90 degrees `k` times in the plane of `axes`.

    >>> import numjax.numpy as jnp
    >>> jnp.rot90(jnp.array([[1, 2], [3, 4]]))
    Array([[2, 4],
           [1, 3]], dtype=int32)
    """
    m = ensure_array(m, "rot90")
    n = get_aval(m).ndim
    if n < 2:
        raise ValueError("rot90 requires its first argument to have ndim at least two, but got "
                         f"first argument of shape {get_aval(m).shape}, which has ndim {n}")
    if np.ndim(axes) != 1 or len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    ax1, ax2 = canonicalize_axis(axes[0], n), canonicalize_axis(axes[1], n)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(n))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return lax.transpose(flip(m, ax2), tuple(perm))
    return flip(lax.transpose(m, tuple(perm)), ax2)


def fliplr(m: Array) -> Array:
    """Reverse the second axis."""
    return flip(ensure_array(m, "fliplr"), 1)


def flipud(m: Array) -> Array:
    """Reverse the first axis."""
    return flip(ensure_array(m, "flipud"), 0)


# ---- tiling and repeating ------------------------------------------------------------------


def tile(A: Array, reps: Any) -> Array:
    """Repeat the whole array `reps` times per axis.

    >>> import numjax.numpy as jnp
    >>> jnp.tile(jnp.array([1, 2]), 2)
    Array([1, 2, 1, 2], dtype=int32)
    """
    if isinstance(A, extended.array_types):
        return extended.rule("tile")(A, reps)
    check_arraylike("tile", A)
    A = ensure_array(A, "tile")
    if isinstance(reps, Tracer):
        raise errors.TracerArrayConversionError(reps)
    reps_t = tuple(operator.index(r) for r in np.atleast_1d(
        _concrete_or_error(reps, "The reps argument of jnp.tile must be concrete.\n")).tolist())
    shape = get_aval(A).shape
    rank = max(len(shape), len(reps_t))
    reps_t = (1,) * (rank - len(reps_t)) + reps_t
    shape = (1,) * (rank - len(shape)) + tuple(shape)
    A = reshape(A, shape)
    # Broadcast each axis against a new leading axis of its repeat count, then merge the two.
    interleaved = tuple(d for pair in zip(reps_t, shape, strict=True) for d in pair)
    kept = tuple(range(1, 2 * rank, 2))
    out = lax.broadcast_in_dim(A, interleaved, kept)
    return lax.reshape(out, tuple(r * s for r, s in zip(reps_t, shape, strict=True)))


def repeat(a: Array, repeats: Any, axis: int | None = None, *,
           total_repeat_length: int | None = None) -> Array:
    """Repeat each element `repeats` times along `axis` (flattened when None). Traced
    `repeats` arrays need `total_repeat_length`, which pads (with the last element) or cuts.

    >>> import numjax.numpy as jnp
    >>> jnp.repeat(jnp.array([1, 2]), 2)
    Array([1, 1, 2, 2], dtype=int32)
    """
    check_arraylike("repeat", a)
    a = ensure_array(a, "repeat")
    if axis is None:
        a = ravel(a)
        axis = 0
    rep_value = None if isinstance(repeats, Tracer) and repeats.to_concrete_value() is None \
        else np.asarray(repeats.to_concrete_value() if isinstance(repeats, Tracer) else repeats)
    if get_aval(a).ndim == 0:  # JAX: a scalar's axis is not read; the result is 1-D
        if total_repeat_length is not None:
            total = total_repeat_length
        elif rep_value is not None:
            total = int(np.sum(rep_value))
        else:
            raise errors.ConcretizationTypeError(
                repeats, "jnp.repeat with a non-constant `repeats` is supported only when "
                         "`total_repeat_length` is specified.\n")
        if np.shape(repeats if rep_value is None else rep_value) not in ((), (1,)):
            raise ValueError("`repeat` with a scalar parameter `a` is only implemented for "
                             "scalar values of the parameter `repeats`.")
        return lax.broadcast_in_dim(a, (total,), ())
    axis = canonicalize_axis(axis, get_aval(a).ndim)
    n = get_aval(a).shape[axis]
    if rep_value is not None and rep_value.ndim == 0 and total_repeat_length is None:
        r = int(rep_value)
        shape = get_aval(a).shape
        out = lax.broadcast_in_dim(a, (*shape[:axis + 1], r, *shape[axis + 1:]),
                                   tuple(i if i <= axis else i + 1 for i in range(len(shape))))
        return lax.reshape(out, (*shape[:axis], n * r, *shape[axis + 1:]))
    if rep_value is not None:
        counts = np.broadcast_to(rep_value, (n,)).astype(np.int64)
        index = np.repeat(np.arange(n), counts)
        if total_repeat_length is not None:
            index = np.resize(index, total_repeat_length) if len(index) >= \
                total_repeat_length else np.concatenate(
                    [index, np.full(total_repeat_length - len(index),
                                    index[-1] if len(index) else 0)])
        return _take_static(a, index, axis)
    if total_repeat_length is None:
        raise errors.ConcretizationTypeError(
            repeats, "jnp.repeat with a non-constant `repeats` is supported only when "
                     "`total_repeat_length` is specified.\n")
    reps = broadcast_to(repeats, (n,))
    ends = lax.cumsum(lax.convert_element_type(reps, dtypes.default_int_dtype()))
    pos = lax.iota(dtypes.default_int_dtype(), total_repeat_length)
    # Output slot j holds the element whose cumulative end first exceeds j.
    below = lax.le(lax.broadcast_in_dim(ends, (total_repeat_length, n), (1,)),
                   lax.broadcast_in_dim(pos, (total_repeat_length, n), (0,)))
    index = lax.reduce_sum(lax.convert_element_type(below, dtypes.default_int_dtype()), (1,))
    index = lax.min(index, lax._convert_element_type(max(n - 1, 0), dtypes.default_int_dtype()))
    return _take_traced(a, index, axis)


def _take_static(a: Array, index: np.ndarray, axis: int) -> Array:
    """`a` indexed by a host integer array along `axis`."""
    idx: list[Any] = [slice(None)] * get_aval(a).ndim
    idx[axis] = np.asarray(index, dtype=dtypes.default_int_dtype())
    return a[tuple(idx)]


def _take_traced(a: Array, index: Array, axis: int) -> Array:
    idx: list[Any] = [slice(None)] * get_aval(a).ndim
    idx[axis] = index
    return a[tuple(idx)]


# ---- splitting -----------------------------------------------------------------------------


def _split(name: str, ary: Array, indices_or_sections: Any, axis: int,
           strict: bool) -> list[Array]:
    check_arraylike(name, ary)
    ary = ensure_array(ary, name)
    ndim = get_aval(ary).ndim
    if not -ndim <= operator.index(axis) < ndim:
        # As JAX, which reads the axis's length from the shape tuple first.
        raise IndexError("tuple index out of range")
    axis = canonicalize_axis(axis, ndim)
    size = get_aval(ary).shape[axis]
    spec = _concrete_or_error(indices_or_sections,
                              f"The indices_or_sections argument of jnp.{name} must be "
                              "concrete.\n")
    if spec.ndim == 0:
        parts = int(spec)
        if parts <= 0:
            raise ValueError("number sections must be larger than 0.")
        if strict and size % parts:
            raise ValueError("array split does not result in an equal division: rest is "
                             f"{size % parts}")
        q, r = divmod(size, parts)
        sizes = [q + 1] * r + [q] * (parts - r)
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    else:
        if spec.size and spec.dtype.kind not in "iub":
            # As JAX (NumPy's operator.index of each index; an empty float array has none).
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
        bounds = [0, *[int(i) for i in spec.tolist()], size]
    # As JAX: the pieces are lax.slice's of the bounds as given, so an index past the end, a
    # negative or a decreasing one is lax.slice's TypeError (NumPy would clamp it).
    shape = get_aval(ary).shape
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        starts = [0] * len(shape)
        limits = list(shape)
        starts[axis], limits[axis] = lo, hi
        out.append(lax.slice(ary, starts, limits))
    return out


@transfer_guard.places_constants
def split(ary: Array, indices_or_sections: Any, axis: int = 0) -> list[Array]:
    """Split into equal sections or at the given indices.

    >>> import numjax.numpy as jnp
    >>> jnp.split(jnp.arange(4), 2)
    [Array([0, 1], dtype=int32), Array([2, 3], dtype=int32)]
    """
    return _split("split", ary, indices_or_sections, axis, True)


@transfer_guard.places_constants
def array_split(ary: Array, indices_or_sections: Any, axis: int = 0) -> list[Array]:
    """Like `split`, allowing sections of unequal length."""
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary: Array, indices_or_sections: Any) -> list[Array]:
    a = ensure_array(ary)
    return _split("hsplit", a, indices_or_sections, 0 if get_aval(a).ndim == 1 else 1, True)


def vsplit(ary: Array, indices_or_sections: Any) -> list[Array]:
    a = ensure_array(ary)
    return _split("vsplit", a, indices_or_sections, 0, True)


def dsplit(ary: Array, indices_or_sections: Any) -> list[Array]:
    a = ensure_array(ary)
    return _split("dsplit", a, indices_or_sections, 2, True)


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """The slices of `x` along `axis`, as a tuple."""
    x = ensure_array(x, "unstack")
    if get_aval(x).ndim == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was "
                         "passed.")
    axis = canonicalize_axis(axis, get_aval(x).ndim)
    return tuple(lax.index_in_dim(x, i, axis, keepdims=False)
                 for i in range(get_aval(x).shape[axis]))


# ---- growing and shrinking -----------------------------------------------------------------


def resize(a: Array, new_shape: Any) -> Array:
    """Repeat the flattened array cyclically to fill `new_shape`.

    >>> import numjax.numpy as jnp
    >>> jnp.resize(jnp.array([1, 2, 3]), (2, 2))
    Array([[1, 2],
           [3, 1]], dtype=int32)
    """
    a = ravel(ensure_array(a, "resize"))
    shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else \
        tuple(operator.index(d) for d in new_shape)
    if any(d < 0 for d in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    total = int(np.prod(shape, dtype=np.int64))
    n = get_aval(a).shape[0]
    if n == 0 or total == 0:
        # Zeros of the operand's type (and weak type), a constant even under a transformation
        return lax.full_like(a, 0, shape=shape)
    reps = -(-total // n)
    return reshape(lax.slice(tile(a, reps), (0,), (total,)), shape)


def append(arr: Array, values: Array, axis: int | None = None) -> Array:
    """`arr` with `values` concatenated at the end (both flattened when axis is None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


def delete(arr: Array, obj: Any, axis: int | None = None, *,
           assume_unique_indices: bool = False) -> Array:
    """`arr` without the entries `obj` (an int, slice or concrete index/bool array) along
    `axis`.

    >>> import numjax.numpy as jnp
    >>> jnp.delete(jnp.arange(5), jnp.array([0, 2]))
    Array([1, 3, 4], dtype=int32)
    """
    check_arraylike("delete", arr)
    a = ensure_array(arr, "delete")
    if axis is None:
        a = ravel(a)
        axis = 0
    axis = canonicalize_axis(axis, get_aval(a).ndim)
    n = get_aval(a).shape[axis]
    # JAX's cases, in its order: a static integer (checked as an axis would be: its
    # ValueError), a slice, unique integer indices (jit-compatible), static indices or mask.
    try:
        index = operator.index(obj)
    except TypeError:
        pass
    else:
        index = canonicalize_axis(index, n)
        return _take_static(a, np.delete(np.arange(n), index), axis)
    if isinstance(obj, slice):
        return _take_static(a, np.delete(np.arange(n), obj), axis)
    check_arraylike("delete", a, obj)
    if dtypes.issubdtype(dtypes.dtype(obj), np.integer) and assume_unique_indices:
        return _delete_unique(a, ensure_array(obj), axis)
    value = _concrete_or_error(obj, "'obj' array argument of jnp.delete()\n")
    if dtypes.issubdtype(value.dtype, np.integer):
        keep = np.ones(n, bool)
        keep[value] = False  # NumPy's IndexError for an index out of bounds
    elif value.dtype == np.bool_:
        if value.shape != (n,):
            raise ValueError("np.delete(arr, obj): for boolean indices, obj must be "
                             "one-dimensional with length matching specified axis.")
        keep = ~value
    else:
        raise ValueError(f"np.delete(arr, obj): got obj.dtype={value.dtype}; must be integer "
                         "or bool.")
    return _take_static(a, np.nonzero(keep)[0], axis)


def _delete_unique(a: Array, obj: Array, axis: int) -> Array:
    """Delete unique indices, whose count (not values) fixes the output shape: output slot j
    reads source j + (number of deleted indices k with sorted[k] - k <= j)."""
    n = get_aval(a).shape[axis]
    idt = dtypes.default_int_dtype()
    obj = lax.convert_element_type(ravel(obj), idt)
    k = get_aval(obj).shape[0]
    obj = lax.select(lax.lt(obj, lax._convert_element_type(0, idt)),
                     lax.add(obj, lax._convert_element_type(n, idt)), obj)
    obj = lax.clamp(lax._convert_element_type(0, idt), obj, lax._convert_element_type(n, idt))
    shifted = lax.sub(sort(obj), lax.iota(idt, k))
    pos = lax.iota(idt, max(n - k, 0))
    hits = lax.ge(lax.broadcast_in_dim(pos, (k, max(n - k, 0)), (1,)),
                  lax.broadcast_in_dim(shifted, (k, max(n - k, 0)), (0,)))
    src = lax.add(pos, lax.reduce_sum(lax.convert_element_type(hits, idt), (0,)))
    return _take_traced(a, src, axis)


def insert(arr: Array, obj: Any, values: Array, axis: int | None = None) -> Array:
    """`arr` with `values` inserted before the concrete indices `obj` along `axis`.

    >>> import numjax.numpy as jnp
    >>> jnp.insert(jnp.array([1, 2, 3]), 1, 9)
    Array([1, 9, 2, 3], dtype=int32)
    """
    check_arraylike("insert", arr, values)
    a = ensure_array(arr, "insert")
    if axis is None:
        a = ravel(a)
        axis = 0
    ndim = get_aval(a).ndim
    axis = canonicalize_axis(axis, ndim)
    n = get_aval(a).shape[axis]
    if isinstance(obj, Tracer) and obj.to_concrete_value() is None:
        return _insert_traced(a, obj, values, axis)
    idx = np.arange(n)[obj] if isinstance(obj, slice) else _concrete_or_error(
        obj, "jnp.insert(arr, obj, values): obj must be concrete.\n")
    if idx.dtype == bool:
        raise ValueError("jnp.insert(): boolean indices are not supported")
    scalar_index = idx.ndim == 0
    idx = np.atleast_1d(idx).astype(np.int64)
    # As JAX (not NumPy, which raises IndexError): negative indices count from the end, and
    # indices out of bounds insert at the nearer end.
    idx = np.clip(np.where(idx < 0, idx + n, idx), 0, n)
    vals = lax._convert_element_type(asarray(values), get_aval(a).dtype, get_aval(a).weak_type)
    shape = list(get_aval(a).shape)
    if len(idx) == 1:
        # NumPy's rule: a single index inserts `values` (ndmin=arr.ndim; for a scalar index,
        # first axis moved to `axis`) as one block, however long it is along `axis`.
        if get_aval(vals).ndim < ndim:
            vals = lax.broadcast_to_rank(vals, ndim)
        if scalar_index:
            vals = moveaxis(vals, 0, axis)
        shape[axis] = get_aval(vals).shape[axis]
        idx = np.full(shape[axis], idx[0])
    else:
        shape[axis] = len(idx)
    vals = broadcast_to(vals, tuple(shape))
    joined = lax.concatenate([a, vals], axis)
    # Stable order: each original element keeps its slot; insert k goes before idx[k].
    keys = np.concatenate([np.arange(n) * 2 + 1, idx * 2])
    order = np.argsort(keys, kind="stable")
    return _take_static(joined, order, axis)


def _insert_traced(a: Array, obj: Tracer, values: Array, axis: int) -> Array:
    """`insert` at indices known only at run time (their number is static): the same stable
    order as the concrete path, sorted by lax."""
    aval = get_aval(obj)
    if aval.ndim > 1:
        raise ValueError("jnp.insert(): obj must be a slice, a one-dimensional array, or a "
                         f"scalar; got {obj}")
    if not dtypes.issubdtype(aval.dtype, np.integer):
        raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    ndim = get_aval(a).ndim
    n = get_aval(a).shape[axis]
    vals = lax._convert_element_type(asarray(values), get_aval(a).dtype, get_aval(a).weak_type)
    if get_aval(vals).ndim < ndim:
        vals = lax.broadcast_to_rank(vals, ndim)
    shape = list(get_aval(a).shape)
    idx = lax._convert_element_type(obj, np.dtype(np.int32), False)
    if aval.ndim == 0 or aval.shape[0] == 1:
        if aval.ndim == 0:
            vals = moveaxis(vals, 0, axis)
        shape[axis] = get_aval(vals).shape[axis]
        idx = lax.broadcast(lax.reshape(idx, ()), (shape[axis],))
    else:
        shape[axis] = aval.shape[0]
    vals = broadcast_to(vals, tuple(shape))
    # Negative indices count from the end; out of bounds ones insert at the nearer end.
    size = lax.full((), n, np.int32)
    idx = lax.select(lax.lt(idx, lax.full_like(idx, 0)), lax.add(idx, size), idx)
    idx = lax.clamp(np.int32(0), idx, np.int32(n))
    joined = lax.concatenate([a, vals], axis)
    keys = lax.concatenate([lax.add(lax.mul(lax.iota(np.int32, n), np.int32(2)), np.int32(1)),
                            lax.mul(idx, np.int32(2))], 0)
    total = get_aval(keys).shape[0]
    _, order = lax.sort((keys, lax.iota(np.int32, total)), num_keys=1, is_stable=True)
    return moveaxis(moveaxis(joined, axis, 0)[order], 0, axis)


def trim_zeros(filt: Array, trim: str = "fb") -> Array:
    """Drop leading ('f') and/or trailing ('b') zeros of a concrete 1-d array."""
    if type(filt) is not ArrayImpl:
        filt = asarray(filt)  # as JAX: lists too, and `jnp.asarray`'s errors
    value = _concrete_or_error(filt, "Error arose in the `filt` argument of trim_zeros()\n")
    aval = get_aval(filt)
    nz = np.nonzero(value)[0]
    if not nz.size:  # all zeros (or empty): JAX's strongly typed empty(0, dtype), any `trim`
        return lax.full((0,), 0, aval.dtype)
    start = int(nz[0]) if "f" in trim.lower() else 0
    end = int(nz[-1]) + 1 if "b" in trim.lower() else len(value)
    # As JAX 0.4.30, the result is cut from the concrete value: under grad or jvp it is a
    # constant, so the gradient through trim_zeros is zero.
    return lax._convert_element_type(value, aval.dtype, aval.weak_type)[start:end]


# ---- joining -------------------------------------------------------------------------------


def column_stack(tup: Sequence[Array]) -> Array:
    """Stack 1-d arrays as columns (2-d arrays as they are) along the second axis."""
    arrs = []
    for t in asarrays_deprecated("column_stack", tup):
        arrs.append(lax.broadcast_in_dim(t, (get_aval(t).shape[0], 1), (0,))
                    if get_aval(t).ndim < 2 and get_aval(t).ndim == 1 else atleast_2d(t))
    return concatenate(arrs, 1)


def concat(arrays: Sequence[Array], /, *, axis: int | None = 0) -> Array:
    """The Array API's concatenate."""
    return concatenate(arrays, axis)


@forwards_operands
def block(arrays: Any) -> Array:
    """Assemble an array from nested lists of blocks, innermost lists joined on the last axis.

    >>> import numjax.numpy as jnp
    >>> jnp.block([[jnp.zeros((1, 1)), jnp.ones((1, 1))]])
    Array([[0., 1.]], dtype=float32)
    """
    depth, max_ndim = _block_depth(arrays)
    return _block(arrays, depth, max(depth, max_ndim))


def _block_depth(x: Any) -> tuple[int, int]:
    if isinstance(x, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {x}")
    if isinstance(x, list):
        if not x:
            raise ValueError("jax.numpy.block does not allow empty list arguments")
        parts = [_block_depth(i) for i in x]
        if len({d for d, _ in parts}) != 1:
            raise ValueError("Mismatched list depths in jax.numpy.block")
        return parts[0][0] + 1, max(n for _, n in parts)
    return 0, np.ndim(x) if not isinstance(x, Tracer) else get_aval(x).ndim


def _block(x: Any, depth: int, ndim: int) -> Array:
    if depth == 0:
        if x is None or isinstance(x, dict):
            # JAX compiles block: None stays a leaf that `jnp.asarray` reads as NaN, and a
            # dict's leaves are traced, which `jnp.array` does not take.
            if isinstance(x, dict):
                raise TypeError(f"Unexpected input type for array: {type(x)}")
            x = asarray(x)
        a = ensure_array(x)
        return lax.broadcast_to_rank(a, ndim) if get_aval(a).ndim < ndim else a
    parts = [_block(i, depth - 1, ndim) for i in x]
    return concatenate(parts, -depth)


def matrix_transpose(x: Array, /) -> Array:
    """Swap the last two axes."""
    if isinstance(x, str | bytes | np.ndarray) and np.ndim(x) < 2:
        # JAX reads the rank first, so a string or a string array fails on it.
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got "
                         f"ndim={np.ndim(x)}")
    x = ensure_array(x, "matrix_transpose")
    if get_aval(x).ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got "
                         f"ndim={get_aval(x).ndim}")
    return swapaxes(x, -1, -2)


# ---- index conversion ----------------------------------------------------------------------


def ravel_multi_index(multi_index: Sequence[Array], dims: Sequence[int],
                      mode: str = "raise", order: str = "C") -> Array:
    """Flat indices of the coordinate arrays `multi_index` in an array of shape `dims`.
    mode 'raise' needs concrete indices; 'clip' and 'wrap' work traced.

    >>> import numjax.numpy as jnp
    >>> jnp.ravel_multi_index((jnp.array([1, 2]), jnp.array([0, 1])), (3, 2))
    Array([2, 5], dtype=int32)
    """
    dims = tuple(operator.index(d) for d in dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    idt = dtypes.default_int_dtype()
    try:
        idx = [ensure_array(i) for i in multi_index]
    except TypeError:
        not_arrays("ravel_multi_index", *multi_index)
        raise
    for i in idx:
        if get_aval(i).dtype.kind not in "iu":
            raise TypeError("only int indices permitted")
    if mode == "raise":
        for i, d in zip(idx, dims, strict=True):
            v = _concrete_or_error(i, "The error occurred because ravel_multi_index was jit-"
                                      "compiled with mode='raise'. Use mode='wrap' or mode='"
                                      "clip' instead.\n")
            if np.any((v < 0) | (v >= d)):
                raise ValueError("invalid entry in coordinates array")
    idx = broadcast_arrays(*[lax.convert_element_type(i, idt) for i in idx])
    clipped = []
    for i, d in zip(idx, dims, strict=True):
        if mode == "wrap":
            i = remainder(i, lax._convert_element_type(d, idt))
        elif mode == "clip":
            i = lax.clamp(lax._convert_element_type(0, idt), i,
                          lax._convert_element_type(max(d - 1, 0), idt))
        elif mode != "raise":
            raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
        clipped.append(i)
    if order == "F":
        clipped, dims = clipped[::-1], dims[::-1]
    elif order != "C":
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    out = lax.full_like(clipped[0], 0) if clipped else lax._convert_element_type(0, idt)
    stride = 1
    for i, d in zip(reversed(clipped), reversed(dims), strict=True):
        out = lax.add(out, lax.mul(i, lax._convert_element_type(stride, idt)))
        stride *= d
    return out


def unravel_index(indices: Array, shape: Sequence[int]) -> tuple[Array, ...]:
    """Coordinate arrays of flat `indices` in an array of `shape` (out-of-range indices clip,
    as in JAX).

    >>> import numjax.numpy as jnp
    >>> jnp.unravel_index(jnp.array([5, 1]), (3, 2))
    (Array([2, 0], dtype=int32), Array([1, 1], dtype=int32))
    """
    check_arraylike("unravel_index", indices)
    indices = ensure_array(indices, "unravel_index")
    # The sizes stay as given (Python ints stay weak, traced sizes traced), as in JAX.
    sizes: list[Any]
    try:
        sizes = list(shape)
    except TypeError:
        sizes = [shape]
    if any(np.ndim(s) != 0 for s in sizes):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    # JAX's algorithm: floor division and remainder by each dimension from the last, then
    # clipping by what is left over (> 0: past the end; < -1: before a wrapped-around start).
    # Unsigned indices are never negative: JAX 0.4.30 compares them with -1 converted to the
    # unsigned type, which zeroes every coordinate in range (docs/differences.md).
    coords: list[Any] = [0] * len(sizes)
    rest = indices
    for i in reversed(range(len(sizes))):
        rest, coords[i] = floor_divide(rest, sizes[i]), remainder(rest, sizes[i])
    past_end = greater(rest, 0)
    unsigned = get_aval(rest).dtype.kind == "u"
    before_start = None if unsigned else less(rest, -1)
    result = []
    for s, c in zip(sizes, coords, strict=True):
        if before_start is not None:
            c = where(before_start, 0, c)
        result.append(where(past_end, s - 1, c))
    return tuple(result)


transfer_guard.entry_points(globals())
