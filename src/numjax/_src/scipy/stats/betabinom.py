"""The beta-binomial distribution: JAX's `jax.scipy.stats.betabinom`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.ufuncs import logical_or
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.special import betaln
from numjax._src.typing import Array


def logpmf(k: Array, n: Array, a: Array, b: Array, loc: Array = 0) -> Array:
    """log P(X = k) = log C(n, y) + log B(y + a, n - y + b) - log B(a, b), y = floor(k) - loc.

    -inf off 0 <= y <= n; NaN for n < 1, a < 0 or b < 0.

    >>> logpmf(2.0, 5.0, 2.0, 3.0)
    Array(-1.4350843, dtype=float32, weak_type=True)
    """
    k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = lax_const(y, 1), lax_const(y, 0)
    # log C(n, y) = -log(n + 1) - log B(n - y + 1, y + 1)
    log_comb = lax.neg(lax.add(lax.log1p(n), betaln(lax.add(lax.sub(n, y), one),
                                                     lax.add(y, one))))
    log_beta_ratio = lax.sub(betaln(lax.add(y, a), lax.add(lax.sub(n, y), b)), betaln(a, b))
    log_probs = lax.add(log_comb, log_beta_ratio)
    outside = logical_or(lax.lt(y, lax.neg(loc)), lax.gt(y, lax.sub(n, loc)))
    log_probs = where(outside, -np.inf, log_probs)
    bad_params = logical_or(logical_or(lax.lt(n, one), lax.lt(a, zero)),
                                lax.lt(b, zero))
    return where(bad_params, np.nan, log_probs)


def pmf(k: Array, n: Array, a: Array, b: Array, loc: Array = 0) -> Array:
    """P(X = k), exp(logpmf).

    >>> pmf(2.0, 5.0, 2.0, 3.0)
    Array(0.23809527, dtype=float32, weak_type=True)
    """
    return lax.exp(logpmf(k, n, a, b, loc))
