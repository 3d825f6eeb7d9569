"""Student's t distribution: JAX's `jax.scipy.stats.t`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.typing import Array


def logpdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """log density lgamma((df+1)/2) - lgamma(df/2) - log(pi df scale^2)/2
    - (df+1)/2 log1p(z^2/df), z = (x - loc)/scale.

    >>> logpdf(1.0, 3.0)
    Array(-1.576253, dtype=float32, weak_type=True)
    """
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    two = lax_const(x, 2)
    z = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    half_df_plus_half = lax.add(half_df, lax_const(x, 0.5))
    pi_scale_sq = lax.mul(lax.mul(scale, scale), lax_const(x, np.pi))
    log_half_volume = lax.div(lax.log(lax.mul(pi_scale_sq, df)), two)
    log_normalizer = lax.sub(lax.add(lax.lgamma(half_df), log_half_volume),
                             lax.lgamma(half_df_plus_half))
    quadratic = lax.div(lax.mul(z, z), df)
    return lax.neg(lax.add(log_normalizer, lax.mul(half_df_plus_half, lax.log1p(quadratic))))


def pdf(x: Array, df: Array, loc: Array = 0, scale: Array = 1) -> Array:
    """The density exp(logpdf).

    >>> pdf(1.0, 3.0)
    Array(0.20674832, dtype=float32, weak_type=True)
    """
    return lax.exp(logpdf(x, df, loc, scale))
