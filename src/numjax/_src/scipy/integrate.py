"""`jax.scipy.integrate`: the composite trapezoid rule."""

from __future__ import annotations

from functools import partial

from numjax._src.api.jit import jit
from numjax._src.numpy.statistics import trapezoid as jnp_trapezoid
from numjax._src.typing import Array


# Jitted as JAX's is: a non-array argument fails with jit's TypeError, and `axis` is static.
@partial(jit, static_argnames=("axis",))
def trapezoid(y: Array, x: Array | None = None, dx: Array = 1.0, axis: int = -1) -> Array:
    """The integral of samples `y` along `axis` by the trapezoid rule, at sample points `x`
    (broadcast against y) or, without x, at spacing `dx`; `jnp.trapezoid` under jit.

    >>> import numjax.numpy as jnp
    >>> trapezoid(jnp.array([1, 2, 3, 2, 3, 2, 1]))
    Array(13., dtype=float32)
    >>> trapezoid(jnp.array([1, 2, 3, 2, 3, 2, 1]), jnp.array([0, 2, 5, 7, 10, 15, 20]))
    Array(43., dtype=float32)
    """
    return jnp_trapezoid(y, x, dx, axis)
