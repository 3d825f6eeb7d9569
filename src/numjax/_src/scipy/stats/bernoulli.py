"""The Bernoulli distribution on {loc, loc + 1}: JAX's `jax.scipy.stats.bernoulli`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.selection import select
from numjax._src.numpy.ufuncs import exp, isnan, logical_and, logical_or
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.special import xlog1py, xlogy
from numjax._src.typing import Array


def logpmf(k: Array, p: Array, loc: Array = 0) -> Array:
    """log P(X = k): log p at k - loc = 1, log(1 - p) at 0, -inf off {0, 1}.

    >>> logpmf(1.0, 0.25)
    Array(-1.3862944, dtype=float32, weak_type=True)
    """
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    x = lax.sub(k, loc)
    # x log p + (1 - x) log(1 - p), with 0 log 0 = 0 so p = 0 or 1 stays finite
    log_probs = xlogy(x, p) + xlog1py(lax.sub(lax_const(k, 1), x), -p)
    off_support = logical_or(lax.lt(x, lax_const(k, 0)), lax.gt(x, lax_const(k, 1)))
    return where(off_support, -np.inf, log_probs)


def pmf(k: Array, p: Array, loc: Array = 0) -> Array:
    """P(X = k), exp(logpmf).

    >>> pmf(0.0, 0.25)
    Array(0.75, dtype=float32, weak_type=True)
    """
    return exp(logpmf(k, p, loc))


def cdf(k: Array, p: Array) -> Array:
    """P(X <= k): 0 below 0, 1 - p on [0, 1), 1 from 1 on; NaN for p outside [0, 1].

    >>> cdf(0.5, 0.25)
    Array(0.75, dtype=float32, weak_type=True)
    """
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    zero, one = lax_const(k, 0), lax_const(k, 1)
    invalid = isnan(k) | isnan(p) | (p < zero) | (p > one)
    below = lax.lt(k, zero)
    middle = logical_and(lax.ge(k, zero), lax.lt(k, one))
    return select([invalid, below, middle, lax.ge(k, one)], [np.nan, zero, one - p, one])


def ppf(q: Array, p: Array) -> Array:
    """The quantile: 0 while q <= 1 - p, else 1; NaN for q or p outside [0, 1].

    >>> ppf(0.9, 0.25)
    Array(1., dtype=float32, weak_type=True)
    """
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    zero, one = lax_const(q, 0), lax_const(q, 1)
    invalid = isnan(q) | isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one)
    return where(invalid, np.nan, where(lax.le(q, one - p), zero, one))
