"""numjax.scipy.cluster: JAX's `jax.scipy.cluster` (the `vq` submodule).

>>> import numjax.numpy as jnp
>>> from numjax.scipy import cluster
>>> cluster.vq.vq(jnp.array([0.0, 2.9]), jnp.array([0.0, 3.0]))[0]
Array([0, 1], dtype=int32)
"""

from numjax.scipy.cluster import vq as vq
