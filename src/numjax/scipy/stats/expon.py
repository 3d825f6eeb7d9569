"""numjax.scipy.stats.expon: the exponential distribution (JAX's `jax.scipy.stats.expon`).

>>> from numjax.scipy.stats import expon
>>> round(float(expon.pdf(0.0)), 4)
1.0
"""

from numjax._src.scipy.stats.expon import logpdf as logpdf
from numjax._src.scipy.stats.expon import pdf as pdf
