"""jnp.pad: NumPy's padding modes built from lax.pad, slices, reversals and concatenations."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src.core import errors
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Tracer
from numjax._src.lax import lax
from numjax._src.numpy import reductions
from numjax._src.numpy.creation import asarray, linspace
from numjax._src.numpy.rounding import round as jnp_round
from numjax._src.numpy.selection import apply_along_axis
from numjax._src.numpy.shape import broadcast_to
from numjax._src.numpy.statistics import median
from numjax._src.numpy.util import check_arraylike, ensure_array
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array

_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
          "reflect", "symmetric", "wrap", "empty")


def _pairs(name: str, value: Any, ndim: int, integral: bool = True) -> list[tuple[Any, Any]]:
    """`value` broadcast to one (before, after) pair per axis."""
    if isinstance(value, Tracer) and value.to_concrete_value() is None:
        raise errors.ConcretizationTypeError(value, f"The {name} argument of jnp.pad must be "
                                                    "concrete.\n")
    arr = np.asarray(value.to_concrete_value() if isinstance(value, Tracer) else value)
    if integral and arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"`{name}` must be of integral type.")
    # JAX's accepted layouts only (NumPy would also broadcast (ndim, 1) or (1, 1)).
    if arr.shape not in ((ndim, 2), (1, 2), (2,), (1,), ()):
        raise ValueError(f"jnp.pad: {name} with nd={ndim} has unsupported shape {arr.shape}. "
                         f"Valid shapes are ({ndim}, 2), (1, 2), (2,), (1,), or ().")
    full = np.broadcast_to(arr, (ndim, 2))
    if integral:
        out = [(operator.index(a), operator.index(b)) for a, b in full.tolist()]
        if any(a < 0 or b < 0 for a, b in out):
            raise ValueError("index can't contain negative values")
        return out
    return [(a, b) for a, b in full]


@transfer_guard.places_constants
def pad(array: Array, pad_width: Any, mode: str | Callable[..., Any] = "constant",
        **kwargs: Any) -> Array:
    """Pad `array` by `pad_width` ((before, after) per axis) with NumPy's `mode`s.

    >>> import numjax.numpy as jnp
    >>> jnp.pad(jnp.array([1, 2, 3]), 2, mode="reflect")
    Array([3, 2, 1, 2, 3, 2, 1], dtype=int32)
    """
    check_arraylike("pad", array)
    array = ensure_array(array, "pad")
    ndim = get_aval(array).ndim
    widths = _pairs("pad_width", pad_width, ndim)
    if callable(mode):
        return _pad_with_function(array, widths, mode, kwargs)
    allowed = {"constant": {"constant_values"}, "linear_ramp": {"end_values"},
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"},
               "maximum": {"stat_length"}, "minimum": {"stat_length"},
               "mean": {"stat_length"}, "median": {"stat_length"}}
    if mode not in _MODES:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unexpected = set(kwargs) - allowed.get(mode, set())
    if unexpected:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unexpected}")
    if ndim == 0:
        return array  # as JAX: nothing to pad, and the value keeps its weak type
    if mode == "constant":
        if "constant_values" not in kwargs:
            # JAX passes the default 0 on to a compiled function: placed on the device.
            transfer_guard.library_constant(0, np.int32)
        return _pad_constant(array, widths, kwargs.get("constant_values", 0))
    if mode == "empty":
        return _pad_constant(array, widths, 0)
    # linear_ramp and the statistics read every axis, padded or not, as JAX does: on an empty
    # one they fail as its reads do (the edge's slice, max/min of nothing, median's gather)
    # or pad with NaN (the mean of nothing); the other modes refuse to pad an empty axis.
    reads_axis = mode == "linear_ramp" or mode in ("maximum", "minimum", "mean", "median")
    for axis, (before, after) in enumerate(widths):
        n = get_aval(array).shape[axis]
        if before == after == 0 and not (reads_axis and n == 0):
            continue
        if n == 0 and not reads_axis:
            raise ValueError(f"Cannot apply '{mode}' padding to empty axis")
        if mode == "edge":
            array = _pad_edge(array, axis, before, after)
        elif mode == "wrap":
            array = _pad_wrap(array, axis, before, after)
        elif mode in ("reflect", "symmetric"):
            odd = kwargs.get("reflect_type", "even") == "odd"
            array = _pad_reflect(array, axis, before, after, mode == "reflect", odd)
        elif mode == "linear_ramp":
            ends = _pairs("end_values", kwargs.get("end_values", 0), ndim, integral=False)
            array = _pad_ramp(array, axis, before, after, ends[axis])
        else:
            lengths = kwargs.get("stat_length")
            stat = None if lengths is None else _pairs("stat_length", lengths, ndim)[axis]
            array = _pad_stat(array, axis, before, after, mode, stat)
    return array


def _pad_with_function(array: Array, widths: list[tuple[int, int]], func: Callable[..., Any],
                       kwargs: dict[str, Any]) -> Array:
    """NumPy's protocol for a function as the mode, functionally: zeros padded in, then
    `func(vector, pad_width, iaxis, kwargs)` returns each 1-d slice along each axis in turn,
    padded."""
    padded = _pad_constant(array, widths, 0)
    for axis, width in enumerate(widths):
        padded = apply_along_axis(func, axis, padded, width, axis, kwargs)
    return padded


def _pad_constant(array: Array, widths: list[tuple[int, int]], values: Any) -> Array:
    # The fill values take the array's dtype and weak type, as in JAX: a weak array stays weak.
    dt, weak = get_aval(array).dtype, get_aval(array).weak_type
    if isinstance(values, Tracer) and get_aval(values).ndim == 0 or np.ndim(values) == 0 and \
            not isinstance(values, Tracer):
        fill = lax._convert_element_type(values, dt, weak)
        return lax.pad(array, fill, [(b, a, 0) for b, a in widths])
    if isinstance(values, list | tuple):
        values = asarray(values)
    pairs = _value_pairs(values, len(widths))
    for axis, ((before, after), (vb, va)) in enumerate(zip(widths, pairs, strict=True)):
        config = [(0, 0, 0)] * len(widths)
        config[axis] = (before, 0, 0)
        array = lax.pad(array, lax._convert_element_type(vb, dt, weak), config)
        config[axis] = (0, after, 0)
        array = lax.pad(array, lax._convert_element_type(va, dt, weak), config)
    return array


def _value_pairs(values: Any, ndim: int) -> list[tuple[Any, Any]]:
    """Per-axis (before, after) values, traced entries allowed."""
    v = broadcast_to(values, (ndim, 2))
    return [(v[i, 0], v[i, 1]) for i in range(ndim)]


def _edge(array: Array, axis: int, first: bool) -> Array:
    n = get_aval(array).shape[axis]
    return lax.slice_in_dim(array, 0, 1, axis=axis) if first else \
        lax.slice_in_dim(array, n - 1, n, axis=axis)


def _repeat_slab(slab: Array, axis: int, count: int) -> Array:
    shape = list(get_aval(slab).shape)
    shape[axis] = count
    return lax.broadcast_in_dim(lax.squeeze(slab, (axis,)), tuple(shape),
                                tuple(i for i in range(len(shape)) if i != axis))


def _pad_edge(array: Array, axis: int, before: int, after: int) -> Array:
    parts = [_repeat_slab(_edge(array, axis, True), axis, before), array,
             _repeat_slab(_edge(array, axis, False), axis, after)]
    return lax.concatenate(parts, axis)


def _pad_wrap(array: Array, axis: int, before: int, after: int) -> Array:
    n = get_aval(array).shape[axis]
    copies_before = -(-before // n)
    copies = copies_before + 1 + -(-after // n)
    tiled = lax.concatenate([array] * copies, axis)
    start = copies_before * n - before
    return lax.slice_in_dim(tiled, start, start + before + n + after, axis=axis)


def _pad_reflect(array: Array, axis: int, before: int, after: int, reflect: bool,
                 odd: bool) -> Array:
    """Mirror the array about its edges, repeatedly when the pad is longer than the axis.
    'reflect' excludes the edge element from the mirror image, 'symmetric' includes it; with
    reflect_type='odd' the image is additionally negated about the edge value (2*edge - x)."""
    n = get_aval(array).shape[axis]
    if reflect and n == 1:
        return _pad_edge(array, axis, before, after)
    skip = 1 if reflect else 0
    period = n - skip

    def grow(array: Array, count: int, first: bool) -> Array:
        edge = _edge(array, axis, first)
        while count > 0:
            step = min(count, period)
            count -= step
            size = get_aval(array).shape[axis]
            piece = lax.slice_in_dim(array, skip, skip + step, axis=axis) if first else \
                lax.slice_in_dim(array, size - skip - step, size - skip, axis=axis)
            piece = lax.rev(piece, (axis,))
            if odd:
                piece = lax.sub(lax.mul(lax._convert_element_type(2, get_aval(edge).dtype),
                                        lax.broadcast_in_dim(
                                            lax.squeeze(edge, (axis,)),
                                            get_aval(piece).shape,
                                            tuple(i for i in range(get_aval(piece).ndim)
                                                  if i != axis))), piece)
                edge = _edge(piece, axis, first)
            array = lax.concatenate([piece, array] if first else [array, piece], axis)
        return array

    return grow(grow(array, before, True), after, False)


def _pad_ramp(array: Array, axis: int, before: int, after: int, ends: tuple[Any, Any]) -> Array:
    """Linear ramps from the end values to the edges, as JAX builds them: `linspace` without
    its endpoint in the array's dtype (integers floored, so a ramp from -5 to 5 over 2 steps
    is [-5, 0] and one from -3 to -5 over 2 is [-5, -4])."""
    weak = get_aval(array).weak_type

    def ramp(edge: Array, end: Any, count: int) -> Array:
        out = linspace(end, lax.squeeze(edge, (axis,)), count, endpoint=False,
                       dtype=get_aval(array).dtype, axis=axis)
        return lax._convert_element_type(out, get_aval(out).dtype, weak)

    left = ramp(_edge(array, axis, True), ends[0], before)
    right = lax.rev(ramp(_edge(array, axis, False), ends[1], after), (axis,))
    return lax.concatenate([left, array, right], axis)


def _pad_stat(array: Array, axis: int, before: int, after: int, mode: str,
              stat: tuple[int, int] | None) -> Array:
    n = get_aval(array).shape[axis]
    stats: dict[str, Callable[..., Array]] = {
        "maximum": reductions.max, "minimum": reductions.min, "mean": reductions.mean}
    fn = stats.get(mode) or _median

    def stat_slab(first: bool) -> Array:
        length = n if stat is None else min(max(stat[0 if first else 1], 1), n)
        if stat is not None and stat[0 if first else 1] == 0:
            raise ValueError("stat_length of 0 yields no value for padding")
        region = lax.slice_in_dim(array, 0, length, axis=axis) if first else \
            lax.slice_in_dim(array, n - length, n, axis=axis)
        value = fn(region, axis=axis, keepdims=True)
        dt = get_aval(array).dtype
        if mode in ("mean", "median") and dt.kind in "iu":
            # Integers round; a boolean's mean is converted as it is (nonzero is True), as
            # JAX rounds np.integer statistics only.
            value = jnp_round(value)
        # Weak when the array is (JAX converts its statistics so).
        return lax._convert_element_type(value, dt, get_aval(array).weak_type)

    parts = [_repeat_slab(stat_slab(True), axis, before), array,
             _repeat_slab(stat_slab(False), axis, after)]
    return lax.concatenate(parts, axis)


def _median(a: Array, axis: int, keepdims: bool) -> Array:
    return median(a, axis=axis, keepdims=keepdims)


transfer_guard.entry_points(globals())
