"""The geometric distribution on {1, 2, ...} + loc: JAX's `jax.scipy.stats.geom`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.ufuncs import exp
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.special import xlog1py
from numjax._src.typing import Array


def logpmf(k: Array, p: Array, loc: Array = 0) -> Array:
    """log P(X = k) = (k - loc - 1) log(1 - p) + log p; -inf for k - loc <= 0.

    >>> logpmf(3.0, 0.25)
    Array(-1.9616585, dtype=float32, weak_type=True)
    """
    k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
    x = lax.sub(k, loc)
    log_probs = xlog1py(lax.sub(x, lax_const(k, 1)), -p) + lax.log(p)
    return where(lax.le(x, lax_const(k, 0)), -np.inf, log_probs)


def pmf(k: Array, p: Array, loc: Array = 0) -> Array:
    """P(X = k), exp(logpmf).

    >>> pmf(3.0, 0.25)
    Array(0.140625, dtype=float32, weak_type=True)
    """
    return exp(logpmf(k, p, loc))
