"""The Pareto distribution: JAX's `jax.scipy.stats.pareto`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.typing import Array


def logpdf(x: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density log(b / scale) - (b + 1) log((x - loc)/scale); -inf below loc + scale.

    >>> logpdf(2.0, 3.0)
    Array(-1.6739764, dtype=float32, weak_type=True)
    """
    x, b, loc, scale = promote_args_inexact("pareto.logpdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    log_normalizer = lax.log(lax.div(scale, b))
    log_probs = lax.neg(lax.add(log_normalizer, lax.mul(lax.add(b, lax_const(x, 1)), lax.log(z))))
    return where(lax.lt(x, lax.add(loc, scale)), -np.inf, log_probs)


def pdf(x: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(2.0, 3.0)
    Array(0.1875, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, b, loc, scale))
