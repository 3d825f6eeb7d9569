"""numjax.scipy.stats: probability distributions (JAX's `jax.scipy.stats`); only `norm` so far."""

from numjax.scipy.stats import norm as norm
