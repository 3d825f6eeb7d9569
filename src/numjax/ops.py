"""numjax.ops: segment reductions (JAX's `jax.ops`).

>>> import numjax.numpy as jnp
>>> from numjax import ops
>>> ops.segment_sum(jnp.array([1., 2., 3.]), jnp.array([0, 1, 0]))
Array([4., 2.], dtype=float32)
"""

from numjax._src.ops import segment_max as segment_max
from numjax._src.ops import segment_min as segment_min
from numjax._src.ops import segment_prod as segment_prod
from numjax._src.ops import segment_sum as segment_sum
