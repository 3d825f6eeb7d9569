"""numjax.scipy.cluster.vq: JAX's `jax.scipy.cluster.vq`.

>>> import numjax.numpy as jnp
>>> from numjax.scipy.cluster.vq import vq
>>> vq(jnp.array([0.0, 2.9]), jnp.array([0.0, 3.0]))[0]
Array([0, 1], dtype=int32)
"""

from numjax._src.scipy.cluster import vq as vq
