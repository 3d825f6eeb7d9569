"""The multinomial distribution: JAX's `jax.scipy.stats.multinomial`."""

from __future__ import annotations

import numjax.numpy as jnp
from numjax._src.lax import lax
from numjax._src.numpy.util import promote_args_inexact, promote_args_numeric
from numjax._src.scipy.special import gammaln, xlogy
from numjax._src.typing import Array


def logpmf(x: Array, n: Array, p: Array) -> Array:
    """log P(X = x) = log n! + sum(x_i log p_i - log x_i!) over the last axis; -inf unless
    sum(x) == n. `x` and `n` must be integers.

    >>> logpmf(jnp.array([1, 2, 0]), 3, jnp.array([0.2, 0.5, 0.3]))
    Array(-1.89712, dtype=float32)
    """
    (p,) = promote_args_inexact("multinomial.logpmf", p)
    x, n = promote_args_numeric("multinomial.logpmf", x, n)
    if not jnp.issubdtype(x.dtype, jnp.integer):
        raise ValueError("x and n must be of integer type; "
                         f"got x.dtype={x.dtype}, n.dtype={n.dtype}")
    x = x.astype(p.dtype)
    n = n.astype(p.dtype)
    logprobs = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    # JAX compares the total of all of x (not each row's) with n
    return jnp.where(jnp.equal(jnp.sum(x), n), logprobs, -jnp.inf)


def pmf(x: Array, n: Array, p: Array) -> Array:
    """P(X = x), exp(logpmf).

    >>> pmf(jnp.array([1, 2, 0]), 3, jnp.array([0.2, 0.5, 0.3]))
    Array(0.14999999, dtype=float32)
    """
    return lax.exp(logpmf(x, n, p))
