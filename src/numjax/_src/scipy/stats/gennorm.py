"""The generalized normal distribution: JAX's `jax.scipy.stats.gennorm`."""

from __future__ import annotations

from numjax._src.lax import lax
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.typing import Array


def logpdf(x: Array, beta: Array) -> Array:
    """log density log(beta / 2) - lgamma(1/beta) - |x|^beta.

    >>> logpdf(0.5, 2.0)
    Array(-0.8223649, dtype=float32, weak_type=True)
    """
    x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
    return lax.log(.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def cdf(x: Array, beta: Array) -> Array:
    """P(X <= x) = (1 + sign(x) P(1/beta, |x|^beta)) / 2.

    >>> cdf(0.5, 2.0)
    Array(0.76025, dtype=float32, weak_type=True)
    """
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return .5 * (1 + lax.sign(x) * lax.igamma(1 / beta, lax.abs(x) ** beta))


def pdf(x: Array, beta: Array) -> Array:
    """The density exp(logpdf).

    >>> pdf(0.5, 2.0)
    Array(0.43939131, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, beta))
