"""numjax.scipy.integrate: JAX's `jax.scipy.integrate`.

>>> import numjax.numpy as jnp
>>> from numjax.scipy.integrate import trapezoid
>>> trapezoid(jnp.array([0.0, 1.0, 2.0]), dx=0.5)
Array(1., dtype=float32)
"""

from numjax._src.scipy.integrate import trapezoid as trapezoid
