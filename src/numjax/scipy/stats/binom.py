"""numjax.scipy.stats.binom: the binomial distribution (JAX's `jax.scipy.stats.binom`).

>>> from numjax.scipy.stats import binom
>>> round(float(binom.pmf(1.0, 2.0, 0.5)), 4)
0.5
"""

from numjax._src.scipy.stats.binom import logpmf as logpmf
from numjax._src.scipy.stats.binom import pmf as pmf
