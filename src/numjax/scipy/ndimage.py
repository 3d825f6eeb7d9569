"""numjax.scipy.ndimage: `map_coordinates` (JAX's `jax.scipy.ndimage`).

>>> import numjax.numpy as jnp
>>> from numjax.scipy import ndimage
>>> ndimage.map_coordinates(jnp.array([0.0, 10.0]), [jnp.array([0.25])], order=1)
Array([2.5], dtype=float32)
"""

from numjax._src.scipy.ndimage import map_coordinates as map_coordinates
