"""numjax.scipy.stats.beta: the beta distribution (JAX's `jax.scipy.stats.beta`).

>>> from numjax.scipy.stats import beta
>>> round(float(beta.cdf(0.5, 2.0, 2.0)), 4)
0.5
"""

from numjax._src.scipy.stats.beta import cdf as cdf
from numjax._src.scipy.stats.beta import logcdf as logcdf
from numjax._src.scipy.stats.beta import logpdf as logpdf
from numjax._src.scipy.stats.beta import logsf as logsf
from numjax._src.scipy.stats.beta import pdf as pdf
from numjax._src.scipy.stats.beta import sf as sf
