"""numjax.debug: printing and callbacks that work inside jit, vmap, grad and control flow, and
views of how arrays are sharded.

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
from numjax._src.api.sharding_debug import inspect_array_sharding as inspect_array_sharding
from numjax._src.api.sharding_debug import visualize_array_sharding as visualize_array_sharding
from numjax._src.api.sharding_debug import visualize_sharding as visualize_sharding

__all__ = ["callback", "inspect_array_sharding", "print", "visualize_array_sharding",
           "visualize_sharding"]
