"""The uniform distribution on [loc, loc + scale]: JAX's `jax.scipy.stats.uniform`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.numpy.creation import array
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.selection import select
from numjax._src.numpy.ufuncs import isnan, logical_or
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.typing import Array


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density -log scale inside [loc, loc + scale], -inf outside.

    >>> logpdf(0.5, 0.0, 2.0)
    Array(-0.6931472, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    log_probs = lax.neg(lax.log(scale))
    outside = logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    return where(outside, -np.inf, log_probs)


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(0.5, 0.0, 2.0)
    Array(0.5, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X <= x): 0 below loc, (x - loc)/scale inside, 1 above loc + scale.

    >>> cdf(0.5, 0.0, 2.0)
    Array(0.25, dtype=float32)
    """
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    zero, one = array(0, x.dtype), array(1, x.dtype)
    upper = lax.add(loc, scale)
    conds = [lax.lt(x, loc), lax.gt(x, upper), lax.ge(x, loc) & lax.le(x, upper)]
    return select(conds, [zero, one, lax.div(lax.sub(x, loc), scale)])


def ppf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The quantile loc + scale q; NaN for q outside [0, 1].

    >>> ppf(0.25, 0.0, 2.0)
    Array(0.5, dtype=float32, weak_type=True)
    """
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    invalid = isnan(q) | (q < 0) | (q > 1)
    return where(invalid, np.nan, lax.add(loc, lax.mul(scale, q)))
