"""numjax.scipy.stats.gamma: the gamma distribution (JAX's `jax.scipy.stats.gamma`).

>>> from numjax.scipy.stats import gamma
>>> round(float(gamma.pdf(0.0, 1.0)), 4)
1.0
"""

from numjax._src.scipy.stats.gamma import cdf as cdf
from numjax._src.scipy.stats.gamma import logcdf as logcdf
from numjax._src.scipy.stats.gamma import logpdf as logpdf
from numjax._src.scipy.stats.gamma import logsf as logsf
from numjax._src.scipy.stats.gamma import pdf as pdf
from numjax._src.scipy.stats.gamma import sf as sf
