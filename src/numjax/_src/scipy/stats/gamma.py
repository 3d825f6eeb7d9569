"""The gamma distribution: JAX's `jax.scipy.stats.gamma`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.special import gammainc, gammaincc, gammaln, xlogy
from numjax._src.typing import Array


def logpdf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density (a - 1) log y - y - gammaln(a) - log scale, y = (x - loc)/scale;
    -inf below loc.

    >>> logpdf(2.0, 3.0)
    Array(-1.3068528, dtype=float32, weak_type=True)
    """
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    log_kernel = lax.sub(xlogy(lax.sub(a, lax_const(x, 1)), y), y)
    log_normalizer = lax.add(gammaln(a), lax.log(scale))
    log_probs = lax.sub(log_kernel, log_normalizer)
    return where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(2.0, 3.0)
    Array(0.27067056, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X <= x) = P(a, y), the regularized lower incomplete gamma function.

    >>> cdf(2.0, 3.0)
    Array(0.32332358, dtype=float32, weak_type=True)
    """
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    y = lax.clamp(lax_const(x, 0), lax.div(lax.sub(x, loc), scale), lax_const(x, np.inf))
    return gammainc(a, y)


def logcdf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log of `cdf`.

    >>> logcdf(2.0, 3.0)
    Array(-1.1291016, dtype=float32, weak_type=True)
    """
    return lax.log(cdf(x, a, loc, scale))


def sf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X > x) = Q(a, y), the regularized upper incomplete gamma function (not clamped
    below loc, as in JAX).

    >>> sf(2.0, 3.0)
    Array(0.6766764, dtype=float32, weak_type=True)
    """
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    return gammaincc(a, lax.div(lax.sub(x, loc), scale))


def logsf(x: Array, a: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log of `sf`.

    >>> logsf(2.0, 3.0)
    Array(-0.39056215, dtype=float32, weak_type=True)
    """
    return lax.log(sf(x, a, loc, scale))
