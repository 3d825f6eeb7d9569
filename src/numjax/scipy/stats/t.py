"""numjax.scipy.stats.t: Student's t distribution (JAX's `jax.scipy.stats.t`).

>>> from numjax.scipy.stats import t
>>> round(float(t.pdf(0.0, 1.0)), 4)
0.3183
"""

from numjax._src.scipy.stats.t import logpdf as logpdf
from numjax._src.scipy.stats.t import pdf as pdf
