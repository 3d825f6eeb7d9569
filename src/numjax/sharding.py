"""`jax.sharding`: how Arrays are laid out on devices (single-device and pmap layouts).

>>> import numjax, numjax.numpy as jnp
>>> isinstance(jnp.ones(2).sharding, numjax.sharding.SingleDeviceSharding)
True
"""

from numjax._src.runtime.sharding import PmapSharding as PmapSharding
from numjax._src.runtime.sharding import Sharding as Sharding
from numjax._src.runtime.sharding import SingleDeviceSharding as SingleDeviceSharding
