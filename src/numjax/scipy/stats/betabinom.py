"""numjax.scipy.stats.betabinom: the beta-binomial distribution (JAX's `jax.scipy.stats.betabinom`).

>>> from numjax.scipy.stats import betabinom
>>> round(float(betabinom.pmf(0.0, 1.0, 1.0, 1.0)), 4)
0.5
"""

from numjax._src.scipy.stats.betabinom import logpmf as logpmf
from numjax._src.scipy.stats.betabinom import pmf as pmf
