"""numjax.scipy.stats.cauchy: the Cauchy distribution (JAX's `jax.scipy.stats.cauchy`).

>>> from numjax.scipy.stats import cauchy
>>> round(float(cauchy.cdf(0.0)), 4)
0.5
"""

from numjax._src.scipy.stats.cauchy import cdf as cdf
from numjax._src.scipy.stats.cauchy import isf as isf
from numjax._src.scipy.stats.cauchy import logcdf as logcdf
from numjax._src.scipy.stats.cauchy import logpdf as logpdf
from numjax._src.scipy.stats.cauchy import logsf as logsf
from numjax._src.scipy.stats.cauchy import pdf as pdf
from numjax._src.scipy.stats.cauchy import ppf as ppf
from numjax._src.scipy.stats.cauchy import sf as sf
