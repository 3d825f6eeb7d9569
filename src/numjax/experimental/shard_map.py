"""`jax.experimental.shard_map`: per-device programs over a mesh, with collectives.

>>> import numpy as np, numjax, numjax.numpy as jnp
>>> from numjax.sharding import Mesh, PartitionSpec as P
>>> from numjax.experimental.shard_map import shard_map
>>> mesh = Mesh(np.array(numjax.devices()[:1]), ('i',))
>>> shard_map(lambda x: x * 2, mesh, in_specs=P('i'), out_specs=P('i'))(jnp.arange(2.))
Array([0., 2.], dtype=float32)
"""

from numjax._src.api.shard_map import shard_map as shard_map
from numjax._src.api.shard_map_p import shard_map_p as shard_map_p

__all__ = ["shard_map", "shard_map_p"]
