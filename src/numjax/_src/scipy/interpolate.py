"""`jax.scipy.interpolate.RegularGridInterpolator`: linear and nearest-neighbour
interpolation on a rectilinear grid, written with jnp operations so it runs under jit, vmap
and grad (with respect to the grid values and to the query points)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np

from numjax._src.numpy.creation import asarray, zeros
from numjax._src.numpy.lax_numpy import clip, where
from numjax._src.numpy.selection import can_cast
from numjax._src.numpy.shape import broadcast_arrays, stack
from numjax._src.numpy.shape import ndim as jnp_ndim
from numjax._src.numpy.sorting import searchsorted
from numjax._src.numpy.util import check_arraylike, promote_dtypes_inexact
from numjax._src.tree_util import register_pytree_node
from numjax._src.typing import Array

_METHODS = ("linear", "nearest")


def _check_method(method: str) -> None:
    if method not in _METHODS:
        raise ValueError(f"method {method!r} is not defined")


def _coordinates(xi: Any, ndim: int) -> Array:
    """Query points as one array of shape (..., ndim): from a tuple of coordinate arrays
    (broadcast together, then stacked last in the default float dtype), or from an array whose
    last axis holds the coordinates (a 1-D array is read as a run of `ndim`-vectors)."""
    if isinstance(xi, tuple) and len(xi) == 1:
        xi = xi[0]
    if isinstance(xi, tuple):
        parts = broadcast_arrays(*xi)
        return stack([p.astype(float) for p in parts], axis=-1)
    check_arraylike("_ndim_coords_from_arrays", xi)
    xi = asarray(xi)
    return xi.reshape(-1, ndim) if xi.ndim == 1 else xi


class RegularGridInterpolator:
    """Interpolate on the grid `points` (a sequence of N increasing 1-D arrays) whose values
    are `values` (N leading axes, any trailing ones), as `scipy.interpolate`'s class does.

    `method` is "linear" or "nearest". Query points outside the grid get `fill_value`
    (default NaN), or, with `fill_value=None`, are extrapolated. `bounds_error=True` raises
    NotImplementedError, as in JAX: a bounds check cannot raise under jit.

    >>> import numjax.numpy as jnp
    >>> points = (jnp.array([1, 2, 3]), jnp.array([4, 5, 6]))
    >>> values = jnp.array([[10, 20, 30], [40, 50, 60], [70, 80, 90]])
    >>> interpolate = RegularGridInterpolator(points, values)
    >>> interpolate(jnp.array([[1.5, 4.5], [2.2, 5.8], [0.0, 5.0]]))
    Array([30., 64., nan], dtype=float32)
    >>> interpolate(jnp.array([[1.5, 4.5], [2.2, 5.8]]), method="nearest")
    Array([10., 60.], dtype=float32)
    """

    def __init__(self, points: Any, values: Array, method: str = "linear",
                 bounds_error: bool = False, fill_value: Any = np.nan) -> None:
        _check_method(method)
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        check_arraylike("RegularGridInterpolator", values)
        if len(points) > jnp_ndim(values):
            raise ValueError(f"there are {len(points)} point arrays, but values has "
                             f"{jnp_ndim(values)} dimensions")
        (values,) = promote_dtypes_inexact(values)
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = asarray(fill_value)
            if not can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible "
                                 "with values")
        self.fill_value = fill_value
        # Like JAX, the grid is not checked for being increasing (that needs concrete values).
        check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(asarray(p) for p in points)
        self.values = values

    def __call__(self, xi: Any, method: str | None = None) -> Array:
        """The interpolant at the points `xi` (see `_coordinates`), shaped
        xi.shape[:-1] + values.shape[N:]."""
        method = self.method if method is None else method
        _check_method(method)
        ndim = len(self.grid)
        xi = _coordinates(xi, ndim)
        if xi.shape[-1] != ndim:
            # JAX's message reports shape[1], which is the last axis only for 2-D queries.
            raise ValueError(f"the requested sample points xi have dimension {xi.shape[1]}, "
                             f"but this RegularGridInterpolator has dimension {ndim}")
        batch_shape = xi.shape[:-1]
        xi = xi.reshape(-1, ndim)
        cells, offsets, outside = self._locate(xi.T)
        if method == "linear":
            result = self._linear(cells, offsets)
        else:
            result = self._nearest(cells, offsets)
        if not self.bounds_error and self.fill_value is not None:
            mask = outside.reshape(outside.shape + (1,) * (result.ndim - 1))
            result = where(mask, self.fill_value, result)
        return result.reshape(batch_shape + self.values.shape[ndim:])

    def _locate(self, xi: Array) -> tuple[list[Array], list[Array], Array]:
        """Per axis, the cell i with grid[i] <= x < grid[i + 1] (the first or last cell for
        points outside) and the offset (x - grid[i]) / (grid[i + 1] - grid[i]); and which
        points lie outside the grid."""
        cells, offsets = [], []
        outside = zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid, strict=False):
            i = clip(searchsorted(g, x) - 1, 0, g.size - 2)
            cells.append(i)
            offsets.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return cells, offsets, outside

    def _linear(self, cells: list[Array], offsets: list[Array]) -> Array:
        # The sum over the cell's 2^N corners of value * prod(1 - t or t), in JAX's order.
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(cells))
        total: Array = asarray(0.0)
        for upper in itertools.product((False, True), repeat=len(cells)):
            corner = tuple(i + 1 if up else i for i, up in zip(cells, upper, strict=True))
            weight: Array = asarray(1.0)
            for up, t in zip(upper, offsets, strict=True):
                weight = weight * (t if up else 1 - t)
            total = total + self.values[corner] * weight[trailing]
        return total

    def _nearest(self, cells: list[Array], offsets: list[Array]) -> Array:
        # A point halfway between two grid nodes goes to the lower one.
        nearest = tuple(where(t <= 0.5, i, i + 1)
                        for i, t in zip(cells, offsets, strict=True))
        return self.values[nearest]


def _flatten(interp: RegularGridInterpolator) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    return (interp.grid, interp.values, interp.fill_value), (interp.method, interp.bounds_error)


def _unflatten(aux: tuple[Any, ...], children: Iterable[Any]) -> RegularGridInterpolator:
    # Rebuilt without __init__'s checks, which would reject the placeholder leaves that
    # transformations put into a tree.
    interp = object.__new__(RegularGridInterpolator)
    interp.grid, interp.values, interp.fill_value = children
    interp.method, interp.bounds_error = aux
    return interp


register_pytree_node(RegularGridInterpolator, _flatten, _unflatten)
