"""`jax.experimental.pjit`: in JAX 0.4.30 `pjit` is `jit` (one implementation, one primitive).

>>> import numjax.numpy as jnp
>>> from numjax.experimental.pjit import pjit
>>> pjit(lambda x: x + 1)(jnp.arange(2))
Array([1, 2], dtype=int32)
"""

from numjax._src.api.jit import jit as pjit
from numjax._src.api.pjit import pjit_p as pjit_p

__all__ = ["pjit", "pjit_p"]
