"""The negative binomial distribution: JAX's `jax.scipy.stats.nbinom`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.special import gammaln, xlogy
from numjax._src.typing import Array


def logpmf(k: Array, n: Array, p: Array, loc: Array = 0) -> Array:
    """log P(X = k) = log C(y + n - 1, y) + n log p + y log(1 - p), y = k - loc;
    -inf below loc.

    >>> logpmf(2.0, 3.0, 0.4)
    Array(-1.9787636, dtype=float32, weak_type=True)
    """
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    one = lax_const(k, 1)
    y = lax.sub(k, loc)
    log_comb = lax.sub(lax.sub(gammaln(lax.add(y, n)), gammaln(n)), gammaln(lax.add(y, one)))
    log_linear = lax.add(xlogy(n, p), xlogy(y, lax.sub(one, p)))
    log_probs = lax.add(log_comb, log_linear)
    return where(lax.lt(k, loc), -np.inf, log_probs)


def pmf(k: Array, n: Array, p: Array, loc: Array = 0) -> Array:
    """P(X = k), exp(logpmf).

    >>> pmf(2.0, 3.0, 0.4)
    Array(0.13824005, dtype=float32, weak_type=True)
    """
    return lax.exp(logpmf(k, n, p, loc))
