"""numjax.scipy.stats.logistic: the logistic distribution (JAX's `jax.scipy.stats.logistic`).

>>> from numjax.scipy.stats import logistic
>>> round(float(logistic.cdf(0.0)), 4)
0.5
"""

from numjax._src.scipy.stats.logistic import cdf as cdf
from numjax._src.scipy.stats.logistic import isf as isf
from numjax._src.scipy.stats.logistic import logpdf as logpdf
from numjax._src.scipy.stats.logistic import pdf as pdf
from numjax._src.scipy.stats.logistic import ppf as ppf
from numjax._src.scipy.stats.logistic import sf as sf
