"""The wrapped Cauchy distribution on [0, 2 pi]: JAX's `jax.scipy.stats.wrapcauchy`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.ufuncs import cos, log
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.typing import Array


def logpdf(x: Array, c: Array) -> Array:
    """log density log(1 - c^2) - log(2 pi) - log(1 + c^2 - 2 c cos x) on [0, 2 pi] (-inf
    outside); NaN unless 0 < c < 1.

    >>> logpdf(0.5, 0.5)
    Array(-1.1378194, dtype=float32, weak_type=True)
    """
    x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
    log_probs = (log(1 - c * c) - log(2 * np.pi)
                 - log(1 + c * c - 2 * c * cos(x)))
    on_circle = lax.ge(x, lax_const(x, 0)) & lax.le(x, lax_const(x, np.pi * 2))
    valid_c = lax.gt(c, lax_const(c, 0)) & lax.lt(c, lax_const(c, 1))
    return where(valid_c, where(on_circle, log_probs, -np.inf), np.nan)


def pdf(x: Array, c: Array) -> Array:
    """The density exp(logpdf).

    >>> pdf(0.5, 0.5)
    Array(0.32051718, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, c))
