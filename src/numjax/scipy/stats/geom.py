"""numjax.scipy.stats.geom: the geometric distribution (JAX's `jax.scipy.stats.geom`).

>>> from numjax.scipy.stats import geom
>>> round(float(geom.pmf(1.0, 0.5)), 4)
0.5
"""

from numjax._src.scipy.stats.geom import logpmf as logpmf
from numjax._src.scipy.stats.geom import pmf as pmf
