"""numjax.scipy.optimize: JAX's `jax.scipy.optimize` (unconstrained minimization by BFGS).

>>> import numjax.numpy as jnp
>>> from numjax.scipy.optimize import minimize
>>> res = minimize(lambda x: jnp.sum((x - 1.0) ** 2), jnp.zeros(3), method="BFGS")
>>> res.x
Array([1., 1., 1.], dtype=float32)
"""

from numjax._src.scipy.optimize.minimize import OptimizeResults as OptimizeResults
from numjax._src.scipy.optimize.minimize import minimize as minimize
