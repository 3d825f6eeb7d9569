"""`jax.scipy.cluster.vq.vq`: assign observations to their nearest code-book entry."""

from __future__ import annotations

from numjax._src.numpy.linalg import norm
from numjax._src.numpy.reductions import argmin
from numjax._src.numpy.selection import take_along_axis
from numjax._src.numpy.util import check_arraylike, promote_dtypes_inexact
from numjax._src.typing import Array


def vq(obs: Array, code_book: Array, check_finite: bool = True) -> tuple[Array, Array]:
    """For each row of `obs` (M, N), the index of the nearest row of `code_book` (K, N) in
    Euclidean distance, and that distance. 1-D arguments are read as length-1 vectors.
    `check_finite` is accepted and ignored, as in JAX.

    >>> import numjax.numpy as jnp
    >>> obs = jnp.array([[1.1, 2.1, 3.1], [5.9, 4.8, 6.2]])
    >>> code_book = jnp.array([[1., 2., 3.], [2., 3., 4.], [3., 4., 5.], [4., 5., 6.]])
    >>> codes, dists = vq(obs, code_book)
    >>> print(codes, dists)
    [0 3] [0.17320499 1.9209373 ]
    """
    del check_finite
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, code_book = promote_dtypes_inexact(obs, code_book)
    if obs.ndim != code_book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:
        obs, code_book = obs[:, None], code_book[:, None]
    if obs.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    if obs.shape[1] != code_book.shape[1]:
        # JAX's text: it subtracts the code book from one observation (1, N) at a time.
        raise TypeError("sub got incompatible shapes for broadcasting: "
                        f"{(1, obs.shape[1])}, {code_book.shape}.")
    dists = norm(obs[:, None, :] - code_book[None, :, :], axis=-1)
    codes = argmin(dists, axis=-1)
    # Indexing (not min) so the gradient goes to the one chosen entry, ties included.
    return codes, take_along_axis(dists, codes[:, None], axis=-1)[:, 0]
