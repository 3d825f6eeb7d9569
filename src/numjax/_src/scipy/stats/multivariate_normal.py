"""The multivariate normal distribution: JAX's `jax.scipy.stats.multivariate_normal`."""

from __future__ import annotations

import numpy as np

from numjax._src.lax import lax
from numjax._src.lax import linalg as lax_linalg
from numjax._src.numpy.einsum import einsum
from numjax._src.numpy.selection import vectorize
from numjax._src.numpy.ufuncs import log, square
from numjax._src.numpy.util import promote_dtypes_inexact
from numjax._src.typing import Array


def _whiten(chol: Array, diff: Array) -> Array:
    """chol^-1 diff for one lower-triangular factor and one vector."""
    # lax.linalg.triangular_solve wants b as a matrix: solve y chol^T = diff^T as a row.
    row = lax_linalg.triangular_solve(chol, diff[None, :], lower=True, transpose_a=True)
    return row[0]


def logpdf(x: Array, mean: Array, cov: Array, allow_singular: None = None) -> Array:
    """log density of N(mean, cov) at x, along the last axis. `cov` may be a scalar (a
    multiple of the identity) or a batch of matrices, factored by Cholesky.

    >>> import numjax.numpy as jnp
    >>> logpdf(jnp.array([0.5, -1.0]), jnp.zeros(2), jnp.array([[2.0, 0.5], [0.5, 1.0]]))
    Array(-2.9033995, dtype=float32)
    """
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes_inexact(x, mean, cov)
    log_2pi = log(2 * np.pi)
    if not mean.shape:  # univariate
        return -1 / 2 * square(x - mean) / cov - 1 / 2 * (log_2pi + log(cov))
    n = mean.shape[-1]
    if not np.shape(cov):  # cov * identity
        y = x - mean
        return (-1 / 2 * einsum("...i,...i->...", y, y) / cov
                - n / 2 * (log_2pi + log(cov)))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    chol = lax_linalg.cholesky(cov)
    y = vectorize(_whiten, signature="(n,n),(n)->(n)")(chol, x - mean)
    # log det cov = 2 sum(log diag(chol)); the Mahalanobis term is |chol^-1 (x - mean)|^2
    return (-1 / 2 * einsum("...i,...i->...", y, y) - n / 2 * log_2pi
            - log(chol.diagonal(axis1=-1, axis2=-2)).sum(-1))


def pdf(x: Array, mean: Array, cov: Array) -> Array:
    """The density exp(logpdf).

    >>> import numjax.numpy as jnp
    >>> pdf(jnp.array([0.5, -1.0]), jnp.zeros(2), jnp.array([[2.0, 0.5], [0.5, 1.0]]))
    Array(0.05483649, dtype=float32)
    """
    return lax.exp(logpdf(x, mean, cov))
