"""Shape manipulation: reshape, transpose, squeeze, expand_dims, broadcast, stack, concatenate."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core import errors, extended
from numjax._src.core.avals import check_args_abstractify, get_aval
from numjax._src.core.trace import Tracer
from numjax._src.lax import lax
from numjax._src.lax.structural import broadcast_shapes
from numjax._src.lax.structural import invalid_shape_error as invalid_shape_error
from numjax._src.numpy.util import (
    asarrays_deprecated,
    canonicalize_axis,
    check_arraylike,
    ensure_array,
    forwards_operands,
    promote_dtypes,
)
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.typing import Array


def shape(a: Array) -> tuple[int, ...]:
    return _shape_of(a)


def _shape_of(a: Array) -> tuple[int, ...]:
    """NumPy's reading of a shape (as in JAX, whose shape/ndim/size are NumPy's): an object's
    `shape` attribute, else the shape NumPy gives it (sequences nest, anything else is 0-d)."""
    shape = getattr(a, "shape", None)
    if shape is not None:
        return tuple(shape)
    return tuple(np.shape(a))


def ndim(a: Array) -> int:
    return len(_shape_of(a))


def size(a: Array, axis: int | None = None) -> int:
    s = _shape_of(a)
    return math.prod(s) if axis is None else s[axis]


def _is_traced(d: Any) -> bool:
    return isinstance(d, Tracer) and d.to_concrete_value() is None


def _require_static_axis(axis: Any) -> None:
    """JAX's error for a traced `axis` argument (a reduction's, a cumulative one's, flip's)."""
    if _is_traced(axis):
        raise errors.ConcretizationTypeError(axis, "The axis argument must be known "
                                                   "statically.\n")


def _require_static_index(axis: Any) -> None:
    """JAX's error for a traced axis of squeeze or expand_dims."""
    if _is_traced(axis):
        raise errors.ConcretizationTypeError(axis, "expected a static index or sequence of "
                                                   "indices.\n")


def reshape(a: Array, newshape: Any = None, order: str = "C", *, shape: Any = None) -> Array:
    """Reshape `a`; one dimension may be -1 (inferred).

    >>> import numjax.numpy as jnp
    >>> jnp.reshape(jnp.arange(6), (3, -1)).shape
    (3, 2)
    """
    new = shape if shape is not None else newshape
    if isinstance(a, extended.array_types):
        return extended.rule("reshape")(a, new, order)
    if isinstance(a, np.ndarray | np.generic):
        # As in JAX 0.4.30, the operand's own method: NumPy out (concrete under jit too).
        return a.reshape(new, order=order)  # type: ignore[call-overload, no-any-return]
    a = ensure_array(a, "reshape")
    if isinstance(new, int | np.integer):
        new = (int(new),)
    elif isinstance(new, Tracer):
        new = [new]  # a scalar shape, as JAX reads one it cannot iterate over
    if any(_is_traced(d) for d in new):
        raise invalid_shape_error(new)
    new = tuple(int(d) for d in new)
    old = get_aval(a).shape
    total = math.prod(old)
    if new.count(-1) > 1:
        raise TypeError(f"can only specify one unknown axis size with a `-1` value, got {new}")
    if -1 in new:
        known = math.prod(d for d in new if d != -1)
        if known == 0:  # JAX 0.4.30 divides by the zero product
            raise ZeroDivisionError("integer modulo by zero")
        if total % known:
            raise TypeError(f"cannot reshape array of shape {old} (size {total}) into shape "
                            f"{new} because the product of specified axis sizes ({known}) does "
                            f"not evenly divide {total}")
        new = tuple(total // known if d == -1 else d for d in new)
    if math.prod(new) != total:
        raise TypeError(f"cannot reshape array of shape {old} (size {total}) into shape {new} "
                        f"(size {math.prod(new)})")
    if order == "F":
        rev = tuple(reversed(range(len(old))))
        return lax.transpose(lax.reshape(a, tuple(reversed(new)), rev),
                             tuple(reversed(range(len(new)))))
    return lax.reshape(a, new)


@forwards_operands
def ravel(a: Array, order: str = "C") -> Array:
    if type(a) is not ArrayImpl and not isinstance(a, extended.array_types):
        a = ensure_array(a, "ravel")
    return reshape(a, (-1,), order)


def transpose(a: Array, axes: Sequence[int] | None = None) -> Array:
    if isinstance(a, extended.array_types):
        return extended.rule("transpose")(a, axes)
    a = ensure_array(a, "transpose")
    n = get_aval(a).ndim
    perm = tuple(reversed(range(n))) if axes is None else tuple(
        canonicalize_axis(i, n) for i in axes)
    return lax.transpose(a, perm)


def permute_dims(a: Array, axes: Sequence[int]) -> Array:
    return transpose(a, axes)


def _ndim(a: Any) -> int:
    """The rank of an array, or of an array of extended dtype (a key array's key shape)."""
    if isinstance(a, extended.array_types):
        shape: tuple[int, ...] = getattr(a, "shape")  # noqa: B009 - an extended-dtype array
        return len(shape)
    return get_aval(a).ndim


def swapaxes(a: Array, axis1: int, axis2: int) -> Array:
    if not isinstance(a, extended.array_types):
        a = ensure_array(a, "swapaxes")
    n = _ndim(a)
    # As JAX, the axes index a NumPy permutation, so bad axes raise NumPy's IndexError ("index
    # 5 is out of bounds for axis 0 with size 2").
    perm = np.arange(n)
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return transpose(a, tuple(int(p) for p in perm))


def moveaxis(a: Array, source: Any, destination: Any) -> Array:
    if not isinstance(a, extended.array_types):
        a = ensure_array(a, "moveaxis")
    n = _ndim(a)
    src = [canonicalize_axis(s, n) for s in np.atleast_1d(source)]
    dst = [canonicalize_axis(d, n) for d in np.atleast_1d(destination)]
    if len(src) != len(dst):
        raise ValueError("Inconsistent number of elements: "
                         f"{len(src)} vs {len(dst)}")
    perm = [i for i in range(n) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        perm.insert(d, s)
    return transpose(a, tuple(perm))


def squeeze(a: Array, axis: int | Sequence[int] | None = None) -> Array:
    if isinstance(a, extended.array_types):
        return extended.rule("squeeze")(a, axis)
    a = ensure_array(a, "squeeze")
    s = get_aval(a).shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(s) if d == 1)
    else:
        _require_static_index(axis)
        axes = tuple(canonicalize_axis(i, len(s)) for i in np.atleast_1d(axis))
    return lax.squeeze(a, axes)


def expand_dims(a: Array, axis: int | Sequence[int]) -> Array:
    if isinstance(a, extended.array_types):
        return extended.rule("expand_dims")(a, axis)
    a = ensure_array(a, "expand_dims")
    _require_static_index(axis)
    axes = tuple(np.atleast_1d(axis).tolist())
    n = get_aval(a).ndim + len(axes)
    return lax.expand_dims(a, tuple(canonicalize_axis(i, n) for i in axes))


def broadcast_to(array: Array, shape: Any) -> Array:
    """Broadcast `array` to `shape` with NumPy's rules."""
    if isinstance(array, extended.array_types):
        return extended.rule("broadcast_to")(array, shape)
    array = ensure_array(array, "broadcast_to")
    shape = (int(shape),) if isinstance(shape, int | np.integer) else tuple(shape)
    old = get_aval(array).shape
    if len(shape) < len(old):
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={old} "
                         f"shape={shape}")
    if any(o not in (1, n) for o, n in zip(
            old, shape[len(shape) - len(old):], strict=True)):
        raise ValueError(f"Incompatible shapes for broadcasting: {old} and requested shape "
                         f"{shape}")
    if old == shape:
        return array
    offset = len(shape) - len(old)
    squeezed = [i for i, (o, n) in enumerate(zip(old, shape[offset:], strict=True))
                if o == 1 and n != 1]
    if squeezed:
        array = lax.squeeze(array, tuple(squeezed))
    kept = tuple(offset + i for i in range(len(old)) if i not in squeezed)
    return lax.broadcast_in_dim(array, shape, kept)


@forwards_operands
def broadcast_arrays(*args: Array) -> list[Array]:
    for x in args:
        if not (type(x) is ArrayImpl or isinstance(x, Tracer)):
            _broadcast_operands(args)
            break
    shp = broadcast_shapes(*[get_aval(a).shape for a in args])
    return [broadcast_to(a, shp) for a in args]


def _broadcast_operands(args: tuple[Any, ...]) -> None:
    """JAX's errors for operands of broadcast_arrays: it compiles it (jit's errors), then
    reads each as `lax.asarray` does (arrays and scalars only), after `broadcast_to`'s check
    when the shapes differ."""
    check_args_abstractify(args)
    shapes = [np.shape(x) if not isinstance(x, ArrayImpl | Tracer) else get_aval(x).shape
              for x in args]
    for x in args:
        if any(s != shapes[0] for s in shapes):
            check_arraylike("broadcast_to", x)
        if not (isinstance(x, ArrayImpl | Tracer | bool | int | float | complex | np.ndarray
                           | np.generic) or isinstance(x, extended.array_types)):
            raise TypeError(f"asarray: expected ArrayLike, got {x} of type {type(x)}.")


@forwards_operands
def atleast_1d(*arys: Array) -> Any:
    if len(arys) != 1 or type(arys[0]) is not ArrayImpl:
        arys = tuple(asarrays_deprecated("atleast_1d", arys))
    out = _atleast_1d(arys)
    return out[0] if len(out) == 1 else out


@forwards_operands
def atleast_2d(*arys: Array) -> Any:
    if len(arys) != 1 or type(arys[0]) is not ArrayImpl:
        arys = tuple(asarrays_deprecated("atleast_2d", arys))
    out = _atleast_2d(arys)
    return out[0] if len(out) == 1 else out


@forwards_operands
def atleast_3d(*arys: Array) -> Any:
    if len(arys) != 1 or type(arys[0]) is not ArrayImpl:
        arys = tuple(asarrays_deprecated("atleast_3d", arys))
    out = _atleast_3d(arys)
    return out[0] if len(out) == 1 else out


# The atleast functions on arguments already made Arrays.
def _atleast_1d(arys: Sequence[Array]) -> list[Array]:
    return [reshape(a, (1,)) if get_aval(a).ndim == 0 else a for a in arys]


def _atleast_2d(arys: Sequence[Array]) -> list[Array]:
    return [a if get_aval(a).ndim >= 2 else lax.broadcast_to_rank(a, 2) for a in arys]


def _atleast_3d(arys: Sequence[Array]) -> list[Array]:
    out = []
    for a in arys:
        s = get_aval(a).shape
        if len(s) == 0:
            a = reshape(a, (1, 1, 1))
        elif len(s) == 1:
            a = reshape(a, (1, s[0], 1))
        elif len(s) == 2:
            a = reshape(a, (*s, 1))
        out.append(a)
    return out


def _check_joined(arrays: Any) -> None:
    """JAX's errors for arrays to join that are not a list, tuple or array of numbers: it
    unpacks a sequence to check it, and takes a NumPy array whole (jit's error for strings)."""
    if isinstance(arrays, np.ndarray):
        if arrays.dtype.kind in "OSUV":
            check_args_abstractify((arrays,))
    elif not hasattr(arrays, "__iter__"):
        raise TypeError(f"Value after * must be an iterable, not {type(arrays).__name__}")


def concatenate(arrays: Sequence[Array], axis: int | None = 0, dtype: Any = None) -> Array:
    """Join arrays along an existing axis (flattened first when axis is None)."""
    if not isinstance(arrays, list | tuple | ArrayImpl | Tracer):
        _check_joined(arrays)
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    if extended.any_extended(arrays):
        return extended.rule("concatenate")(arrays, axis, dtype)
    try:
        arrays = [ensure_array(a) for a in arrays]
    except TypeError:
        check_arraylike("concatenate", *arrays)
        if axis is not None and np.ndim(arrays[0]) == 0:  # JAX reads the rank first
            raise ValueError("Zero-dimensional arrays cannot be concatenated.") from None
        for a in arrays:  # then copies each with `jnp.array`: its text for a string array
            if isinstance(a, np.ndarray):
                dtypes.dtype(a)
        raise
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    if dtype is not None:
        arrays = [lax._convert_element_type(a, dtypes.canonicalize_dtype(dtype)) for a in arrays]
    arrays = promote_dtypes(*arrays)
    n = get_aval(arrays[0]).ndim
    if n == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    return lax.concatenate(arrays, canonicalize_axis(axis, n))


def stack(arrays: Sequence[Array], axis: int = 0, dtype: Any = None) -> Array:
    """Join arrays along a new axis."""
    if isinstance(arrays, np.ndarray):
        _check_joined(arrays)
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    if extended.any_extended(arrays):
        return extended.rule("stack")(arrays, axis, dtype)
    try:
        arrays = [ensure_array(a) for a in arrays]
    except TypeError:
        check_arraylike("stack", *arrays)
        raise
    shapes = {get_aval(a).shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError("All input arrays must have the same shape.")
    n = get_aval(arrays[0]).ndim + 1
    ax = canonicalize_axis(axis, n)
    return concatenate([expand_dims(a, ax) for a in arrays], ax, dtype)


def hstack(tup: Sequence[Array], dtype: Any = None) -> Array:
    # JAX checks `tup`, then hands it to its compiled atleast_1d.
    if not isinstance(tup, list | tuple | ArrayImpl | Tracer):
        _check_joined(tup)
    arrs = _atleast_1d(asarrays_deprecated("hstack", tup, jitted=True))
    return concatenate(arrs, 0 if get_aval(arrs[0]).ndim == 1 else 1, dtype)


def vstack(tup: Sequence[Array], dtype: Any = None) -> Array:
    # JAX checks `tup`, then hands it to its compiled atleast_2d.
    arrs = _atleast_2d(asarrays_deprecated("vstack", tup, jitted=True))
    return concatenate(arrs, 0, dtype)


def dstack(tup: Sequence[Array], dtype: Any = None) -> Array:
    # JAX checks `tup`, then hands it to its compiled atleast_3d.
    arrs = _atleast_3d(asarrays_deprecated("dstack", tup, jitted=True))
    return concatenate(arrs, 2, dtype)


def flip(m: Array, axis: int | Sequence[int] | None = None) -> Array:
    m = ensure_array(m, "flip")
    n = get_aval(m).ndim
    _require_static_axis(axis)
    axes = tuple(range(n)) if axis is None else tuple(
        canonicalize_axis(a, n) for a in np.atleast_1d(axis))
    return lax.rev(m, axes)


transfer_guard.entry_points(globals())
