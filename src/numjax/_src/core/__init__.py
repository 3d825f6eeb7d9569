"""core: avals, primitives, traces, jaxprs.

`ShapedArray` is also named here, where libraries reaching into JAX's private `jax._src.core`
find it.
"""

from numjax._src.core.avals import ShapedArray as ShapedArray
