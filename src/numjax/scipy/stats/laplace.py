"""numjax.scipy.stats.laplace: the Laplace distribution (JAX's `jax.scipy.stats.laplace`).

>>> from numjax.scipy.stats import laplace
>>> round(float(laplace.pdf(0.0)), 4)
0.5
"""

from numjax._src.scipy.stats.laplace import cdf as cdf
from numjax._src.scipy.stats.laplace import logpdf as logpdf
from numjax._src.scipy.stats.laplace import pdf as pdf
