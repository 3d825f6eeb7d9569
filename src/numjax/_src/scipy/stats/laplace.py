"""The Laplace (double exponential) distribution: JAX's `jax.scipy.stats.laplace`."""

from __future__ import annotations

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.typing import Array


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density -|x - loc|/scale - log(2 scale).

    >>> logpdf(1.0)
    Array(-1.6931472, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    linear = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear, lax.log(lax.mul(lax_const(x, 2), scale))))


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(1.0)
    Array(0.18393971, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X <= x): exp(z)/2 for z = (x - loc)/scale <= 0, else 1 - exp(-z)/2.

    >>> cdf(1.0)
    Array(0.8160603, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    half, one = lax_const(x, 0.5), lax_const(x, 1)
    z = lax.div(lax.sub(x, loc), scale)
    lower = lax.mul(half, lax.exp(z))
    upper = lax.sub(one, lax.mul(half, lax.exp(lax.neg(z))))
    return lax.select(lax.le(z, lax_const(x, 0)), lower, upper)
