"""numjax.scipy.stats.multivariate_normal: the multivariate normal distribution
(JAX's `jax.scipy.stats.multivariate_normal`).

>>> import numjax.numpy as jnp
>>> from numjax.scipy.stats import multivariate_normal
>>> round(float(multivariate_normal.logpdf(jnp.zeros(2), jnp.zeros(2), 1.0)), 4)
-1.8379
"""

from numjax._src.scipy.stats.multivariate_normal import logpdf as logpdf
from numjax._src.scipy.stats.multivariate_normal import pdf as pdf
