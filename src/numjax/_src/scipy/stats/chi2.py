"""The chi-squared distribution: JAX's `jax.scipy.stats.chi2`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.special import gammainc, gammaincc
from numjax._src.typing import Array


def logpdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density: (df/2 - 1) log y - y/2 - lgamma(df/2) - (df/2) log 2 - log scale,
    y = (x - loc) / scale; -inf below loc.

    >>> logpdf(2.0, 3.0)
    Array(-1.5723649, dtype=float32, weak_type=True)
    """
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    one, two = lax_const(x, 1), lax_const(x, 2)
    y = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(half_df, one), lax.log(y)), lax.div(y, two))
    log_normalizer = lax.add(lax.lgamma(half_df), lax.div(lax.mul(lax.log(two), df), two))
    log_probs = lax.add(lax.sub(lax.neg(log_normalizer), lax.log(scale)), kernel)
    return where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(2.0, 3.0)
    Array(0.20755374, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, df, loc, scale))


def _half_standardized(x: Array, loc: Array, scale: Array) -> Array:
    # (x - loc) / (2 scale), clamped to [0, inf): the incomplete gamma function's argument
    y = lax.div(lax.sub(x, loc), lax.mul(scale, lax_const(scale, 2)))
    return lax.clamp(lax_const(x, 0), y, lax_const(x, np.inf))


def cdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X <= x) = P(df/2, y/2), the regularized lower incomplete gamma function.

    >>> cdf(2.0, 3.0)
    Array(0.4275933, dtype=float32, weak_type=True)
    """
    x, df, loc, scale = promote_args_inexact("chi2.cdf", x, df, loc, scale)
    return gammainc(lax.div(df, lax_const(scale, 2)), _half_standardized(x, loc, scale))


def logcdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log of `cdf`.

    >>> logcdf(2.0, 3.0)
    Array(-0.8495828, dtype=float32, weak_type=True)
    """
    return lax.log(cdf(x, df, loc, scale))


def sf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X > x) = Q(df/2, y/2), the regularized upper incomplete gamma function.

    >>> sf(2.0, 3.0)
    Array(0.5724067, dtype=float32, weak_type=True)
    """
    x, df, loc, scale = promote_args_inexact("chi2.sf", x, df, loc, scale)
    return gammaincc(lax.div(df, lax_const(scale, 2)), _half_standardized(x, loc, scale))


def logsf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log of `sf`.

    >>> logsf(2.0, 3.0)
    Array(-0.5579055, dtype=float32, weak_type=True)
    """
    return lax.log(sf(x, df, loc, scale))
