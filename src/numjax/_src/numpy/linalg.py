"""jnp.linalg (JAX 0.4.30's `jax.numpy.linalg`), built on `lax.linalg` so that every function
differentiates, vmaps and jits through the decompositions' rules."""

from __future__ import annotations

import functools
import operator
import warnings
from collections.abc import Sequence
from functools import reduce
from typing import Any, NamedTuple

import numpy as np

from numjax._src import dtypes
from numjax._src.api.custom_derivatives import custom_jvp
from numjax._src.lax import complex_ops as cx
from numjax._src.lax import linalg as lax_linalg
from numjax._src.numpy import creation, reductions, shape, ufuncs
from numjax._src.numpy.creation import arange, ones, zeros, zeros_like
from numjax._src.numpy.creation import eye as jnp_eye
from numjax._src.numpy.einsum import tensordot as jnp_tensordot
from numjax._src.numpy.einsum import vecdot as jnp_vecdot
from numjax._src.numpy.lax_numpy import matmul as jnp_matmul
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.matrices import diagonal as jnp_diagonal
from numjax._src.numpy.matrices import trace as jnp_trace
from numjax._src.numpy.selection import take_along_axis
from numjax._src.numpy.shape import broadcast_to, concatenate, reshape, stack
from numjax._src.numpy.statistics import cumprod
from numjax._src.numpy.util import canonicalize_axis, check_arraylike, promote_dtypes_inexact
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array

__all__ = [
    "EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cond", "cross", "det",
    "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm",
    "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer", "pinv",
    "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve",
    "trace", "vecdot", "vector_norm",
]


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


def _inexact(name: str, *args: Array) -> list[Array]:
    check_arraylike(f"jnp.linalg.{name}", *args)
    return promote_dtypes_inexact(*(creation.asarray(a) for a in args))


def _square(name: str, a: Array) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: argument must be a square matrix or a stack of square "
                         f"matrices, got shape {a.shape}")


def _mT(x: Array) -> Array:
    return shape.swapaxes(x, -1, -2)


def _conj(x: Array) -> Array:
    return cx.conj(x) if x.dtype.kind == "c" else x


def _real(x: Array) -> Array:
    return cx.real(x) if x.dtype.kind == "c" else x


def _H(x: Array) -> Array:
    return _conj(_mT(x))


def _diag(x: Array) -> Array:
    return lax_linalg._diag(x)


def _broadcast_batch(a: Array, b: Array, a_core: int, b_core: int) -> tuple[Array, Array]:
    try:
        batch = np.broadcast_shapes(a.shape[:a.ndim - a_core], b.shape[:b.ndim - b_core])
    except ValueError:  # jnp.vectorize's error, which JAX's functions of stacks raise
        raise ValueError("Incompatible shapes for broadcasting: shapes="
                         f"[{a.shape[:a.ndim - a_core]}, {b.shape[:b.ndim - b_core]}]") from None
    a = broadcast_to(a, (*batch, *a.shape[a.ndim - a_core:]))
    b = broadcast_to(b, (*batch, *b.shape[b.ndim - b_core:]))
    return a, b


# ---- decompositions ------------------------------------------------------------------------


def cholesky(a: Array, *, upper: bool = False) -> Array:
    """Cholesky factor of Hermitian positive definite `a` (lower, or upper with `upper`).

    >>> import numjax.numpy as jnp
    >>> cholesky(jnp.array([[4.0, 2.0], [2.0, 5.0]]))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
    """
    (a,) = _inexact("cholesky", a)
    lower = lax_linalg.cholesky(a)
    return _H(lower) if upper else lower


def qr(a: Array, mode: str = "reduced") -> Any:
    """QR decomposition; `mode` is "reduced", "complete", "r" or "raw" (LAPACK's packed form).

    >>> import numjax.numpy as jnp
    >>> qr(jnp.eye(2)).R
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    (a,) = _inexact("qr", a)
    if mode == "raw":
        # LAPACK's packed form, transposed as NumPy returns it (Fortran order seen from C).
        packed, taus = lax_linalg.geqrf(a)
        return QRResult(_mT(packed), taus)
    if mode not in ("reduced", "complete", "r", "full"):  # "full": "reduced", as in JAX
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def svd(a: Array, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False, subset_by_index: tuple[int, int] | None = None) -> Any:
    """Singular value decomposition `a = U @ diag(S) @ Vh`.

    >>> import numjax.numpy as jnp
    >>> svd(jnp.array([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
    Array([4., 3.], dtype=float32)
    """
    (a,) = _inexact("svd", a)
    if hermitian and a.ndim < 2:
        # JAX's hermitian path reads the matrix size from the shape as an array first.
        raise IndexError(f"index -2 is out of bounds for axis 0 with size {a.ndim}")
    # hermitian=True takes the general path: its result is an SVD of `a` all the same.
    if compute_uv:
        u, s, vh = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=True,
                                  subset_by_index=subset_by_index)
        return SVDResult(u, s, vh)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=False,
                          subset_by_index=subset_by_index)


def svdvals(x: Array, /) -> Array:
    """Singular values, descending.

    >>> import numjax.numpy as jnp
    >>> svdvals(jnp.array([[0.0, 2.0], [1.0, 0.0]]))
    Array([2., 1.], dtype=float32)
    """
    return svd(x, compute_uv=False)


def eig(a: Array) -> tuple[Array, Array]:
    """Eigenvalues and right eigenvectors of a general square matrix (complex).

    >>> import numjax.numpy as jnp
    >>> eig(jnp.array([[2.0, 0.0], [0.0, 3.0]]))[0]
    Array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    (a,) = _inexact("eig", a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return w, v


def eigvals(a: Array) -> Array:
    """Eigenvalues of a general square matrix.

    >>> import numjax.numpy as jnp
    >>> eigvals(jnp.array([[0.0, 1.0], [-1.0, 0.0]]))
    Array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    (a,) = _inexact("eigvals", a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


def eigh(a: Array, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix.

    >>> import numjax.numpy as jnp
    >>> eigh(jnp.array([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
    Array([1., 3.], dtype=float32)
    """
    (a,) = _inexact("eigh", a)
    if UPLO is None or UPLO == "L":
        lower = True
    elif UPLO == "U":
        lower = False
    else:
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a: Array, UPLO: str | None = "L") -> Array:
    """Eigenvalues (ascending) of a Hermitian matrix.

    >>> import numjax.numpy as jnp
    >>> eigvalsh(jnp.array([[2.0, 1.0], [1.0, 2.0]]))
    Array([1., 3.], dtype=float32)
    """
    return eigh(a, UPLO).eigenvalues


# ---- determinants, inverses and solves -----------------------------------------------------


def slogdet(a: Array, *, method: str | None = None) -> SlogdetResult:
    """Sign and log of the absolute value of the determinant, via LU (or QR).

    >>> import numjax.numpy as jnp
    >>> slogdet(jnp.array([[2.0, 0.0], [0.0, -3.0]])).sign
    Array(-1., dtype=float32)
    """
    (a,) = _inexact("slogdet", a)
    _square("slogdet", a)
    if method is None or method == "lu":
        lu_, pivots, _ = lax_linalg.lu(a)
        diag = _diag(lu_)
        n = a.shape[-1]
        # The iota gets the pivots' leading axes explicitly: no rank promotion, which the
        # user may have set to raise.
        iota = arange(n, dtype=pivots.dtype).reshape((1,) * (pivots.ndim - 1) + (n,))
        swaps = reductions.sum(pivots != iota, axis=-1)
    elif method == "qr":
        q, r = lax_linalg.qr(a)
        diag = _diag(r)
        qdet = det(q)
        swaps = None
    else:
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                         "(`None`), and 'qr'.")
    dtype = a.dtype
    is_zero = reductions.any(diag == 0, axis=-1)
    absdiag = ufuncs.abs(diag)
    if dtype.kind == "c":
        safe = where(absdiag == 0, 1, absdiag)
        sign = reductions.prod(diag / safe.astype(dtype), axis=-1)
        parity = swaps
    else:
        sign = ones(diag.shape[:-1], dtype)
        negatives = reductions.sum(diag < 0, axis=-1)
        parity = negatives if swaps is None else swaps + negatives
    if parity is not None:
        sign = sign * (1 - 2 * (parity % 2)).astype(dtype)
    if swaps is None:
        sign = sign * qdet
    sign = where(is_zero, zeros((), dtype), sign)
    # log of a safe value: no log(0) warning, and no NaN in the derivative's other branch.
    logdet = reductions.sum(ufuncs.log(where(absdiag == 0, 1, absdiag)), axis=-1)
    logdet = where(is_zero, -np.inf, logdet)
    return SlogdetResult(sign, logdet)


def det(a: Array) -> Array:
    """Determinant: closed forms for 2x2 and 3x3 matrices, sign * exp(logdet) beyond, as JAX
    computes it; its derivative is the cofactor matrix (JAX's custom rule), finite at singular
    matrices.

    >>> import numjax.numpy as jnp
    >>> det(jnp.array([[2.0, 1.0], [1.0, 3.0]]))
    Array(5., dtype=float32)
    """
    (a,) = _inexact("det", a)
    _square("det", a)
    return _custom_rules()[0](a)


def _det_value(a: Array) -> Array:
    n = a.shape[-1]
    if n == 0:
        return ones(a.shape[:-2], a.dtype)
    if n == 2:
        return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    if n == 3:
        return (a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2]
                + a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0]
                + a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1]
                - a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0]
                - a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1]
                - a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2])
    sign, logdet = slogdet(a)
    return sign * ufuncs.exp(logdet).astype(sign.dtype)


def _det_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (a,), (t,) = primals, tangents
    value, adj_t = _cofactor_solve(a, t)
    return value, jnp_trace(adj_t, axis1=-1, axis2=-2)


def _cofactor_solve(a: Array, b: Array) -> tuple[Array, Array]:
    """(det(a), adj(a) @ b), finite for singular `a`: adj(a) = det(a) a^-1 where a is
    invertible, a rank-one matrix where its rank is n - 1, zero below that. From the LU
    factors a = P L U: adj(a) b = prod(diag U) U^-1 L^-1 P^T b; dividing by the last pivot
    u_nn, which is zero at rank n - 1, is avoided by replacing u_nn with 1 / (the product of
    the other pivots) and scaling every row but the last by det(a) instead."""
    n = a.shape[-1]
    if n == 0:
        return ones(a.shape[:-2], a.dtype), b
    if n == 1:
        return a[..., 0, 0], b
    lu_, pivots, permutation = lax_linalg.lu(a)
    batch = np.broadcast_shapes(lu_.shape[:-2], b.shape[:-2])
    x = broadcast_to(b, (*batch, *b.shape[-2:]))
    lu_ = broadcast_to(lu_, (*batch, *lu_.shape[-2:]))
    iota = arange(n, dtype=pivots.dtype).reshape((1,) * (pivots.ndim - 1) + (n,))
    swaps = reductions.sum(pivots != iota, axis=-1)
    sign = (1 - 2 * (swaps % 2)).astype(a.dtype)
    partial = cumprod(_diag(lu_), axis=-1) * sign[..., None]
    lu_ = lu_.at[..., -1, -1].set(1.0 / partial[..., -2])
    # Rank below n - 1: even the patched U is singular, and the adjugate is zero.
    probe = lax_linalg.triangular_solve(lu_, ones(x.shape[:-1], x.dtype)[..., None],
                                        left_side=True, lower=False)[..., 0]
    low_rank = reductions.any(~ufuncs.isfinite(probe), axis=-1)[..., None, None]
    x = where(low_rank, zeros_like(x), x)
    perm = broadcast_to(permutation, (*batch, n))
    x = take_along_axis(x, perm[..., None], axis=-2)
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
    x = concatenate([x[..., :-1, :] * partial[..., -1, None, None], x[..., -1:, :]],
                        axis=-2)
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
    return partial[..., -1], where(low_rank, zeros_like(x), x)


@functools.cache
def _custom_rules() -> tuple[Any, Any]:
    """det and pinv as custom_jvp functions, as JAX defines them (built on first use: the
    custom derivatives live in the api layer above this one)."""
    det_fn = custom_jvp(_det_value)
    det_fn.defjvp(_det_jvp)
    pinv_fn = custom_jvp(_pinv_value, nondiff_argnums=(1, 2))
    pinv_fn.defjvp(_pinv_jvp)
    return det_fn, pinv_fn


def solve(a: Array, b: Array) -> Array:
    """Solve `a @ x = b` (`b` a vector or a stack of matrices; batch dims broadcast).

    >>> import numjax.numpy as jnp
    >>> solve(jnp.array([[2.0, 0.0], [0.0, 4.0]]), jnp.array([2.0, 2.0]))
    Array([1. , 0.5], dtype=float32)
    """
    a, b = _inexact("solve", a, b)
    _square("solve", a)
    vector = b.ndim == 1 or a.ndim == b.ndim + 1
    if vector and b.ndim > 1:
        # A stack of vectors, one per matrix: JAX 0.4.30 still solves these, with a warning.
        warnings.warn("jnp.linalg.solve: batched 1D solves with b.ndim > 1 are deprecated, "
                      "and in the future will be treated as a batched 2D solve. "
                      "Use solve(a, b[..., None])[..., 0] to avoid this warning.",
                      category=FutureWarning, stacklevel=2)
    # JAX vectorizes over these signatures; its errors name them.
    signature = "(m,m),(m)->(m)" if vector else "(m,m),(m,n)->(m,n)"
    if b.ndim < (1 if vector else 2):
        raise ValueError(f"input with shape {b.shape} does not have enough dimensions for all "
                         f"core dimensions ('m', 'n') on vectorized function with "
                         f"excluded=frozenset() and signature={signature!r}")
    m = b.shape[-1] if vector else b.shape[-2]
    if m != a.shape[-1]:
        raise ValueError(f"inconsistent size for core dimension 'm': {m} vs {a.shape[-1]} on "
                         f"vectorized function with excluded=frozenset() and "
                         f"signature={signature!r}")
    if vector:
        a2, b2 = _broadcast_batch(a, b[..., None], 2, 2)
        return lax_linalg.solve(a2, b2)[..., 0]
    a2, b2 = _broadcast_batch(a, b, 2, 2)
    return lax_linalg.solve(a2, b2)


def inv(a: Array) -> Array:
    """Matrix inverse.

    >>> import numjax.numpy as jnp
    >>> inv(jnp.array([[2.0, 0.0], [0.0, 4.0]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    (a,) = _inexact("inv", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {a.shape}.")
    eye = broadcast_to(jnp_eye(a.shape[-1], dtype=a.dtype), a.shape)
    return lax_linalg.solve(a, eye)


def pinv(a: Array, rtol: Array | None = None, hermitian: bool = False, *,
         rcond: Array | None = None) -> Array:
    """Moore-Penrose pseudo-inverse through the SVD, cutting singular values below
    `rtol * max(s)` (default `10 * max(m, n) * eps`).

    >>> import numjax.numpy as jnp
    >>> pinv(jnp.array([[2.0, 0.0], [0.0, 0.0]]))
    Array([[0.5, 0. ],
           [0. , 0. ]], dtype=float32)
    """
    (a,) = _inexact("pinv", a)
    if a.ndim < 2:  # JAX 0.4.30 unpacks the matrix size from the shape without a check
        raise ValueError(f"not enough values to unpack (expected 2, got {a.ndim})")
    if rcond is not None:
        rtol = rcond
    return _custom_rules()[1](a, rtol, hermitian)


def _pinv_value(a: Array, rtol: Array | None, hermitian: bool) -> Array:
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return zeros((*a.shape[:-2], n, m), a.dtype)
    if rtol is None:
        rtol = 10.0 * max(m, n) * float(dtypes.finfo(dtypes.to_inexact_dtype(
            np.dtype(a.dtype).char.lower() if a.dtype.kind == "c" else a.dtype)).eps)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    rtol = creation.asarray(rtol, s.dtype)
    # rtol's batch dimensions are s's trailing ones: give it s's rank explicitly, so the
    # product is no rank promotion (which jax_numpy_rank_promotion='raise' would refuse).
    rtol = rtol.reshape((1,) * max(0, s.ndim - 1 - rtol.ndim) + rtol.shape + (1,))
    cutoff = rtol * reductions.max(s, axis=-1, keepdims=True)
    s_inv = where(s > cutoff, 1 / where(s > cutoff, s, 1), 0).astype(a.dtype)
    return jnp_matmul(_H(vh) * s_inv[..., None, :], _H(u))


def _pinv_jvp(rtol: Array | None, hermitian: bool, primals: tuple[Array],
              tangents: tuple[Array]) -> tuple[Array, Array]:
    """JAX's rule (Golub and Pereyra, 1973): dP = -P dA P + P P^H dA^H (I - A P)
    + (I - P A) dA^H P^H P, finite where the SVD's derivative is not (repeated singular
    values: at the identity dP = -dA)."""
    (a,), (da,) = primals, tangents
    p = _pinv_value(a, rtol, hermitian)
    if hermitian:  # the SVD symmetrizes its input, and so must the derivative
        a, da = _symmetrize(a), _symmetrize(da)
    m, n = a.shape[-2:]
    if m >= n:
        s = (p @ _H(p)) @ _H(da)
        t = (_H(da) @ _H(p)) @ p
        dp = -(p @ da) @ p + s - (s @ a) @ p + t - (p @ a) @ t
    else:
        s = p @ (_H(p) @ _H(da))
        t = _H(da) @ (_H(p) @ p)
        dp = -p @ (da @ p) + s - s @ (a @ p) + t - p @ (a @ t)
    return p, dp


def _symmetrize(x: Array) -> Array:
    return (x + _H(x)) / 2


def lstsq(a: Array, b: Array, rcond: float | None = None, *,
          numpy_resid: bool = False) -> tuple[Array, Array, Array, Array]:
    """Least-squares solution of `a @ x = b`: `(x, residuals, rank, s)`.

    >>> import numjax.numpy as jnp
    >>> lstsq(jnp.array([[2.0], [0.0]]), jnp.array([4.0, 1.0]))[0]
    Array([2.], dtype=float32)
    """
    a, b = _inexact("lstsq", a, b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_orig_ndim = b.ndim
    if b_orig_ndim == 1:
        b = b[:, None]
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim != 2:
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or "
                        "two-dimensional")
    m, n = a.shape
    real = np.dtype(_real(zeros((), a.dtype)).dtype)
    eps = float(np.finfo(real).eps)
    if a.size == 0:
        s = zeros(0, real)
        x = zeros((n, *b.shape[1:]), a.dtype)
        rank = creation.asarray(0, np.int32)
    else:
        rc = eps * max(n, m) if rcond is None else (eps if rcond < 0 else rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = s >= s[0] * np.array(rc, real)
        rank = reductions.sum(mask).astype(np.int32)
        safe_s = where(mask, s, 1).astype(a.dtype)
        s_inv = where(mask, 1 / safe_s, 0)[:, None]
        utb = jnp_matmul(_H(u), b)
        x = jnp_matmul(_H(vt), s_inv * utb)
    if numpy_resid and (int(rank) < n or m <= n):
        resid = zeros((0,), real)
    else:
        resid = vector_norm(b - jnp_matmul(a, x), axis=0) ** 2
    if b_orig_ndim == 1:
        x = x.ravel()
    return x, resid, rank, s


def matrix_power(a: Array, n: int) -> Array:
    """`a` raised to the integer power `n` by repeated squaring (negative: of the inverse).

    >>> import numjax.numpy as jnp
    >>> matrix_power(jnp.array([[1.0, 1.0], [0.0, 1.0]]), 3)
    Array([[1., 3.],
           [0., 1.]], dtype=float32)
    """
    check_arraylike("jnp.linalg.matrix_power", a)
    arr = creation.asarray(a)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]:
        raise TypeError(f"{arr.ndim}-dimensional array given. Array must be at least "
                        "two-dimensional" if arr.ndim < 2 else
                        "Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return broadcast_to(jnp_eye(arr.shape[-1], dtype=arr.dtype), arr.shape)
    if n < 0:
        arr = inv(arr)
        n = -n
    result = None
    base = arr
    while n:
        if n & 1:
            result = base if result is None else jnp_matmul(result, base)
        n >>= 1
        if n:
            base = jnp_matmul(base, base)
    return result


def matrix_rank(M: Array, rtol: Array | None = None, *, tol: Array | None = None) -> Array:
    """Number of singular values above `rtol`, which JAX 0.4.30 compares with the singular
    values as they are (an absolute threshold, despite its name; default
    `max(s) * max(m, n) * eps`). `tol` is its deprecated spelling.

    >>> import numjax.numpy as jnp
    >>> matrix_rank(jnp.array([[1.0, 2.0], [2.0, 4.0]]))
    Array(1, dtype=int32)
    """
    check_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        warnings.warn(
            "The tol argument for linalg.matrix_rank is deprecated using it will soon raise "
            "an error. To prepare for future releases, and suppress this warning, please use "
            "rtol instead.", DeprecationWarning, stacklevel=2)
        rtol = tol
    (M,) = _inexact("matrix_rank", M)
    if M.ndim < 2:
        return (reductions.any(M != 0)).astype(np.int32)
    s = svd(M, compute_uv=False)
    if rtol is None:
        rtol_v = float(np.finfo(s.dtype).eps) * max(M.shape[-2:])
        cutoff = reductions.max(s, axis=-1, keepdims=True) * np.array(rtol_v, s.dtype)
    else:
        cutoff = creation.asarray(rtol, s.dtype)[..., None]
    # The count is jnp.sum's default integer (int64 with x64), as in JAX.
    return reductions.sum(s > cutoff, axis=-1)


# ---- norms ---------------------------------------------------------------------------------


def norm(x: Array, ord: int | str | None = None, axis: None | tuple[int, ...] | int = None,
         keepdims: bool = False) -> Array:
    """Vector or matrix norm, with NumPy's `ord` and `axis` semantics.

    >>> import numjax.numpy as jnp
    >>> norm(jnp.array([3.0, 4.0]))
    Array(5., dtype=float32)
    """
    (x,) = _inexact("norm", x)
    x_shape = x.shape
    ndim = len(x_shape)
    if axis is None:
        if ord is None:
            return ufuncs.sqrt(reductions.sum(_real(x * _conj(x)), keepdims=keepdims))
        axis = tuple(range(ndim))
    elif isinstance(axis, tuple | list):
        axis = tuple(canonicalize_axis(operator.index(a), ndim) for a in axis)
    else:
        axis = (canonicalize_axis(operator.index(axis), ndim),)
    if len(axis) == 1:
        return _vector_norm(x, ord, axis, keepdims)
    if len(axis) == 2:
        return _matrix_norm(x, ord, axis, keepdims)
    raise ValueError(f"Invalid axis values ({axis}) for jnp.linalg.norm.")


def _vector_norm(x: Array, ord: Any, axis: tuple[int, ...], keepdims: bool) -> Array:
    absx = ufuncs.abs(x)
    if ord is None or ord == 2:
        return ufuncs.sqrt(reductions.sum(_real(x * _conj(x)), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return reductions.max(absx, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return reductions.min(absx, axis=axis, keepdims=keepdims)
    if ord == 0:
        return reductions.sum(x != 0, axis=axis, keepdims=keepdims).astype(absx.dtype)
    if ord == 1:
        return reductions.sum(absx, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    p = np.array(ord, absx.dtype)
    return ufuncs.power(reductions.sum(ufuncs.power(absx, p), axis=axis, keepdims=keepdims),
                        np.array(1.0, absx.dtype) / p)


def _matrix_norm(x: Array, ord: Any, axis: tuple[int, ...], keepdims: bool) -> Array:
    row, col = axis
    if row == col:
        raise ValueError(f"Duplicate axes given: {axis}")
    if ord is None or ord in ("fro", "f"):
        return ufuncs.sqrt(reductions.sum(_real(x * _conj(x)), axis=axis, keepdims=keepdims))
    absx = ufuncs.abs(x)
    if ord in (1, -1, np.inf, -np.inf):
        if ord in (np.inf, -np.inf):
            row, col = col, row
        sums = reductions.sum(absx, axis=row, keepdims=keepdims)
        red = reductions.max if ord in (1, np.inf) else reductions.min
        return red(sums, axis=col - 1 if (col > row and not keepdims) else col,
                   keepdims=keepdims)
    if ord in (2, -2, "nuc"):
        y = shape.moveaxis(x, axis, (-2, -1))
        s = svd(y, compute_uv=False)
        if ord == 2:
            out = reductions.max(s, axis=-1)
        elif ord == -2:
            out = reductions.min(s, axis=-1)
        else:
            out = reductions.sum(s, axis=-1)
        if keepdims:
            out = shape.expand_dims(out, tuple(sorted(axis)))
        return out
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def vector_norm(x: Array, /, *, axis: int | None = None, keepdims: bool = False,
                ord: int | str = 2) -> Array:
    """Vector norm over `axis` (all axes flattened when None).

    >>> import numjax.numpy as jnp
    >>> vector_norm(jnp.array([[3.0], [4.0]]))
    Array(5., dtype=float32)
    """
    (x,) = _inexact("vector_norm", x)
    if axis is None:
        out = _vector_norm(x.ravel(), ord, (0,), False)
        if keepdims:
            out = reshape(out, (1,) * x.ndim)
        return out
    return norm(x, ord, axis, keepdims)


def matrix_norm(x: Array, /, *, keepdims: bool = False, ord: str = "fro") -> Array:
    """Matrix norm over the last two axes.

    >>> import numjax.numpy as jnp
    >>> matrix_norm(jnp.eye(2), ord=2)
    Array(1., dtype=float32)
    """
    return norm(x, ord, (-2, -1), keepdims)


def cond(x: Array, p: Any = None) -> Array:
    """Condition number in the `p` norm (2-norm through singular values by default).

    >>> import numjax.numpy as jnp
    >>> cond(jnp.array([[2.0, 0.0], [0.0, 1.0]]))
    Array(2., dtype=float32)
    """
    (x,) = _inexact("cond", x)
    if x.ndim < 2:
        raise ValueError(
            f"jnp.linalg.cond: input array must be at least 2D; got arr.shape={x.shape}")
    if p is None or p == 2:
        s = svd(x, compute_uv=False)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svd(x, compute_uv=False)
        r = s[..., -1] / s[..., 0]
    else:
        _square("cond", x)
        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    # Singular matrices have an infinite condition number.
    return where(ufuncs.isnan(r) & ~ufuncs.isnan(x).any(axis=(-2, -1)), np.inf, r)


# ---- tensors and products ------------------------------------------------------------------


def tensorinv(a: Array, ind: int = 2) -> Array:
    """Inverse of `a` as a linear map from its last to its first `ind` axes' tensors.

    >>> import numjax.numpy as jnp
    >>> tensorinv(jnp.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    check_arraylike("jnp.linalg.tensorinv", a)
    arr = creation.asarray(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got {ind=}")
    contracting, batch = arr.shape[:ind], arr.shape[ind:]
    flat_c, flat_b = int(np.prod(contracting)), int(np.prod(batch))
    if flat_c != flat_b:
        raise ValueError(f"tensorinv is only possible when the product of the first {ind} "
                         f"axes matches that of the remaining axes. Got {arr.shape=}")
    return reshape(inv(reshape(arr, (flat_c, flat_b))), (*batch, *contracting))


def tensorsolve(a: Array, b: Array, axes: tuple[int, ...] | None = None) -> Array:
    """Solve `tensordot(a, x, x.ndim) = b` for `x`.

    >>> import numjax.numpy as jnp
    >>> tensorsolve(jnp.eye(4).reshape(2, 2, 4), jnp.ones((2, 2))).shape
    (4,)
    """
    a, b = _inexact("tensorsolve", a, b)
    if axes is not None:
        a = shape.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    out_shape = a.shape[b.ndim:]
    if a.shape[:b.ndim] != b.shape:
        raise ValueError("tensorsolve: First dimensions of a must match the dimensions of b. "
                         f"Got {a.shape=}, {b.shape=}")
    n = int(np.prod(out_shape))
    x = solve(reshape(a, (-1, n)), b.ravel())
    return reshape(x, out_shape)


def multi_dot(arrays: Sequence[Array], *, precision: Any = None) -> Array:
    """Product of a chain of matrices (first may be a vector, last may be a vector).

    >>> import numjax.numpy as jnp
    >>> multi_dot([jnp.ones(2), jnp.eye(2), jnp.ones(2)])
    Array(2., dtype=float32)
    """
    arrays = [creation.asarray(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got {len(arrays)}")
    if arrays[0].ndim not in (1, 2) or arrays[-1].ndim not in (1, 2) or any(
            a.ndim != 2 for a in arrays[1:-1]):
        raise ValueError("multi_dot: first and last arguments must be 1D or 2D, others 2D; "
                         f"got shapes {[a.shape for a in arrays]}")
    return reduce(lambda p, q: jnp_matmul(p, q, precision=precision), arrays)


def outer(x1: Array, x2: Array, /) -> Array:
    """Outer product of two vectors.

    >>> import numjax.numpy as jnp
    >>> outer(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))
    Array([[3., 4.],
           [6., 8.]], dtype=float32)
    """
    check_arraylike("jnp.linalg.outer", x1, x2)
    x1, x2 = creation.asarray(x1), creation.asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are {x1.ndim=} "
                         f"{x2.ndim=}")
    return x1[:, None] * x2[None, :]


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Cross product of 3-vectors along `axis`.

    >>> import numjax.numpy as jnp
    >>> cross(jnp.array([1.0, 0.0, 0.0]), jnp.array([0.0, 1.0, 0.0]))
    Array([0., 0., 1.], dtype=float32)
    """
    check_arraylike("jnp.linalg.cross", x1, x2)
    x1, x2 = creation.asarray(x1), creation.asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they have {x1.shape[axis]=} and {x2.shape[axis]=}")
    a = shape.moveaxis(x1, axis, -1)
    b = shape.moveaxis(x2, axis, -1)
    a, b = _broadcast_batch(a, b, 1, 1)
    a0, a1, a2 = (a[..., i] for i in range(3))
    b0, b1, b2 = (b[..., i] for i in range(3))
    out = stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return shape.moveaxis(out, -1, axis)


def matmul(x1: Array, x2: Array, /, *, precision: Any = None,
           preferred_element_type: Any = None) -> Array:
    """Matrix product (`jnp.matmul`)."""
    return jnp_matmul(x1, x2, precision=precision,
                      preferred_element_type=preferred_element_type)


def matrix_transpose(x: Array, /) -> Array:
    """Swap the last two axes.

    >>> import numjax.numpy as jnp
    >>> matrix_transpose(jnp.ones((2, 3))).shape
    (3, 2)
    """
    x = creation.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got "
                         f"{x.ndim=}")
    return _mT(x)


def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """Diagonal of the last two axes, shifted by `offset`.

    >>> import numjax.numpy as jnp
    >>> diagonal(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    Array([1., 4.], dtype=float32)
    """
    x = creation.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"diagonal requires an array of at least two dimensions, got "
                         f"{x.ndim}")
    return jnp_diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x: Array, /, *, offset: int = 0, dtype: Any = None) -> Array:
    """Sum of the diagonal of the last two axes.

    >>> import numjax.numpy as jnp
    >>> trace(jnp.eye(3))
    Array(3., dtype=float32)
    """
    check_arraylike("jnp.linalg.trace", x)
    return jnp_trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def tensordot(x1: Array, x2: Array, /, *, axes: Any = 2, precision: Any = None,
              preferred_element_type: Any = None) -> Array:
    """Tensor contraction over `axes` (an int: the last/first `axes` axes)."""
    check_arraylike("jnp.linalg.tensordot", x1, x2)
    # jnp.tensordot: operands promoted as for any product (bool with int32 is int32).
    return jnp_tensordot(x1, x2, axes=axes, precision=precision,
                         preferred_element_type=preferred_element_type)


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Array:
    """Conjugated dot product of vectors along `axis`, the other axes broadcast (jnp.vecdot).

    >>> import numjax.numpy as jnp
    >>> vecdot(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))
    Array(11., dtype=float32)
    """
    check_arraylike("jnp.linalg.vecdot", x1, x2)
    # jnp.vecdot: a product in the promoted input dtype (uint8 wraps, bool stays bool).
    return jnp_vecdot(x1, x2, axis=axis, precision=precision,
                      preferred_element_type=preferred_element_type)


transfer_guard.entry_points(globals())
