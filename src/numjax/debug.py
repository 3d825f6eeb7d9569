"""numjax.debug: printing and callbacks that work inside jit, vmap, grad and control flow.

>>> import numjax, numjax.numpy as jnp
>>> @numjax.jit
... def f(x):
...     numjax.debug.print("x is {}", x)
...     return x * 2
>>> f(jnp.arange(2))
x is [0 1]
Array([0, 2], dtype=int32)
"""

from numjax._src.api.callbacks import debug_callback as callback
from numjax._src.api.callbacks import debug_print as print

__all__ = ["callback", "print"]
