"""The logistic distribution: JAX's `jax.scipy.stats.logistic`."""

from __future__ import annotations

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.ufuncs import logaddexp
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.special import expit, logit
from numjax._src.typing import Array


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density -2 logaddexp(z/2, -z/2) - log scale, z = (x - loc)/scale (stable in both
    tails).

    >>> logpdf(1.0)
    Array(-1.6265233, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    two = lax_const(z, 2)
    half_z = lax.div(z, two)
    return lax.sub(lax.mul(lax.neg(two), logaddexp(half_z, lax.neg(half_z))),
                   lax.log(scale))


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(1.0)
    Array(0.19661196, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, loc, scale))


def ppf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The quantile function loc + scale logit(q).

    >>> ppf(0.75)
    Array(1.0986123, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(logit(x), scale), loc)


def sf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X > x) = expit(-(x - loc)/scale).

    >>> sf(1.0)
    Array(0.2689414, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
    return expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def isf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The inverse of `sf`: loc - scale logit(q).

    >>> isf(0.25)
    Array(1.0986123, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(logit(x)), scale), loc)


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X <= x) = expit((x - loc)/scale).

    >>> cdf(1.0)
    Array(0.7310586, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
    return expit(lax.div(lax.sub(x, loc), scale))
