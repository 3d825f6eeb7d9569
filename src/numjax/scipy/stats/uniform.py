"""numjax.scipy.stats.uniform: the uniform distribution (JAX's `jax.scipy.stats.uniform`).

>>> from numjax.scipy.stats import uniform
>>> round(float(uniform.pdf(0.5)), 4)
1.0
"""

from numjax._src.scipy.stats.uniform import cdf as cdf
from numjax._src.scipy.stats.uniform import logpdf as logpdf
from numjax._src.scipy.stats.uniform import pdf as pdf
from numjax._src.scipy.stats.uniform import ppf as ppf
