"""numjax.scipy.stats.nbinom: the negative binomial distribution (JAX's `jax.scipy.stats.nbinom`).

>>> from numjax.scipy.stats import nbinom
>>> round(float(nbinom.pmf(0.0, 1.0, 0.5)), 4)
0.5
"""

from numjax._src.scipy.stats.nbinom import logpmf as logpmf
from numjax._src.scipy.stats.nbinom import pmf as pmf
