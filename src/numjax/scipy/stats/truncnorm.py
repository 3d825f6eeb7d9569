"""numjax.scipy.stats.truncnorm: the truncated normal distribution
(JAX's `jax.scipy.stats.truncnorm`).

>>> from numjax.scipy.stats import truncnorm
>>> round(float(truncnorm.cdf(0.0, -1.0, 1.0)), 4)
0.5
"""

from numjax._src.scipy.stats.truncnorm import cdf as cdf
from numjax._src.scipy.stats.truncnorm import logcdf as logcdf
from numjax._src.scipy.stats.truncnorm import logpdf as logpdf
from numjax._src.scipy.stats.truncnorm import logsf as logsf
from numjax._src.scipy.stats.truncnorm import pdf as pdf
from numjax._src.scipy.stats.truncnorm import sf as sf
