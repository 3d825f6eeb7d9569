"""The normal distribution N(loc, scale^2): JAX's `jax.scipy.stats.norm`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.ndtr import log_ndtr, ndtr, ndtri
from numjax._src.typing import Array


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density: -((x - loc)^2 / scale^2 + log(2 pi scale^2)) / 2.

    >>> logpdf(0.0)
    Array(-0.9189386, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    var = lax.square(scale)
    log_normalizer = lax.log(lax.mul(lax_const(x, 2 * np.pi), var))
    quadratic = lax.div(lax.square(lax.sub(x, loc)), var)
    return lax.div(lax.add(log_normalizer, quadratic), lax_const(x, -2))


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(0.0)
    Array(0.39894223, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X <= x).

    >>> cdf(1.0)
    Array(0.8413447, dtype=float32)
    """
    x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
    return ndtr(lax.div(lax.sub(x, loc), scale))


def logcdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log P(X <= x), accurate far into the lower tail.

    >>> logcdf(-12.0)
    Array(-75.410675, dtype=float32)
    """
    x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
    return log_ndtr(lax.div(lax.sub(x, loc), scale))


def ppf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The quantile function, the inverse of `cdf`.

    >>> ppf(0.5)
    Array(0., dtype=float32)
    """
    q, loc, scale = promote_args_inexact("norm.ppf", q, loc, scale)
    return lax.add(lax.mul(ndtri(q), scale), loc)


def sf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The survival function P(X > x) = cdf(-x; -loc, scale).

    >>> sf(1.0)
    Array(0.15865526, dtype=float32)
    """
    x, loc, scale = promote_args_inexact("norm.sf", x, loc, scale)
    return cdf(lax.neg(x), lax.neg(loc), scale)


def logsf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log of the survival function.

    >>> logsf(12.0)
    Array(-75.410675, dtype=float32)
    """
    x, loc, scale = promote_args_inexact("norm.logsf", x, loc, scale)
    return logcdf(lax.neg(x), lax.neg(loc), scale)


def isf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The inverse of the survival function, ppf(1 - q).

    >>> isf(0.5)
    Array(0., dtype=float32)
    """
    q, loc, scale = promote_args_inexact("norm.isf", q, loc, scale)
    return ppf(lax.sub(lax_const(q, 1), q), loc, scale)
