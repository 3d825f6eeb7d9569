"""numjax.scipy.stats.norm: the normal distribution (JAX's `jax.scipy.stats.norm`).

>>> from numjax.scipy.stats import norm
>>> float(norm.cdf(0.0))
0.5
"""

from numjax._src.scipy.stats.norm import cdf as cdf
from numjax._src.scipy.stats.norm import isf as isf
from numjax._src.scipy.stats.norm import logcdf as logcdf
from numjax._src.scipy.stats.norm import logpdf as logpdf
from numjax._src.scipy.stats.norm import logsf as logsf
from numjax._src.scipy.stats.norm import pdf as pdf
from numjax._src.scipy.stats.norm import ppf as ppf
from numjax._src.scipy.stats.norm import sf as sf
