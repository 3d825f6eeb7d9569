"""numjax.scipy.stats.poisson: the Poisson distribution (JAX's `jax.scipy.stats.poisson`).

>>> from numjax.scipy.stats import poisson
>>> round(float(poisson.pmf(0.0, 1.0)), 4)
0.3679
"""

from numjax._src.scipy.stats.poisson import cdf as cdf
from numjax._src.scipy.stats.poisson import logpmf as logpmf
from numjax._src.scipy.stats.poisson import pmf as pmf
