"""numjax.scipy.spatial.transform: JAX's `jax.scipy.spatial.transform` (3-D rotations).

>>> from numjax.scipy.spatial.transform import Rotation
>>> Rotation.from_rotvec([0.0, 0.0, 0.5]).magnitude()
Array(0.5, dtype=float32)
"""

from numjax._src.scipy.spatial_transform import Rotation as Rotation
from numjax._src.scipy.spatial_transform import Slerp as Slerp
