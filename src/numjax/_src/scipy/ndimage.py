"""`jax.scipy.ndimage.map_coordinates`: sample an N-d array at fractional coordinates.

Along each axis a coordinate gives one (order 0) or two (order 1) integer nodes with weights; the
result sums, over every combination of one node per axis, the product of the weights times the
array gathered there. `mode` maps out-of-range nodes back inside (or, for 'constant', marks them to
read `cval`). As in JAX 0.4.30, 'constant' and 'wrap' behave like SciPy's 'grid-constant' and
'grid-wrap', and the whole computation is one jitted function with `order`, `mode` and `cval`
static (so `cval` must be hashable).
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src.api.jit import jit
from numjax._src.dtypes import issubdtype
from numjax._src.lax import lax
from numjax._src.numpy.creation import asarray
from numjax._src.numpy.lax_numpy import clip, where
from numjax._src.numpy.scalar_types import int32
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import floor, floor_divide
from numjax._src.typing import Array


def _mirror(index: Array, size: int) -> Array:
    """Reflection about the end samples (..., 1, 0, 1, ..., n-1, n-2, ...): a triangle wave."""
    period = size - 1
    return jnp_abs((index + period) % (2 * period) - period)


def _reflect(index: Array, size: int) -> Array:
    """Reflection about the array's edges (..., 1, 0, 0, 1, ..., n-1, n-1, ...): mirroring on
    the half-sample grid."""
    return floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_INDEX_FIXERS: dict[str, Callable[[Array, int], Array]] = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away_from_zero(a: Array) -> Array:
    return a if issubdtype(a.dtype, np.integer) else lax.round(a)


def _nearest_nodes(coordinate: Array) -> list[tuple[Array, Any]]:
    index = _round_half_away_from_zero(coordinate).astype(int32)
    return [(index, coordinate.dtype.type(1))]


def _linear_nodes(coordinate: Array) -> list[tuple[Array, Any]]:
    lower = floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


@functools.partial(jit, static_argnums=(2, 3, 4))
def _map_coordinates(input: Array, coordinates: Sequence[Array], order: int, mode: str,
                     cval: Any) -> Array:
    arr = asarray(input)
    coords = [asarray(c) for c in coordinates]
    fill = asarray(cval, arr.dtype)
    if len(coordinates) != arr.ndim:
        raise ValueError("coordinates must be a sequence of length input.ndim, but "
                         f"{len(coordinates)} != {arr.ndim}")
    fix_index = _INDEX_FIXERS.get(mode)
    if fix_index is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_INDEX_FIXERS)}.")
    if order == 0:
        nodes_of = _nearest_nodes
    elif order == 1:
        nodes_of = _linear_nodes
    else:
        raise NotImplementedError(
            "jax.scipy.ndimage.map_coordinates currently requires order<=1")

    per_axis = []  # per axis: (in-range index, validity or True, weight) for each node
    for coordinate, size in zip(coords, arr.shape, strict=True):
        per_axis.append([
            (fix_index(index, size),
             (0 <= index) & (index < size) if mode == "constant" else True,
             weight)
            for index, weight in nodes_of(coordinate)])

    terms = []
    for combination in itertools.product(*per_axis):
        indices, validities, weights = zip(*combination, strict=True) if combination else (
            (), (), ())  # a 0-d input: the empty product below raises JAX's TypeError
        value = arr[indices]
        if not all(valid is True for valid in validities):
            value = where(functools.reduce(operator.and_, validities), value, fill)
        terms.append(functools.reduce(operator.mul, weights) * value)
    result = functools.reduce(operator.add, terms)
    if issubdtype(arr.dtype, np.integer):
        result = _round_half_away_from_zero(result)
    return result.astype(arr.dtype)


def map_coordinates(input: Array, coordinates: Sequence[Array], order: int,
                    mode: str = "constant", cval: Any = 0.0) -> Array:
    """`input` interpolated at `coordinates` (one array per axis): nearest node (order 0) or
    multilinear (order 1); `mode` is one of 'constant' (reads `cval`), 'nearest', 'wrap',
    'mirror', 'reflect'.

    >>> import numjax.numpy as jnp
    >>> image = jnp.arange(12.0).reshape(3, 4)
    >>> map_coordinates(image, [jnp.array([0.5, 2.0]), jnp.array([1.0, 3.5])], order=1)
    Array([3. , 5.5], dtype=float32)
    """
    return _map_coordinates(input, coordinates, order, mode, cval)
