"""numjax.scipy.stats.multinomial: the multinomial distribution
(JAX's `jax.scipy.stats.multinomial`).

>>> import numjax.numpy as jnp
>>> from numjax.scipy.stats import multinomial
>>> round(float(multinomial.pmf(jnp.array([1, 1]), 2, jnp.array([0.5, 0.5]))), 4)
0.5
"""

from numjax._src.scipy.stats.multinomial import logpmf as logpmf
from numjax._src.scipy.stats.multinomial import pmf as pmf
