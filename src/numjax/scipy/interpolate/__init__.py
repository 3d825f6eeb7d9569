"""numjax.scipy.interpolate: JAX's `jax.scipy.interpolate`.

>>> import numjax.numpy as jnp
>>> from numjax.scipy.interpolate import RegularGridInterpolator
>>> RegularGridInterpolator((jnp.array([0.0, 2.0]),), jnp.array([1.0, 5.0]))(jnp.array([0.5]))
Array([2.], dtype=float32)
"""

from numjax._src.scipy.interpolate import RegularGridInterpolator as RegularGridInterpolator
