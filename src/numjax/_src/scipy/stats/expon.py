"""The exponential distribution: JAX's `jax.scipy.stats.expon`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.typing import Array


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density -(x - loc)/scale - log scale; -inf below loc.

    >>> logpdf(2.0)
    Array(-2., dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    linear = lax.div(lax.sub(x, loc), scale)
    log_probs = lax.neg(lax.add(linear, lax.log(scale)))
    return where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(2.0)
    Array(0.13533528, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, loc, scale))
