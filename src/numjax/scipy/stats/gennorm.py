"""numjax.scipy.stats.gennorm: the generalized normal distribution
(JAX's `jax.scipy.stats.gennorm`).

>>> from numjax.scipy.stats import gennorm
>>> round(float(gennorm.cdf(0.0, 2.0)), 4)
0.5
"""

from numjax._src.scipy.stats.gennorm import cdf as cdf
from numjax._src.scipy.stats.gennorm import logpdf as logpdf
from numjax._src.scipy.stats.gennorm import pdf as pdf
