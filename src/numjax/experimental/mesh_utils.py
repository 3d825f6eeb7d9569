"""`jax.experimental.mesh_utils`: device arrays for `numjax.sharding.Mesh`.

>>> from numjax.experimental import mesh_utils
>>> mesh_utils.create_device_mesh((1,)).shape
(1,)
"""

from numjax._src.runtime.mesh import create_device_mesh as create_device_mesh

__all__ = ["create_device_mesh"]
