"""The QR-based dynamically weighted Halley iteration for the polar decomposition (JAX's
`jax.lax.linalg.qdwh`; Nakatsukasa, Bai and Gygi 2010, Nakatsukasa and Higham 2013).

Each step maps the singular values of the iterate through a rational function chosen from a
lower bound `l` on the smallest one; the weights (a, b, c) depend only on `l`, so they are
computed here in Python before tracing. A step evaluates `(b/c) u + (a - b/c) u (I + c u^H
u)^-1` through a QR factorization while `c` is large (where the Cholesky form loses
accuracy) and through a Cholesky factorization afterwards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src.control_flow.loops import fori_loop, while_loop
from numjax._src.dtypes import finfo
from numjax._src.lax import linalg as lax_linalg
from numjax._src.lax.elementwise import rsqrt
from numjax._src.numpy.complex_fns import conj
from numjax._src.numpy.creation import array, asarray, eye
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.linalg import norm
from numjax._src.numpy.reductions import max as jnp_max
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.shape import concatenate
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import logical_and, logical_not
from numjax._src.typing import Array

__all__ = ["qdwh"]


# Above this weight c the Cholesky form of a step is ill-conditioned; use QR.
_CHOLESKY_CUTOFF = 100.0


def _weights(eps: float, max_iterations: int) -> list[tuple[float, float, float]]:
    """The (a, b, c) of each dynamically weighted step, until the bound `l` reaches 1."""
    out: list[tuple[float, float, float]] = []
    lo = eps
    tol = 10.0 * eps / 2.0
    while lo + tol < 1 and len(out) < max_iterations:
        l2 = lo * lo
        d = (4.0 * (1.0 / l2 - 1.0) / l2) ** (1.0 / 3.0)
        root = (1.0 + d) ** 0.5
        a = root + (2.0 - d + 2.0 * (2.0 - l2) / (l2 * root)) ** 0.5
        b = (a - 1.0) ** 2 / 4.0
        c = a + b - 1.0
        lo = lo * (a + b * l2) / (1.0 + c * l2)
        out.append((a, b, c))
    return out


def _qr_params(a: float, b: float, c: float) -> tuple[float, float, float]:
    e = b / c
    return e, (a - e) / c ** 0.5, c ** 0.5


def _cholesky_params(a: float, b: float, c: float) -> tuple[float, float, float]:
    e = b / c
    return e, a - e, c


def _qr_step(u: Array, e: Array, scale: Array, sqrt_c: Array) -> Array:
    # [sqrt(c) u; I] = [q1; q2] r gives u (I + c u^H u)^-1 = q1 q2^H / sqrt(c).
    m, n = u.shape
    q, _ = lax_linalg.qr(concatenate([sqrt_c * u, eye(n, dtype=u.dtype)]),
                         full_matrices=False)
    q1, q2 = q[:m], q[m:]
    return e * u + scale * (q1 @ conj(q2.T))


def _cholesky_step(u: Array, e: Array, scale: Array, c: Array) -> Array:
    # I + c u^H u = w w^H gives u (I + c u^H u)^-1 = (w^-H w^-1 u^H)^H.
    n = u.shape[1]
    w = lax_linalg.cholesky(c * (conj(u.T) @ u) + eye(n, dtype=u.dtype),
                            symmetrize_input=False)
    z = lax_linalg.triangular_solve(w, conj(u.T), left_side=True, lower=True)
    z = lax_linalg.triangular_solve(w, z, left_side=True, lower=True, transpose_a=True,
                                    conjugate_a=True)
    return e * u + scale * conj(z.T)


def qdwh(x: Array, *, is_hermitian: bool = False, max_iterations: int | None = None,
         eps: float | None = None, dynamic_shape: tuple[int, int] | None = None
         ) -> tuple[Array, Array, Array, Array]:
    """Polar decomposition `x = u @ h` of an m x n matrix (m >= n) by QDWH iteration.

    Returns `(u, h, num_iters, is_converged)`: `u` has orthonormal columns, `h` is
    Hermitian positive semidefinite.

    >>> import numjax.numpy as jnp
    >>> u, h, _, _ = qdwh(jnp.array([[2.0, 0.0], [0.0, -3.0]]))
    >>> h.round(4)
    Array([[2., 0.],
           [0., 3.]], dtype=float32)
    """
    del is_hermitian  # the general iteration serves Hermitian input too
    if dynamic_shape is not None:
        raise NotImplementedError("qdwh: dynamic_shape is not supported by numjax")
    x = asarray(x)
    max_iterations = 10 if max_iterations is None else int(max_iterations)
    m, n = x.shape
    if m < n:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    if eps is None:
        eps = float(finfo(x.dtype).eps)
    dtype = x.dtype

    absx = jnp_abs(x)
    one_norm = jnp_max(jnp_sum(absx, axis=0))
    inf_norm = jnp_max(jnp_sum(absx, axis=1))
    # 1 / sqrt(|x|_1 |x|_inf) bounds 1 / |x|_2 from below, so u's singular values are <= 1.
    scale = where(one_norm == 0, 1, rsqrt(one_norm) * rsqrt(inf_norm))
    u = x * scale.astype(dtype)
    tol_norm = np.cbrt(10.0 * eps / 2.0)

    weights = _weights(eps, max_iterations)
    qr_weights = [_qr_params(*w) for w in weights if w[2] > _CHOLESKY_CUTOFF]
    chol_weights = [_cholesky_params(*w) for w in weights if w[2] <= _CHOLESKY_CUTOFF]

    def weighted(step: Any, table: list[tuple[float, float, float]],
                 test: bool) -> Any:
        coefs = array(table).astype(dtype)

        def body(i: Array, state: tuple[Array, Array]) -> tuple[Array, Array]:
            u_prev = state[0]
            u_new = step(u_prev, coefs[i, 0], coefs[i, 1], coefs[i, 2])
            moving = norm(u_new - u_prev) > tol_norm if test else \
                asarray(True)
            return u_new, moving

        return body

    not_converged = asarray(True)
    if qr_weights:
        u, _ = fori_loop(0, len(qr_weights), weighted(_qr_step, qr_weights, False),
                             (u, not_converged))
    if chol_weights:
        u, not_converged = fori_loop(
            0, len(chol_weights), weighted(_cholesky_step, chol_weights, True),
            (u, not_converged))

    # Past the weighted steps, Halley's fixed weights (3, 1, 3) until the iterate settles.
    halley = [np.array(p, dtype) for p in _cholesky_params(3.0, 1.0, 3.0)]

    def cond(state: tuple[Array, Array, Array]) -> Array:
        k, _, moving = state
        return logical_and(moving, k < max_iterations)

    def body(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        k, u_prev, _ = state
        u_new = _cholesky_step(u_prev, *halley)
        return k + 1, u_new, norm(u_new - u_prev) > tol_norm

    num_iters, u, not_converged = while_loop(
        cond, body, (len(weights), u, not_converged))

    # One Newton-Schulz step polishes orthogonality; h is symmetrized against rounding.
    u = 1.5 * u - 0.5 * u @ (conj(u.T) @ u)
    h = conj(u.T) @ x
    h = (h + conj(h.T)) / 2
    return u, h, num_iters, logical_not(not_converged)
