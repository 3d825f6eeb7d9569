"""The Cauchy distribution: JAX's `jax.scipy.stats.cauchy`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.ufuncs import arctan
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.typing import Array


def logpdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density: -log(pi scale) - log1p(z^2), z = (x - loc) / scale.

    >>> logpdf(1.0)
    Array(-1.8378772, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    log_normalizer = lax.log(lax.mul(lax_const(x, np.pi), scale))
    return lax.neg(lax.add(log_normalizer, lax.log1p(lax.mul(z, z))))


def pdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(1.0)
    Array(0.15915494, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X <= x) = 1/2 + arctan(z) / pi.

    >>> cdf(1.0)
    Array(0.75, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    inv_pi = lax.div(lax_const(x, 1.0), lax_const(x, np.pi))
    return lax.add(lax_const(x, 0.5), lax.mul(inv_pi, arctan(z)))


def logcdf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log of `cdf`.

    >>> logcdf(1.0)
    Array(-0.2876821, dtype=float32, weak_type=True)
    """
    return lax.log(cdf(x, loc, scale))


def sf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X > x) = cdf(-x; -loc, scale), by symmetry.

    >>> sf(1.0)
    Array(0.25, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log of `sf`.

    >>> logsf(1.0)
    Array(-1.3862944, dtype=float32, weak_type=True)
    """
    x, loc, scale = promote_args_inexact("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def isf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The inverse of `sf`: loc + scale tan(pi/2 - pi q).

    >>> isf(0.25)
    Array(1., dtype=float32, weak_type=True)
    """
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    z = lax.tan(lax.sub(lax_const(q, np.pi / 2), lax.mul(lax_const(q, np.pi), q)))
    return lax.add(lax.mul(z, scale), loc)


def ppf(q: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The quantile function, the inverse of `cdf`: loc + scale tan(pi q - pi/2).

    >>> ppf(0.75)
    Array(0.99999994, dtype=float32, weak_type=True)
    """
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    z = lax.tan(lax.sub(lax.mul(lax_const(q, np.pi), q), lax_const(q, np.pi / 2)))
    return lax.add(lax.mul(z, scale), loc)
