"""The multinomial distribution: JAX's `jax.scipy.stats.multinomial`."""

from __future__ import annotations

import numpy as np

from numjax._src.dtypes import issubdtype
from numjax._src.lax import lax
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.ufuncs import equal
from numjax._src.numpy.util import promote_args_inexact, promote_args_numeric
from numjax._src.scipy.special import gammaln, xlogy
from numjax._src.typing import Array


def logpmf(x: Array, n: Array, p: Array) -> Array:
    """log P(X = x) = log n! + sum(x_i log p_i - log x_i!) over the last axis; -inf unless
    sum(x) == n. `x` and `n` must be integers.

    >>> import numjax.numpy as jnp
    >>> logpmf(jnp.array([1, 2, 0]), 3, jnp.array([0.2, 0.5, 0.3]))
    Array(-1.89712, dtype=float32)
    """
    (p,) = promote_args_inexact("multinomial.logpmf", p)
    x, n = promote_args_numeric("multinomial.logpmf", x, n)
    if not issubdtype(x.dtype, np.integer):
        raise ValueError("x and n must be of integer type; "
                         f"got x.dtype={x.dtype}, n.dtype={n.dtype}")
    x = x.astype(p.dtype)
    n = n.astype(p.dtype)
    logprobs = gammaln(n + 1) + jnp_sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    # JAX compares the total of all of x (not each row's) with n
    return where(equal(jnp_sum(x), n), logprobs, -np.inf)


def pmf(x: Array, n: Array, p: Array) -> Array:
    """P(X = x), exp(logpmf).

    >>> import numjax.numpy as jnp
    >>> pmf(jnp.array([1, 2, 0]), 3, jnp.array([0.2, 0.5, 0.3]))
    Array(0.14999999, dtype=float32)
    """
    return lax.exp(logpmf(x, n, p))
