"""The von Mises distribution on the circle: JAX's `jax.scipy.stats.vonmises`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.ufuncs import cos, log
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.typing import Array


def logpdf(x: Array, kappa: Array) -> Array:
    """log density kappa (cos x - 1) - log(2 pi i0e(kappa)) (i0e keeps large kappa finite);
    NaN unless kappa > 0.

    >>> logpdf(0.5, 2.0)
    Array(-0.90670556, dtype=float32, weak_type=True)
    """
    x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
    log_probs = kappa * (cos(x) - 1) - log(2 * np.pi * lax.bessel_i0e(kappa))
    return where(lax.gt(kappa, lax_const(kappa, 0)), log_probs, np.nan)


def pdf(x: Array, kappa: Array) -> Array:
    """The density exp(logpdf).

    >>> pdf(0.5, 2.0)
    Array(0.4038525, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, kappa))
