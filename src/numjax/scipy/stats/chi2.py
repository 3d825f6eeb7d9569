"""numjax.scipy.stats.chi2: the chi-squared distribution (JAX's `jax.scipy.stats.chi2`).

>>> from numjax.scipy.stats import chi2
>>> round(float(chi2.pdf(2.0, 2.0)), 4)
0.1839
"""

from numjax._src.scipy.stats.chi2 import cdf as cdf
from numjax._src.scipy.stats.chi2 import logcdf as logcdf
from numjax._src.scipy.stats.chi2 import logpdf as logpdf
from numjax._src.scipy.stats.chi2 import logsf as logsf
from numjax._src.scipy.stats.chi2 import pdf as pdf
from numjax._src.scipy.stats.chi2 import sf as sf
