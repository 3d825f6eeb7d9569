"""The Dirichlet distribution on the simplex: JAX's `jax.scipy.stats.dirichlet`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.reductions import all as jnp_all
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.shape import concatenate
from numjax._src.numpy.util import promote_dtypes_inexact
from numjax._src.scipy.special import gammaln, xlogy
from numjax._src.typing import Array


def _is_simplex(x: Array) -> Array:
    # positive entries (along axis 0) summing to 1 within JAX's tolerance of 1e-6
    return jnp_all(x > 0, axis=0) & (abs(jnp_sum(x, axis=0) - 1) < 1e-6)


def logpdf(x: Array, alpha: Array) -> Array:
    """log density sum((alpha_i - 1) log x_i) - log B(alpha) over axis 0 of `x`, which holds
    K = len(alpha) entries or K - 1 (the last is then 1 - sum); -inf off the simplex.

    >>> import numjax.numpy as jnp
    >>> logpdf(jnp.array([0.2, 0.3, 0.5]), jnp.array([1.0, 2.0, 3.0]))
    Array(1.5040774, dtype=float32)
    """
    x, alpha = promote_dtypes_inexact(x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError(
            "`x` must have either the same number of entries as `alpha` or one entry fewer; "
            f"got x.shape={x.shape}, alpha.shape={alpha.shape}")
    one = lax_const(x, 1)
    if x.shape[0] != alpha.shape[0]:
        x = concatenate([x, lax.sub(one, x.sum(0, keepdims=True))], axis=0)
    log_normalizer = jnp_sum(gammaln(alpha)) - gammaln(jnp_sum(alpha))
    if x.ndim > 1:  # alpha runs along axis 0 of x
        alpha = lax.broadcast_in_dim(alpha, alpha.shape + (1,) * (x.ndim - 1), (0,))
    log_probs = lax.sub(jnp_sum(xlogy(lax.sub(alpha, one), x), axis=0), log_normalizer)
    return where(_is_simplex(x), log_probs, -np.inf)


def pdf(x: Array, alpha: Array) -> Array:
    """The density exp(logpdf).

    >>> import numjax.numpy as jnp
    >>> pdf(jnp.array([0.2, 0.3, 0.5]), jnp.array([1.0, 2.0, 3.0]))
    Array(4.5, dtype=float32)
    """
    return lax.exp(logpdf(x, alpha))
