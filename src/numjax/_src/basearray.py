"""JAX's module path for the Array type (`jax._src.basearray`).

Libraries name it in annotations evaluated at definition time (optax's backtracking line
search writes `jax._src.basearray.Array` in a nested function's signature) without importing
the module, so it is loaded with the package, as JAX loads it.

>>> import numjax
>>> numjax._src.basearray.Array is numjax.Array
True
"""

from __future__ import annotations

from numjax._src.runtime.array import Array as Array
from numjax._src.runtime.sharding import Shard as Shard
from numjax._src.typing import ArrayLike as ArrayLike
