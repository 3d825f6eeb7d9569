"""numjax.scipy.stats.pareto: the Pareto distribution (JAX's `jax.scipy.stats.pareto`).

>>> from numjax.scipy.stats import pareto
>>> round(float(pareto.pdf(1.0, 2.0)), 4)
2.0
"""

from numjax._src.scipy.stats.pareto import logpdf as logpdf
from numjax._src.scipy.stats.pareto import pdf as pdf
