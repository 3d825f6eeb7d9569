"""numjax.scipy.stats.vonmises: the von Mises distribution (JAX's `jax.scipy.stats.vonmises`).

>>> from numjax.scipy.stats import vonmises
>>> round(float(vonmises.pdf(0.0, 1.0)), 4)
0.3417
"""

from numjax._src.scipy.stats.vonmises import logpdf as logpdf
from numjax._src.scipy.stats.vonmises import pdf as pdf
