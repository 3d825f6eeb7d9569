"""The beta distribution on [loc, loc + scale]: JAX's `jax.scipy.stats.beta`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.ufuncs import logical_or
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.scipy.special import betainc, betaln, xlog1py, xlogy
from numjax._src.typing import Array


def logpdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density: (a-1) log y + (b-1) log(1-y) - log B(a, b) - log scale, y = (x-loc)/scale;
    -inf off the support, NaN unless a, b, scale > 0.

    >>> logpdf(0.4, 2.0, 3.0)
    Array(0.54696465, dtype=float32, weak_type=True)
    """
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    one = lax_const(x, 1)
    y = lax.div(lax.sub(x, loc), scale)
    log_kernel = lax.add(xlogy(lax.sub(a, one), y), xlog1py(lax.sub(b, one), lax.neg(y)))
    log_probs = lax.sub(lax.sub(log_kernel, betaln(a, b)), lax.log(scale))
    outside = logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    log_probs = where(outside, -np.inf, log_probs)
    zero = lax_const(a, 0)
    bad_params = logical_or(logical_or(lax.le(a, zero), lax.le(b, zero)),
                                lax.le(scale, zero))
    return where(bad_params, np.nan, log_probs)


def pdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(0.4, 2.0, 3.0)
    Array(1.7279999, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, a, b, loc, scale))


def _standardized(x: Array, loc: Array, scale: Array) -> Array:
    return lax.clamp(lax_const(x, 0), lax.div(lax.sub(x, loc), scale), lax_const(x, 1))


def cdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X <= x) = I_y(a, b), the regularized incomplete beta function.

    >>> cdf(0.4, 2.0, 3.0)
    Array(0.5248, dtype=float32, weak_type=True)
    """
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, _standardized(x, loc, scale))


def logcdf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log of `cdf`.

    >>> logcdf(0.4, 2.0, 3.0)
    Array(-0.644738, dtype=float32, weak_type=True)
    """
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """P(X > x) = I_{1-y}(b, a), by the reflection symmetry of the beta function.

    >>> sf(0.4, 2.0, 3.0)
    Array(0.47520006, dtype=float32, weak_type=True)
    """
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - _standardized(x, loc, scale))


def logsf(x: Array, a: Array, b: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log of `sf`.

    >>> logsf(0.4, 2.0, 3.0)
    Array(-0.7440194, dtype=float32, weak_type=True)
    """
    return lax.log(sf(x, a, b, loc, scale))
