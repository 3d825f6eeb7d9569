"""Matrix functions of `jax.scipy.linalg` (JAX 0.4.30): expm and its Frechet derivative,
sqrtm, funm, and rsf2csf (the real-to-complex Schur conversion funm needs).

expm is Higham's scaling and squaring with diagonal Pade approximants ("The scaling and
squaring method for the matrix exponential revisited", 2005); sqrtm and funm go through the
complex Schur form and the recurrences for functions of triangular matrices (Bjorck and
Hammarling's square root, Parlett's recurrence as in Golub and Van Loan, Algorithm 11.1.1).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from math import factorial
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.api.transformations import jvp
from numjax._src.control_flow.cond import cond, switch
from numjax._src.control_flow.loops import fori_loop, scan
from numjax._src.dtypes import finfo, result_type
from numjax._src.lax.dot import Precision
from numjax._src.lax.dynamic_slicing import (
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_slice_in_dim,
)
from numjax._src.numpy.complex_fns import conj
from numjax._src.numpy.creation import arange, array, asarray, eye, full_like
from numjax._src.numpy.lax_numpy import dot, where
from numjax._src.numpy.linalg import eigvals, norm, solve
from numjax._src.numpy.matrices import diag as jnp_diag
from numjax._src.numpy.matrices import triu
from numjax._src.numpy.reductions import any as jnp_any
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.selection import vectorize
from numjax._src.numpy.shape import stack
from numjax._src.numpy.sorting import digitize
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import floor, isinf, log2, maximum, minimum, sqrt
from numjax._src.numpy.util import promote_dtypes_inexact
from numjax._src.runtime import transfer_guard
from numjax._src.scipy.linalg import schur, solve_triangular
from numjax._src.typing import Array

__all__ = ["expm", "expm_frechet", "funm", "rsf2csf", "sqrtm"]


# ---- expm ----------------------------------------------------------------------------------


def _pade_coefficients(m: int) -> list[float]:
    """b_j of the diagonal [m/m] Pade approximant of exp, scaled to integers:
    (2m - j)! / (j! (m - j)!)."""
    return [float(factorial(2 * m - j) // (factorial(j) * factorial(m - j)))
            for j in range(m + 1)]


def _dot(a: Array, b: Array) -> Array:
    return dot(a, b, precision=Precision.HIGHEST)


def _pade(m: int) -> Callable[[Array], tuple[Array, Array]]:
    """(U, V) with U the odd and V the even part of the Pade numerator, so that the
    approximant is (V - U)^-1 (V + U)."""
    b = _pade_coefficients(m)

    def approximant(a: Array) -> tuple[Array, Array]:
        ident = eye(a.shape[0], a.shape[1], dtype=a.dtype)
        a2 = _dot(a, a)
        powers = {0: ident, 2: a2}
        for k in range(4, (6 if m == 13 else m - 1) + 1, 2):  # a^4 = a2 a2, a^6 = a^4 a2, ...
            powers[k] = _dot(powers[k - 2] if k > 4 else a2, a2)
        if m == 13:
            # Higham's evaluation: the high powers come from one more product with a^6.
            a6 = powers[6]
            u_high = b[13] * a6 + b[11] * powers[4] + b[9] * a2
            v_high = b[12] * a6 + b[10] * powers[4] + b[8] * a2
            u_inner = _dot(a6, u_high) + b[7] * a6 + b[5] * powers[4] + b[3] * a2 + b[1] * ident
            v = _dot(a6, v_high) + b[6] * a6 + b[4] * powers[4] + b[2] * a2 + b[0] * ident
            return _dot(a, u_inner), v
        u_inner = functools.reduce(
            lambda acc, j: acc + b[j] * powers[j - 1], range(m - 2, 0, -2), b[m] * powers[m - 1])
        v = functools.reduce(
            lambda acc, j: acc + b[j] * powers[j], range(m - 3, -1, -2), b[m - 1] * powers[m - 1])
        return _dot(a, u_inner), v

    return approximant


# Largest 1-norms for which each degree meets unit roundoff (Higham 2005, Table 2.3 and its
# single-precision counterpart); above the last, scale by powers of two.
_DEGREES = {
    "double": ((3, 5, 7, 9, 13), (1.495585217958292e-2, 2.539398330063230e-1,
                                  9.504178996162932e-1, 2.097847961257068e0,
                                  5.371920351148152e0)),
    "single": ((3, 5, 7), (4.258730016922831e-1, 1.880152677804762e0, 3.925724783138660e0)),
}


def _pade_pq(a: Array) -> tuple[Array, Array, Array]:
    if a.dtype in (np.float64, np.complex128):
        degrees, thetas = _DEGREES["double"]
    elif a.dtype in (np.float32, np.complex64):
        degrees, thetas = _DEGREES["single"]
    else:
        raise TypeError(f"A.dtype={a.dtype} is not supported.")
    norm1 = norm(a, 1)
    n_squarings = maximum(0, floor(log2(norm1 / thetas[-1])))
    a = a / 2 ** n_squarings.astype(a.dtype)
    # The degree is picked from the unscaled norm: past the last threshold, the highest.
    index = digitize(norm1, array(thetas[:-1], dtype=norm1.dtype))
    u, v = switch(index, [_pade(m) for m in degrees], a)
    return u + v, v - u, n_squarings


def _expm_2d(a: Array, upper_triangular: bool, max_squarings: int) -> Array:
    p, q, n_squarings = _pade_pq(a)

    def too_large(args: tuple[Array, Array, Array]) -> Array:
        return full_like(args[0], np.nan)

    def compute(args: tuple[Array, Array, Array]) -> Array:
        _, p, q = args
        r = solve_triangular(q, p) if upper_triangular else solve(q, p)

        # Square n_squarings times; a scan over a fixed count keeps reverse mode available.
        def square(r: Array, i: Array) -> tuple[Array, None]:
            return cond(i < n_squarings, lambda x: _dot(x, x), lambda x: x, r), None

        r, _ = scan(square, r, arange(max_squarings, dtype=n_squarings.dtype))
        return r

    return cond(n_squarings > max_squarings, too_large, compute, (a, p, q))


def expm(A: Array, *, upper_triangular: bool = False, max_squarings: int = 16) -> Array:
    """Matrix exponential of a (batch of) square matrices. NaNs when the norm would need
    more than `max_squarings` halvings.

    >>> import numjax.numpy as jnp
    >>> expm(jnp.array([[0.0, 1.0], [0.0, 0.0]]))
    Array([[1., 1.],
           [0., 1.]], dtype=float32)
    """
    (A,) = promote_dtypes_inexact(asarray(A))
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got {A.shape=}.")
    fn = functools.partial(_expm_2d, upper_triangular=upper_triangular,
                           max_squarings=max_squarings)
    if A.ndim > 2:
        return vectorize(fn, signature="(n,n)->(n,n)")(A)
    return fn(A)


def expm_frechet(A: Array, E: Array, *, method: str | None = None,
                 compute_expm: bool = True) -> Any:
    """The Frechet derivative of expm at `A` in direction `E` (a jvp of `expm`):
    `(expm(A), L(A, E))`, or only `L(A, E)`.

    >>> import numjax.numpy as jnp
    >>> expm_frechet(jnp.zeros((2, 2)), jnp.eye(2), compute_expm=False)
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    del method
    a, e = asarray(A), asarray(E)
    if a.ndim < 2 or a.shape[-2] != a.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={a.shape}")
    if e.ndim < 2 or e.shape[-2] != e.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={e.shape}")
    if a.shape != e.shape:
        raise ValueError("expected A and E to be the same shape, got "
                         f"A.shape={a.shape} E.shape={e.shape}")
    fn = functools.partial(expm, upper_triangular=False, max_squarings=16)
    expm_a, frechet = jvp(fn, (a,), (e,))
    return (expm_a, frechet) if compute_expm else frechet


# ---- functions of triangular matrices ------------------------------------------------------


def _sqrtm_triu(t: Array) -> Array:
    """Square root of upper triangular `t`, column by column from the diagonal up:
    u_ij = (t_ij - sum_{i<k<j} u_ik u_kj) / (u_ii + u_jj)."""
    diag = sqrt(jnp_diag(t))
    n = diag.shape[0]
    k = arange(n)

    def column(j: Array, u: Array) -> Array:
        def entry(offset: Array, u: Array) -> Array:
            i = j - 1 - offset
            inner = where((k > i) & (k < j), u[i, :] * u[:, j], 0)
            s = jnp_sum(inner)
            value = where(t[i, j] == s, 0, (t[i, j] - s) / (diag[i] + diag[j]))
            return u.at[i, j].set(value)

        return fori_loop(0, j, entry, u)

    return fori_loop(0, n, column, jnp_diag(diag))


def sqrtm(A: Array, blocksize: int = 1) -> Array:
    """Principal matrix square root of a 2-D matrix, via the complex Schur form (so the
    result is complex).

    >>> import numjax.numpy as jnp
    >>> sqrtm(jnp.array([[4.0, 0.0], [0.0, 9.0]]))
    Array([[2.+0.j, 0.+0.j],
           [0.+0.j, 3.+0.j]], dtype=complex64)
    """
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    a = asarray(A)
    if a.ndim != 2:
        raise ValueError(f"sqrtm expects a 2-D matrix, got shape {a.shape}")
    t, z = schur(a, output="complex")
    root = _sqrtm_triu(t)
    return _dot(_dot(z, root), conj(z.T))


def rsf2csf(T: Array, Z: Array, check_finite: bool = True) -> tuple[Array, Array]:
    """Convert a real Schur form `(T, Z)` to the complex one: each 2x2 diagonal block of `T`
    is split by a Givens rotation, applied to `Z` as well.

    >>> import numjax.numpy as jnp
    >>> t, z = rsf2csf(jnp.array([[0.0, 1.0], [-1.0, 0.0]]), jnp.eye(2))
    >>> jnp.diag(t).imag.round(4)
    Array([ 1., -1.], dtype=float32)
    """
    del check_finite
    t, z = asarray(T), asarray(Z)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError("Input 'T' must be square.")
    if z.ndim != 2 or z.shape[0] != z.shape[1]:
        raise ValueError("Input 'Z' must be square.")
    if t.shape[0] != z.shape[0]:
        raise ValueError(f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
    # Their common type made complex (no promotion with a complex type, which strict
    # promotion would refuse).
    dtype = dtypes.to_complex_dtype(result_type(t.dtype, z.dtype))
    t, z = t.astype(dtype), z.astype(dtype)
    eps = finfo(dtype).eps
    n = t.shape[0]
    if n == 1:
        return t, z
    idx = arange(n)

    def split(m: Array, t: Array, z: Array) -> tuple[Array, Array]:
        # Rotate rows/columns m-1, m so that the block's eigenvalue mu[0] lands at (m-1, m-1).
        block = dynamic_slice(t, (m - 1, m - 1), (2, 2))
        mu = eigvals(block) - t[m, m]
        r = norm(stack([mu[0], t[m, m - 1]])).astype(dtype)
        c, s = mu[0] / r, t[m, m - 1] / r
        g = stack([stack([conj(c), s]), stack([-s, c])])
        gh = conj(g.T)
        rows = dynamic_slice_in_dim(t, m - 1, 2, axis=0)
        right = idx >= m - 1  # columns left of the block are zero in these rows
        rows = where(right, g @ where(right, rows, 0), rows)
        t = dynamic_update_slice_in_dim(t, rows, m - 1, axis=0)
        cols = dynamic_slice_in_dim(t, m - 1, 2, axis=1)
        above = idx[:, None] < m + 1  # rows below the block are zero in these columns
        cols = where(above, where(above, cols, 0) @ gh, cols)
        t = dynamic_update_slice_in_dim(t, cols, m - 1, axis=1)
        zcols = dynamic_slice_in_dim(z, m - 1, 2, axis=1)
        z = dynamic_update_slice_in_dim(z, zcols @ gh, m - 1, axis=1)
        return t, z

    def step(i: Array, tz: tuple[Array, Array]) -> tuple[Array, Array]:
        m = n - i
        t, z = tz
        coupled = jnp_abs(t[m, m - 1]) > eps * (jnp_abs(t[m - 1, m - 1]) + jnp_abs(t[m, m]))
        t, z = cond(coupled, split, lambda m, t, z: (t, z), m, t, z)
        return t.at[m, m - 1].set(0.0), z

    return fori_loop(1, n, step, (t, z))


def _parlett(f: Array, t: Array) -> tuple[Array, Array]:
    """Fill the strict upper triangle of f = func(t) superdiagonal by superdiagonal from
    f t = t f; also return the smallest |t_jj - t_ii| divided by."""
    n = t.shape[0]
    k = arange(n)

    def diagonal(p: Array, state: tuple[Array, Array]) -> tuple[Array, Array]:
        def entry(i: Array, state: tuple[Array, Array]) -> tuple[Array, Array]:
            f, minden = state
            j = i + p  # 1-based (i, j), as in the book
            inner = (k >= i) & (k < j - 1)
            s = t[i - 1, j - 1] * (f[j - 1, j - 1] - f[i - 1, i - 1])
            s = s + (where(inner, t[i - 1], 0) @ where(inner, f[:, j - 1], 0)
                     - where(inner, f[i - 1], 0) @ where(inner, t[:, j - 1], 0))
            den = t[j - 1, j - 1] - t[i - 1, i - 1]
            s = where(den != 0, s / den, s)
            return f.at[i - 1, j - 1].set(s), minimum(minden, jnp_abs(den))

        return fori_loop(1, n - p + 1, entry, state)

    return fori_loop(1, n, diagonal, (f, jnp_abs(t[0, 0])))


def funm(A: Array, func: Callable[[Array], Array], disp: bool = True) -> Any:
    """A matrix function from a scalar one: `func` applied to the eigenvalues on the complex
    Schur form, extended by Parlett's recurrence. With `disp=False` also returns an error
    estimate. The result is complex.

    >>> import numjax.numpy as jnp
    >>> funm(jnp.array([[1.0, 1.0], [0.0, 2.0]]), lambda x: x * x).real.round(4)
    Array([[1., 3.],
           [0., 4.]], dtype=float32)
    """
    a = asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = schur(a)
    t, z = rsf2csf(t, z)
    f = jnp_diag(func(jnp_diag(t))).astype(t.dtype)
    f, minden = _parlett(f, t)
    f = z @ f @ conj(z.T)
    if disp:
        return f
    # JAX measures single-precision results against float32's eps, others against float64's.
    tol = finfo(np.float32 if f.dtype == np.complex64 else np.float64).eps
    minden = where(minden == 0.0, tol, minden)
    err = where(jnp_any(isinf(f)), np.inf, minimum(1, maximum(
        tol, (tol / minden) * norm(triu(t, 1), 1))))
    return f, err


transfer_guard.entry_points(globals())
