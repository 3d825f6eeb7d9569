"""numjax.scipy.stats.bernoulli: the Bernoulli distribution (JAX's `jax.scipy.stats.bernoulli`).

>>> from numjax.scipy.stats import bernoulli
>>> round(float(bernoulli.pmf(1.0, 0.25)), 4)
0.25
"""

from numjax._src.scipy.stats.bernoulli import cdf as cdf
from numjax._src.scipy.stats.bernoulli import logpmf as logpmf
from numjax._src.scipy.stats.bernoulli import pmf as pmf
from numjax._src.scipy.stats.bernoulli import ppf as ppf
