"""Advanced indexing: integer-array, traced-integer and boolean-mask indices, `x.at[idx]`
updates, and `nonzero`/`argwhere`/`flatnonzero`.

`x[idx]` first applies the basic part of the index (slices, None) with the static path of
`indexing.getitem`, then reads the advanced part (integers, integer arrays, concrete masks turned
into integer arrays) with one `gather`. An update at integers on the leading axes (`x.at[i]`,
`x.at[i, j, :]`, the common case, in loops too) is one scatter of the trailing block at that
place, as JAX's. Any other update finds the flat position of every indexed element by indexing
an iota of `x`'s shape with the same index, then scatters into the flattened array: one code
path for every other index form, with out-of-bounds positions dropped.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from numjax._src import config, dtypes
from numjax._src.core import errors
from numjax._src.core.avals import check_args_abstractify, get_aval
from numjax._src.core.trace import Tracer
from numjax._src.lax import lax
from numjax._src.lax.gather_scatter import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
)
from numjax._src.numpy import creation
from numjax._src.numpy.creation import asarray
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.shape import atleast_1d, broadcast_to, ravel, stack
from numjax._src.numpy.ufuncs import divide, power
from numjax._src.numpy.util import ensure_array, promote_dtypes
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.typing import Array

_FLAT_DNUMS = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                      scatter_dims_to_operand_dims=(0,))


def _index_dtype() -> np.dtype:
    return dtypes.default_int_dtype()


def _concrete(x: Any) -> np.ndarray | None:
    """The value of `x` if it is known now (arrays, NumPy values, concrete tracers)."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        return None if value is None else np.asarray(value)
    return np.asarray(x)


# ---- parsing the index ---------------------------------------------------------------------


class _Adv:
    """An advanced index on one dimension: a static int, NumPy int array or traced int array.
    `new` marks an index on a dimension inserted by a 0-d boolean (x[True], x[False])."""

    __slots__ = ("value", "new")

    def __init__(self, value: Any, new: bool = False) -> None:
        self.value = value
        self.new = new


def _index_error_type(e: Any, position: int) -> TypeError:
    dtype = dtypes.dtype(e, canonicalize=True)
    return TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                     f"{dtype.name} at position {position}, indexer value {e}")


def _holds_tracer(seq: Any) -> bool:
    return any(_holds_tracer(e) if isinstance(e, list | tuple) else isinstance(e, Tracer)
               for e in seq)


def _parse(index: Any, shape: tuple[int, ...]) -> list[Any]:  # noqa: C901
    """The index as a list over dims: None, slice or `_Adv`, Ellipsis expanded."""
    if isinstance(index, list):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                        "allowed; use `arr[array(seq)]` instead of `arr[seq]`. See "
                        "https://github.com/google/jax/issues/4564 for more information.")
    raw = index if isinstance(index, tuple) else (index,)
    items: list[Any] = []
    for pos, e in enumerate(raw):
        if e is None or e is Ellipsis or isinstance(e, slice):
            if isinstance(e, slice):
                for part in (e.start, e.stop, e.step):
                    if part is not None:
                        operator.index(part)
            items.append(e)
        elif isinstance(e, str):
            raise TypeError(f"JAX does not support string indexing; got idx={raw!r}")
        elif isinstance(e, bool | np.bool_):
            items.append(("bool", np.asarray(e), pos))
        elif isinstance(e, int | np.integer):
            items.append(_Adv(int(e)))
        else:
            if isinstance(e, list | tuple):
                # A sequence of traced integers is an index array too (JAX stacks it).
                e = creation.asarray(e) if _holds_tracer(e) else np.asarray(e)
                if isinstance(e, np.ndarray) and e.size == 0 and e.dtype.kind == "f":
                    # An empty sequence holds no non-integer: an integer index, as in JAX.
                    e = e.astype(np.int32)
            if not isinstance(e, ArrayImpl | Tracer | np.ndarray | np.generic | float | complex):
                raise TypeError(f"Indexer must have integer or boolean type, got indexer with "
                                f"type {type(e).__name__} at position {pos}, indexer value {e}")
            dtype = dtypes.dtype(e)
            if dtype == np.bool_:
                items.append(("bool", e, pos))
            elif dtypes.issubdtype(dtype, np.integer):
                items.append(_Adv(e))
            else:
                raise _index_error_type(e, pos)
    consumed = sum(get_aval(i[1]).ndim if isinstance(i, tuple) else 1 for i in items
                   if i is not None and i is not Ellipsis)
    if consumed > len(shape):
        raise IndexError(f"Too many indices for array: {consumed} non-None/Ellipsis indices "
                         f"for dim {len(shape)}.")
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    out: list[Any] = []
    dim = 0
    for i in items:
        if i is Ellipsis:
            n = len(shape) - consumed
            out.extend([slice(None)] * n)
            dim += n
        elif i is None:
            out.append(None)
        elif isinstance(i, tuple):
            _, mask, pos = i
            out.extend(_mask_to_ints(mask, pos, shape[dim:dim + get_aval(mask).ndim], shape))
            dim += get_aval(mask).ndim
        else:
            out.append(i)
            dim += 1
    out.extend([slice(None)] * (len(shape) - dim))
    return out


def _mask_to_ints(mask: Any, pos: int, dims: tuple[int, ...],
                  shape: tuple[int, ...]) -> list[Any]:
    value = _concrete(mask)
    if value is None:
        # JAX's text shows the mask's aval as its repr: ShapedArray(bool[5]).
        raise errors.NonConcreteBooleanIndexError(repr(get_aval(mask)))
    if value.ndim == 0:
        # x[True] adds an axis of length 1, x[False] one of length 0 (an advanced index).
        return [_Adv(np.arange(int(bool(value)), dtype=_index_dtype()), new=True)]
    if value.shape != dims:
        raise IndexError(f"boolean index did not match shape of indexed array in index {pos}: "
                         f"got {value.shape}, expected {shape}")
    return [_Adv(i.astype(_index_dtype())) for i in np.nonzero(value)]


# ---- getitem -------------------------------------------------------------------------------


def _guard_index_constants(index: Any) -> None:
    """Run eagerly, JAX's gather and scatter indexing places its index arrays (a Python list
    index among them) and index constants on the device: transfers when user code indexed."""
    for item in index if isinstance(index, tuple) else (index,):
        if isinstance(item, list):
            transfer_guard.library_constant(item, np.int32)
    transfer_guard.library_constant(0, np.int32)


class _GatherPlan(NamedTuple):
    """The gather an index needs: on `x` (the array after the basic part of the index), the
    index vectors, dimension numbers and slice sizes, and the result's shape."""

    x: Array
    indices: Any
    dnums: GatherDimensionNumbers
    slice_sizes: tuple[int, ...]
    out_shape: tuple[int, ...]


def _plan_gather(x: Array, index: Any, reading: bool = True
                 ) -> tuple[Array, _GatherPlan | None]:
    """(`x` after the basic part of `index`, the gather for its advanced part, if any).
    `reading`: the plan reads `x` (a scatter only takes positions from it)."""
    from numjax._src.numpy.indexing import getitem
    items = _parse(index, get_aval(x).shape)
    basic = tuple(None if isinstance(i, _Adv) and i.new else
                  slice(None) if isinstance(i, _Adv) else i for i in items)
    adv_dims: list[int] = []
    advs: list[_Adv] = []
    for d, i in enumerate(items):
        if isinstance(i, _Adv):
            adv_dims.append(d)
            advs.append(i)
    if any(b != slice(None) for b in basic):
        x = getitem(x, basic)
    if not advs:
        return x, None
    shape = get_aval(x).shape
    _check_integer_on_empty_axis(items, shape)
    arrays = [_normalize(a.value, shape[d]) for a, d in zip(advs, adv_dims, strict=True)]
    indices = _stack_indices(arrays)
    batch_shape = get_aval(indices).shape[:-1]
    kept = [d for d in range(len(shape)) if d not in adv_dims]
    contiguous = adv_dims == list(range(adv_dims[0], adv_dims[0] + len(adv_dims)))
    # NumPy's rule: adjacent advanced indices put their broadcast shape where they stood;
    # separated ones put it first.
    if contiguous:
        offset_dims = tuple(d if d < adv_dims[0] else d - len(adv_dims) + len(batch_shape)
                            for d in kept)
    else:
        offset_dims = tuple(len(batch_shape) + i for i in range(len(kept)))
    dn = GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=tuple(adv_dims),
                                start_index_map=tuple(adv_dims))
    slice_sizes = tuple(1 if d in adv_dims else shape[d] for d in range(len(shape)))
    out_shape = _gather_shape(batch_shape, [shape[d] for d in kept], offset_dims)
    if reading and 0 not in out_shape:
        for d in adv_dims:
            if shape[d] == 0:
                # JAX gathers from `x` itself, so its error counts the axes of `x`, not those
                # an index's None inserts.
                axis = d - sum(1 for i in items[:d] if i is None or (isinstance(i, _Adv)
                                                                     and i.new))
                raise TypeError(f"Slice size at index {axis} in gather op is out of range, "
                                f"must be within [0, 0 + 1), got 1.")
    return x, _GatherPlan(x, indices, dn, slice_sizes, out_shape)


@transfer_guard.places_constants
def advanced_getitem(x: Array, index: Any, *, mode: str | GatherScatterMode | None = None,
                     fill_value: Any = None, indices_are_sorted: bool = False,
                     unique_indices: bool = False) -> Array:
    """`x[index]` for any NumPy/JAX index; out-of-bounds integers clamp (mode None) or read
    `fill_value` (mode 'fill'); negative integers count from the end.

    >>> import numjax.numpy as jnp
    >>> x = jnp.arange(12).reshape(3, 4)
    >>> advanced_getitem(x, (jnp.array([2, 0]), slice(1, 3)))
    Array([[ 9, 10],
           [ 1,  2]], dtype=int32)
    """
    x = ensure_array(x)
    if transfer_guard._in_use:
        _guard_index_constants(index)
    x, plan = _plan_gather(x, index)
    if plan is None:
        return x
    if 0 in plan.out_shape:
        # Nothing to read: as JAX, no gather (whose slice of size 1 would not fit an empty
        # axis: zeros(0)[array([], int32)]), just the empty result.
        return lax.full_like(x, 0, shape=plan.out_shape)
    parsed = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else \
        GatherScatterMode.from_any(mode)
    return lax.gather(x, plan.indices, plan.dnums, plan.slice_sizes,
                      indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                      mode=parsed, fill_value=fill_value)


def _gather_shape(batch_shape: tuple[int, ...], kept: list[int],
                  offset_dims: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of the gather reading `kept` whole dims per index vector of `batch_shape`."""
    batch, sizes = iter(batch_shape), iter(kept)
    return tuple(next(sizes) if d in offset_dims else next(batch)
                 for d in range(len(batch_shape) + len(kept)))


def _check_integer_on_empty_axis(items: list[Any], shape: tuple[int, ...]) -> None:
    """An integer (0-d) index on an axis of length 0 is out of bounds in every mode (JAX's
    IndexError, naming the axis of the indexed array); index arrays there may be empty.

    As in JAX, this holds only while every index is a scalar: next to an index array of
    rank >= 1, integers join the advanced index (a gather then refuses the empty axis with its
    slice-size TypeError, and a scatter into the empty array returns it unchanged)."""
    if any(isinstance(i, _Adv) and not i.new and type(i.value) is not int
           and get_aval(i.value).ndim > 0 for i in items):
        return
    axis = 0
    for d, i in enumerate(items):
        if i is None or (isinstance(i, _Adv) and i.new):
            continue
        if isinstance(i, _Adv) and shape[d] == 0 and (
                type(i.value) is int or get_aval(i.value).ndim == 0):
            raise IndexError(f"index is out of bounds for axis {axis} with size 0")
        axis += 1


def _normalize(i: Any, size: int) -> Any:
    """Integer index array of the index dtype, negative entries counted from the end.

    As JAX 0.4.30: signed indices are normalized in their own dtype, unsigned ones not at all,
    and the result is cast (wrapping) to int32, the gather's index type for axes that fit it;
    so uint32 4294967295 is -1 there and clamps to 0, and int64 2**40 wraps to 0."""
    narrow = np.dtype(np.int32) if size < 2**31 else np.dtype(np.int64)
    value = _concrete(i) if not isinstance(i, Tracer) else None
    if value is not None:
        value = np.asarray(value)
        if value.dtype.kind == "i":
            with np.errstate(over="ignore"):
                wrapped_size = np.array(size).astype(value.dtype)  # as lax's constant
                value = np.where(value < 0, value + wrapped_size, value)
        return value.astype(narrow).astype(_index_dtype())
    if get_aval(i).dtype.kind == "i":
        size_ = lax._convert_element_type(size, get_aval(i).dtype)
        i = where(i < 0, lax.add(i, size_), i)
    i = lax.convert_element_type(i, narrow)
    return lax.convert_element_type(i, _index_dtype())


def _stack_indices(arrays: list[Any]) -> Any:
    shapes = [np.shape(a) if isinstance(a, np.ndarray) else get_aval(a).shape for a in arrays]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        listed = " ".join(str(s) for s in shapes)
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together "
                         f"with shapes {listed}") from None
    if all(isinstance(a, np.ndarray) for a in arrays):
        return np.stack([np.broadcast_to(a, shape) for a in arrays], axis=-1)
    cols = []
    for a, a_shape in zip(arrays, shapes, strict=True):
        dims = tuple(range(len(shape) - len(a_shape), len(shape)))
        cols.append(lax.reshape(lax.broadcast_in_dim(a, shape, dims), (*shape, 1)))
    return lax.concatenate(cols, len(shape))


# ---- x.at[idx] -----------------------------------------------------------------------------


class IndexUpdateRef:
    """`x.at[index]`: functional versions of `x[index] op= values`, and `get`.

    Out-of-bounds updates are dropped (mode 'drop', the default) or clamped (mode 'clip').

    >>> import numjax.numpy as jnp
    >>> jnp.zeros(4).at[jnp.array([1, 1, 9])].add(1.0)
    Array([0., 2., 0., 0.], dtype=float32)
    """

    __slots__ = ("array", "index")

    def __init__(self, array: Array, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    @transfer_guard.places_constants
    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | GatherScatterMode | None = None, fill_value: Any = None) -> Array:
        """`x[index]`, with a choice of out-of-bounds behaviour."""
        return advanced_getitem(self.array, self.index, mode=mode, fill_value=fill_value,
                                indices_are_sorted=indices_are_sorted,
                                unique_indices=unique_indices)

    def _update(self, values: Any, scatter: Callable[..., Array], array: Any = None,
                **kw: Any) -> Array:
        return _scatter_update(self.array if array is None else array, self.index, values,
                               scatter, **kw)

    @transfer_guard.places_constants
    def set(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Array:
        """`x[index] = values`."""
        return self._update(values, lax.scatter, indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)

    @transfer_guard.places_constants
    def add(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Array:
        """`x[index] += values` (repeated indices accumulate)."""
        return self._update(values, lax.scatter_add, indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)

    @transfer_guard.places_constants
    def multiply(self, values: Any, *, indices_are_sorted: bool = False,
                 unique_indices: bool = False,
                 mode: str | GatherScatterMode | None = None) -> Array:
        """`x[index] *= values`."""
        return self._update(values, lax.scatter_mul, indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)

    mul = multiply

    @transfer_guard.places_constants
    def divide(self, values: Any, *, indices_are_sorted: bool = False,
               unique_indices: bool = False,
               mode: str | GatherScatterMode | None = None) -> Array:
        """`x[index] /= values` (true division, as `jnp.divide`)."""
        ones = lax.full_like(ensure_array(self.array), 1)
        return divide(self.array, self._update(values, lax.scatter_mul, array=ones,
                                               indices_are_sorted=indices_are_sorted,
                                               unique_indices=unique_indices, mode=mode))

    @transfer_guard.places_constants
    def power(self, values: Any, *, indices_are_sorted: bool = False,
              unique_indices: bool = False,
              mode: str | GatherScatterMode | None = None) -> Array:
        """`x[index] **= values`."""
        ones = lax.full_like(ensure_array(self.array), 1)
        return power(self.array, self._update(values, lax.scatter_mul, array=ones,
                                              indices_are_sorted=indices_are_sorted,
                                              unique_indices=unique_indices, mode=mode))

    @transfer_guard.places_constants
    def min(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Array:
        """`x[index] = minimum(x[index], values)`."""
        return self._update(values, lax.scatter_min, indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)

    @transfer_guard.places_constants
    def max(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Array:
        """`x[index] = maximum(x[index], values)`."""
        return self._update(values, lax.scatter_max, indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)

    @transfer_guard.places_constants
    def apply(self, func: Callable[[Array], Array], *, indices_are_sorted: bool = False,
              unique_indices: bool = False,
              mode: str | GatherScatterMode | None = None) -> Array:
        """`x[index] = func(x[index])` for an elementwise `func` (once per element)."""
        x = ensure_array(self.array)
        aval = get_aval(x)
        positions, parsed = _flat_positions(x, self.index, mode)
        if 0 in get_aval(positions).shape:
            return x  # nothing indexed (func is not called, as in JAX)
        flat = lax.reshape(x, (aval.size,))
        basic = _is_basic(self.index)
        out = lax.scatter_apply(flat, positions, func, _FLAT_DNUMS,
                                update_shape=get_aval(positions).shape[:-1],
                                indices_are_sorted=indices_are_sorted or basic,
                                unique_indices=unique_indices or basic, mode=parsed)
        return lax.reshape(out, aval.shape)


def _is_basic(index: Any) -> bool:
    """Whether `index` holds only integers (0-d integer arrays too, traced or not), slices,
    None and Ellipsis: it then selects each element at most once, in increasing order, and the
    scatter says so (JAX's unique_indices and indices_are_sorted), which makes scatter_mul
    differentiable in its updates and lets scatter_apply apply once."""
    for e in index if isinstance(index, tuple) else (index,):
        if e is None or e is Ellipsis or isinstance(e, slice):
            continue
        if isinstance(e, bool | np.bool_) or not isinstance(
                e, int | np.integer | ArrayImpl | Tracer | np.ndarray):
            return False
        if isinstance(e, int | np.integer):
            continue
        aval = get_aval(e)
        if aval.ndim != 0 or not dtypes.issubdtype(aval.dtype, np.integer):
            return False
    return True


def _flat_positions(x: Array, index: Any, mode: str | GatherScatterMode | None
                    ) -> tuple[Any, GatherScatterMode]:
    """(flat positions of the indexed elements, with a trailing index-vector axis; the
    scatter mode). Dropped positions point past the end."""
    aval = get_aval(x)
    parsed = GatherScatterMode.from_any(mode)
    if parsed is not GatherScatterMode.CLIP:
        parsed = GatherScatterMode.FILL_OR_DROP
    iota = lax.reshape(lax.iota(_index_dtype(), aval.size), aval.shape)
    iota, plan = _plan_gather(iota, index, reading=False)
    if plan is None:
        positions = iota
    elif aval.size == 0 or 0 in plan.out_shape:
        # Nothing is indexed, or every index lies off an empty axis so nothing can be
        # written: the positions only give the updates' shape (no gather, whose slice of
        # size 1 would not fit an empty axis).
        positions = lax.full(plan.out_shape, aval.size, _index_dtype())
    else:
        fill = None if parsed is GatherScatterMode.CLIP else aval.size
        positions = lax.gather(iota, plan.indices, plan.dnums, plan.slice_sizes, mode=parsed,
                               fill_value=fill)
    shape = get_aval(positions).shape
    return lax.reshape(positions, (*shape, 1)), parsed


def _scatter_update(x: Array, index: Any, values: Any, scatter: Callable[..., Array], *,
                    indices_are_sorted: bool, unique_indices: bool,
                    mode: str | GatherScatterMode | None) -> Array:
    x = ensure_array(x)
    aval = get_aval(x)
    values = ensure_array(values)
    values_dtype = get_aval(values).dtype
    if values_dtype != aval.dtype and dtypes.result_type(values, aval.dtype) != aval.dtype:
        warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value from "
            f"dtype={values_dtype} to dtype={aval.dtype} with "
            f"jax_numpy_dtype_promotion={config.numpy_dtype_promotion.value!r}. In future JAX "
            "releases this will result in an error.", FutureWarning, stacklevel=4)
    leading = _leading_integers(index, aval.shape)
    if leading is not None:
        # x.at[i], x.at[i, j, :]: a scatter of x's trailing block at one place, as JAX's
        # (no positions of every element).
        pieces = [_normalize(i, n) for i, n in zip(leading, aval.shape, strict=False)]
        pieces = [lax.reshape(p, (1,)) if isinstance(p, Tracer) else np.reshape(p, (1,))
                  for p in pieces]
        positions = (np.concatenate(pieces) if all(isinstance(p, np.ndarray) for p in pieces)
                     else lax.concatenate(pieces, 0))
        k = len(leading)
        dnums = ScatterDimensionNumbers(update_window_dims=tuple(range(aval.ndim - k)),
                                        inserted_window_dims=tuple(range(k)),
                                        scatter_dims_to_operand_dims=tuple(range(k)))
        target = aval.shape[k:]
        parsed = GatherScatterMode.from_any(mode)
        if parsed is not GatherScatterMode.CLIP:
            parsed = GatherScatterMode.FILL_OR_DROP
    else:
        positions, parsed = _flat_positions(x, index, mode)
        target = get_aval(positions).shape[:-1]
        dnums = _FLAT_DNUMS
    if 0 in target:
        return x  # nothing indexed: as JAX, `x` itself, whatever the values
    # As JAX: the update runs in the promoted dtype and its result is cast back, so
    # int32 x.at[i].multiply(0.5) halves (10 -> 5) rather than multiplying by int(0.5) == 0.
    x, values = promote_dtypes(x, values)
    if transfer_guard._in_use:
        _guard_index_constants(index)
    vshape = get_aval(values).shape
    # NumPy accepts values with extra leading length-1 axes.
    while len(vshape) > len(target) and vshape[0] == 1:
        vshape = vshape[1:]
        values = lax.reshape(values, vshape)
    values = broadcast_to(values, target)
    basic = _is_basic(index)
    operand = x if leading is not None else lax.reshape(x, (aval.size,))
    out = scatter(operand, positions, values, dnums,
                  indices_are_sorted=indices_are_sorted or basic,
                  unique_indices=unique_indices or basic, mode=parsed)
    return lax._convert_element_type(lax.reshape(out, aval.shape), aval.dtype, aval.weak_type)


def _leading_integers(index: Any, shape: tuple[int, ...]) -> list[Any] | None:
    """The integers of an index that is integers (0-d integer arrays, traced or not) for the
    leading axes of `shape` and nothing else but full slices and an Ellipsis; else None (and
    for an empty `shape`, whose index errors the general path gives)."""
    items = list(index) if isinstance(index, tuple) else [index]
    leading: list[Any] = []
    for e in items:
        if isinstance(e, bool | np.bool_):
            return None
        if isinstance(e, int | np.integer):
            leading.append(e)
            continue
        if isinstance(e, ArrayImpl | Tracer | np.ndarray):
            aval = get_aval(e)
            if aval.ndim or not dtypes.issubdtype(aval.dtype, np.integer):
                return None
            leading.append(e)
            continue
        break
    rest = items[len(leading):]
    full = [e for e in rest if isinstance(e, slice) and e == slice(None)]
    if (not leading or len(leading) > len(shape) or 0 in shape
            or len(full) + rest.count(Ellipsis) != len(rest) or rest.count(Ellipsis) > 1):
        return None
    return leading


# ---- nonzero -------------------------------------------------------------------------------


@transfer_guard.places_constants
def nonzero(a: Array, *, size: int | None = None,
            fill_value: Any = None) -> tuple[Array, ...]:
    """Indices of the nonzero elements, one array per dimension. Under tracing `size` must be
    given: the result is truncated or padded (with `fill_value`, default 0) to that length.

    >>> import numjax.numpy as jnp
    >>> nonzero(jnp.array([0, 3, 0, 5]))
    (Array([1, 3], dtype=int32),)
    """
    a = ensure_array(a, "nonzero")
    aval = get_aval(a)
    if aval.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    if aval.size == 0 and size is not None:
        # As JAX: `size` zeros per dimension, whatever the fill value (nothing is checked).
        n = operator.index(size)
        return tuple(lax.full((n,), 0, _index_dtype()) for _ in aval.shape)
    fills = _fill_values(fill_value, aval.ndim)
    value = _concrete(a)
    if value is not None:
        # JAX computes the indices op by op on the device, from host constants.
        transfer_guard.library_constant(0, np.int32)
        found = np.nonzero(value)
        if size is not None:
            n = operator.index(size)
            found = tuple(np.concatenate([f[:n], np.full(max(0, n - len(f)), fv, f.dtype)])
                          for f, fv in zip(found, fills, strict=True))
        return tuple(lax._convert_element_type(f.astype(_index_dtype()), _index_dtype())
                     for f in found)
    if size is None:
        raise _nonzero_size_error(a)
    return _traced_nonzero(a, operator.index(size), fills)


def _nonzero_size_error(a: Any) -> errors.ConcretizationTypeError:
    """JAX's error for a traced jnp.nonzero without `size`: the size JAX needs is the count of
    nonzero elements, so the traced value it names is that count (an int32 scalar)."""
    count = lax.reduce_sum(lax._convert_element_type(
        lax.ne(a, lax._convert_element_type(0, get_aval(a).dtype)), np.int32),
        tuple(range(get_aval(a).ndim)))
    return errors.ConcretizationTypeError(
        count, "The size argument of jnp.nonzero must be statically specified to use "
               "jnp.nonzero within JAX transformations.\n")


def _fill_values(fill_value: Any, ndim: int) -> tuple[Any, ...]:
    if fill_value is None:
        return (0,) * ndim
    if np.ndim(fill_value) == 0:
        return (fill_value,) * ndim
    fills = tuple(fill_value)
    if len(fills) != ndim:
        raise ValueError(f"fill_value must be a scalar or a tuple of length {ndim}; got "
                         f"{fill_value}")
    return fills


def _traced_nonzero(a: Array, size: int, fills: tuple[Any, ...]) -> tuple[Array, ...]:
    aval = get_aval(a)
    n = aval.size
    idt = _index_dtype()
    flat = lax.reshape(a, (n,))
    hit = lax.ne(flat, lax._convert_element_type(0, aval.dtype)) if aval.dtype != np.bool_ \
        else flat
    count = lax.convert_element_type(hit, idt)
    rank = lax.sub(_cumsum(count), count)
    # The k-th nonzero element writes its flat position to slot k; the rest write past the end
    # and are dropped.
    slot = where(hit, rank, size)
    empty = lax.full((size,), n, idt)
    found = lax.scatter(empty, lax.reshape(slot, (n, 1)), lax.iota(idt, n), _FLAT_DNUMS,
                        mode=GatherScatterMode.FILL_OR_DROP)
    valid = found < n
    out = []
    stride = n
    for d, dim in enumerate(aval.shape):
        stride //= dim if dim else 1
        coord = (found // max(stride, 1)) % max(dim, 1)
        out.append(where(valid, coord, lax._convert_element_type(fills[d], idt)))
    return tuple(out)


def _cumsum(x: Array) -> Array:
    """Inclusive prefix sum of a 1-d array in log2(n) shift-and-add steps."""
    n = get_aval(x).shape[0]
    shift = 1
    while shift < n:
        zeros = lax.full((shift,), 0, get_aval(x).dtype)
        x = lax.add(x, lax.concatenate([zeros, lax.slice(x, (0,), (n - shift,))], 0))
        shift *= 2
    return x


@transfer_guard.places_constants
def flatnonzero(a: Array, *, size: int | None = None, fill_value: Any = None) -> Array:
    """Indices of the nonzero elements of the flattened array.

    >>> import numjax.numpy as jnp
    >>> flatnonzero(jnp.array([[0, 1], [2, 0]]))
    Array([1, 2], dtype=int32)
    """
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


@transfer_guard.places_constants
def argwhere(a: Array, *, size: int | None = None, fill_value: Any = None) -> Array:
    """Indices of the nonzero elements, one row per element.

    >>> import numjax.numpy as jnp
    >>> argwhere(jnp.array([[0, 1], [2, 0]]))
    Array([[0, 1],
           [1, 0]], dtype=int32)
    """
    if not (type(a) is ArrayImpl or isinstance(a, Tracer)):
        # As JAX, which compiles argwhere: jit's errors, then `jnp.asarray` (lists too).
        check_args_abstractify((a,))
        if isinstance(a, dict):  # its leaves are traced: `jnp.array` takes no dict of them
            raise TypeError(f"Unexpected input type for array: {type(a)}")
        a = asarray(a)
    result = stack(nonzero(atleast_1d(a), size=size, fill_value=fill_value), axis=1)
    if get_aval(a).ndim == 0:
        return lax.slice(result, (0, 0), (get_aval(result).shape[0], 0))
    return result


transfer_guard.entry_points(globals())
