"""The normal distribution truncated to [a, b] (in standard units): JAX's
`jax.scipy.stats.truncnorm`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.nn.functions import logsumexp
from numjax._src.numpy.creation import array, ones_like
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.selection import select
from numjax._src.numpy.shape import broadcast_arrays
from numjax._src.numpy.ufuncs import exp, log1p
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.ndtr import log_ndtr, ndtr
from numjax._src.scipy.stats import norm
from numjax._src.typing import Array


def _log_diff(x: Array, y: Array) -> Array:
    """log(exp(x) - exp(y)) for x >= y, without leaving log space."""
    signs = array([ones_like(x), -ones_like(y)])
    return logsumexp(array([x, y]), b=signs, axis=0)


def _log_gauss_mass(a: Array, b: Array) -> Array:
    """log(Phi(b) - Phi(a)) for a <= b, accurate in either tail and in the middle."""
    a, b = broadcast_arrays(array(a), array(b))
    left = b <= 0  # both in the lower tail: subtract log CDFs
    right = a > 0  # both in the upper tail: the mirror image
    central = ~(left | right)  # straddling 0: one minus the two tails
    left_mass = _log_diff(log_ndtr(b), log_ndtr(a))
    right_mass = _log_diff(log_ndtr(-a), log_ndtr(-b))
    central_mass = log1p(-ndtr(a) - ndtr(-b))
    return select([left, right, central], [left_mass, right_mass, central_mass])


def logpdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density: norm.logpdf(x, loc, scale) - log(Phi(b) - Phi(a)) inside
    [loc + a scale, loc + b scale], -inf outside, NaN when a >= b.

    >>> logpdf(0.5, -1.0, 2.0)
    Array(-0.8437723, dtype=float32)
    """
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
    val = lax.sub(norm.logpdf(x, loc, scale), _log_gauss_mass(a, b))
    z = lax.div(lax.sub(x, loc), scale)
    val = where((z < a) | (z > b), -np.inf, val)
    return where(a >= b, np.nan, val)


def pdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(0.5, -1.0, 2.0)
    Array(0.43008503, dtype=float32)
    """
    return lax.exp(logpdf(x, a, b, loc, scale))


def logsf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log P(X > x), the log CDF of the mirrored distribution at -x.

    >>> logsf(0.5, -1.0, 2.0)
    Array(-1.0523407, dtype=float32)
    """
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


def sf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X > x), exp(logsf).

    >>> sf(0.5, -1.0, 2.0)
    Array(0.3491196, dtype=float32)
    """
    return lax.exp(logsf(x, a, b, loc, scale))


def logcdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log P(X <= x): 0 above b, -inf below a, NaN when a >= b; near 1 it is computed as
    log1p(-sf) for accuracy.

    >>> logcdf(0.5, -1.0, 2.0)
    Array(-0.42942932, dtype=float32)
    """
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = broadcast_arrays(x, a, b)
    x = lax.div(lax.sub(x, loc), scale)
    log_total = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, x) - log_total
    log_sf = _log_gauss_mass(x, b) - log_total
    out = select([x >= b, x <= a, log_cdf > -0.1, x > a],
                     [0, -np.inf, log1p(-exp(log_sf)), log_cdf])
    return where(a >= b, np.nan, out)


def cdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X <= x), exp(logcdf).

    >>> cdf(0.5, -1.0, 2.0)
    Array(0.6508804, dtype=float32)
    """
    return lax.exp(logcdf(x, a, b, loc, scale))
