"""`jax.sharding`: how Arrays are laid out on devices: one device, pmap's stacked layout, and
tiles on a named `Mesh` or a positional device array.

>>> import numjax, numjax.numpy as jnp
>>> isinstance(jnp.ones(2).sharding, numjax.sharding.SingleDeviceSharding)
True
"""

from numjax._src.runtime.gspmd_sharding import GSPMDSharding as GSPMDSharding
from numjax._src.runtime.mesh import Mesh as Mesh
from numjax._src.runtime.mesh import PartitionSpec as PartitionSpec
from numjax._src.runtime.named_sharding import NamedSharding as NamedSharding
from numjax._src.runtime.named_sharding import PositionalSharding as PositionalSharding
from numjax._src.runtime.sharding import PmapSharding as PmapSharding
from numjax._src.runtime.sharding import Sharding as Sharding
from numjax._src.runtime.sharding import SingleDeviceSharding as SingleDeviceSharding
