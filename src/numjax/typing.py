"""numjax.typing: the type aliases of JAX's `jax.typing`.

`ArrayLike`: what numjax functions accept as an array (numjax arrays, NumPy arrays and
scalars, Python scalars). `DTypeLike`: what they accept as a dtype (names, scalar types,
`np.dtype`s, objects with a `dtype` attribute).

>>> import numjax.numpy as jnp
>>> from numjax.typing import ArrayLike
>>> def double(x: ArrayLike) -> jnp.ndarray:
...     return 2 * jnp.asarray(x)
>>> double(3)
Array(6, dtype=int32, weak_type=True)
"""

from __future__ import annotations

from typing import Any, Protocol, Union

import numpy as np

from numjax._src.runtime.array import Array


class SupportsDType(Protocol):
    """Anything with a `dtype` attribute."""

    @property
    def dtype(self) -> np.dtype: ...


ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]  # noqa: UP007
DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]  # noqa: UP007

__all__ = ["ArrayLike", "DTypeLike"]
