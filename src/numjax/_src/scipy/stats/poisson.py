"""The Poisson distribution: JAX's `jax.scipy.stats.poisson`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.rounding import round as jnp_round
from numjax._src.numpy.ufuncs import exp, floor, logical_or
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.special import gammaincc, gammaln, xlogy
from numjax._src.typing import Array


def logpmf(k: Array, mu: Array, loc: Array = 0) -> Array:
    """log P(X = k) = y log mu - log y! - mu, y = k - loc; -inf for y < 0 or non-integer k.

    >>> logpmf(2.0, 3.0)
    Array(-1.4959226, dtype=float32, weak_type=True)
    """
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    off_support = logical_or(lax.lt(x, lax_const(k, 0)), lax.ne(jnp_round(k), k))
    return where(off_support, -np.inf, log_probs)


def pmf(k: Array, mu: Array, loc: Array = 0) -> Array:
    """P(X = k), exp(logpmf).

    >>> pmf(2.0, 3.0)
    Array(0.22404182, dtype=float32, weak_type=True)
    """
    return exp(logpmf(k, mu, loc))


def cdf(k: Array, mu: Array, loc: Array = 0) -> Array:
    """P(X <= k) = Q(floor(y) + 1, mu), the regularized upper incomplete gamma function.

    >>> cdf(2.0, 3.0)
    Array(0.4231901, dtype=float32, weak_type=True)
    """
    # JAX names this operation "poisson.logpmf" in its errors; so do we.
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    zero = lax_const(k, 0)
    x = lax.sub(k, loc)
    p = gammaincc(floor(1 + x), mu)
    return where(lax.lt(x, zero), zero, p)
