"""`ravel_pytree`: a pytree of arrays as one flat vector, and the function that undoes it."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.lax import lax
from numjax._src.numpy.creation import array
from numjax._src.numpy.manipulation import split
from numjax._src.numpy.scalar_types import float32
from numjax._src.numpy.shape import concatenate, ravel
from numjax._src.tree_util import PyTreeDef, tree_unflatten, user_tree_flatten
from numjax._src.typing import Array


# weakref_slot: jit keys its traces on a weak reference to the function, as JAX does.
@dataclasses.dataclass(frozen=True, slots=True, weakref_slot=True)
class _Unravel:
    """Splits a flat vector back into the leaves' shapes and dtypes and rebuilds the tree.
    Hashable and comparable, so it can be a static argument of `jit` (JAX's HashablePartial).
    """

    treedef: PyTreeDef
    ends: tuple[int, ...]  # cumulative leaf sizes
    shapes: tuple[tuple[int, ...], ...]
    from_dtypes: tuple[np.dtype, ...]
    to_dtype: np.dtype

    def __call__(self, flat: Array) -> Any:
        mixed = any(dt != self.to_dtype for dt in self.from_dtypes)
        if mixed and dtypes.dtype(flat) != self.to_dtype:
            raise TypeError(f"unravel function given array of dtype {dtypes.dtype(flat)}, "
                            f"but expected dtype {self.to_dtype}")
        chunks = split(flat, list(self.ends[:-1])) if self.shapes else []
        leaves = []
        for chunk, shape, dt in zip(chunks, self.shapes, self.from_dtypes, strict=True):
            size = int(np.prod(shape, dtype=np.int64))
            if chunk.size != size:
                raise TypeError(f"cannot reshape array of shape {chunk.shape} (size {chunk.size}) "
                                f"into shape {shape} (size {size})")
            leaf = chunk.reshape(shape)
            if mixed:
                with warnings.catch_warnings():  # complex -> real drops the imaginary part
                    warnings.simplefilter("ignore")
                    leaf = lax.convert_element_type(leaf, dt)
            leaves.append(leaf)
        return tree_unflatten(self.treedef, leaves)


def ravel_pytree(pytree: Any) -> tuple[Array, Any]:
    """Concatenate a pytree's leaves, raveled and promoted to their common dtype, into one
    1-D array; also return `unravel(flat) -> pytree`, which restores shapes and dtypes.

    >>> import numjax.numpy as jnp
    >>> flat, unravel = ravel_pytree({"a": jnp.ones(2), "b": jnp.arange(2)})
    >>> flat
    Array([1., 1., 0., 1.], dtype=float32)
    >>> unravel(flat)["b"]
    Array([0, 1], dtype=int32)
    """
    leaves, treedef = user_tree_flatten(pytree)
    if not leaves:
        return array([], float32), _Unravel(treedef, (), (), (), np.dtype(np.float32))
    from_dtypes = tuple(np.dtype(dtypes.dtype(leaf, canonicalize=True)) for leaf in leaves)
    to_dtype = np.dtype(dtypes.result_type(*from_dtypes))
    shapes = tuple(tuple(np.shape(leaf)) for leaf in leaves)
    ends = tuple(int(e) for e in np.cumsum([int(np.prod(s, dtype=np.int64)) for s in shapes]))
    flat = concatenate([ravel(lax.convert_element_type(leaf, to_dtype))
                            for leaf in leaves])
    return flat, _Unravel(treedef, ends, shapes, from_dtypes, to_dtype)
