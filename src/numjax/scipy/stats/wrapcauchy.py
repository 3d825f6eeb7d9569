"""numjax.scipy.stats.wrapcauchy: the wrapped Cauchy distribution
(JAX's `jax.scipy.stats.wrapcauchy`).

>>> from numjax.scipy.stats import wrapcauchy
>>> round(float(wrapcauchy.pdf(0.0, 0.5)), 4)
0.4775
"""

from numjax._src.scipy.stats.wrapcauchy import logpdf as logpdf
from numjax._src.scipy.stats.wrapcauchy import pdf as pdf
