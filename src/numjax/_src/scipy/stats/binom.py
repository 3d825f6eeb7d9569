"""The binomial distribution: JAX's `jax.scipy.stats.binom`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.special import gammaln, xlog1py, xlogy
from numjax._src.typing import Array


def logpmf(k: Array, n: Array, p: Array, loc: Array = 0) -> Array:
    """log P(X = k) = log C(n, y) + y log p + (n - y) log(1 - p), y = k - loc;
    -inf off loc <= k < loc + n + 1.

    >>> logpmf(2.0, 5.0, 0.3)
    Array(-1.1753855, dtype=float32, weak_type=True)
    """
    k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    log_comb = lax.sub(gammaln(n + 1), lax.add(gammaln(y + 1), gammaln(n - y + 1)))
    log_linear = lax.add(xlogy(y, p), xlog1py(lax.sub(n, y), lax.neg(p)))
    log_probs = lax.add(log_comb, log_linear)
    in_support = lax.ge(k, loc) & lax.lt(k, loc + n + 1)
    return where(in_support, log_probs, -np.inf)


def pmf(k: Array, n: Array, p: Array, loc: Array = 0) -> Array:
    """P(X = k), exp(logpmf).

    >>> pmf(2.0, 5.0, 0.3)
    Array(0.30869997, dtype=float32, weak_type=True)
    """
    return lax.exp(logpmf(k, n, p, loc))
