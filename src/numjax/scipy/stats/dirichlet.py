"""numjax.scipy.stats.dirichlet: the Dirichlet distribution (JAX's `jax.scipy.stats.dirichlet`).

>>> import numjax.numpy as jnp
>>> from numjax.scipy.stats import dirichlet
>>> round(float(dirichlet.pdf(jnp.array([0.5, 0.5]), jnp.ones(2))), 4)
1.0
"""

from numjax._src.scipy.stats.dirichlet import logpdf as logpdf
from numjax._src.scipy.stats.dirichlet import pdf as pdf
