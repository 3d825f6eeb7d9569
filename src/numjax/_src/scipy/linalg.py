"""Dense linear algebra with SciPy's signatures: JAX 0.4.30's `jax.scipy.linalg`.

Decompositions and solves are thin layers over `lax.linalg` and `jnp.linalg`, so they
differentiate, batch and jit through those rules. SciPy's `overwrite_*`, `check_finite`,
`lwork`, `debug` and `lapack_driver` arguments are accepted and ignored, as in JAX. The matrix
functions (expm, sqrtm, funm, ...) live in `matfuncs.py`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.api.transformations import vmap
from numjax._src.control_flow.loops import scan, while_loop
from numjax._src.control_flow.solves import custom_linear_solve
from numjax._src.dtypes import promote_types
from numjax._src.lax import linalg as lax_linalg
from numjax._src.lax.dot import Precision
from numjax._src.lax.hessenberg import hessenberg as _lax_hessenberg
from numjax._src.lax.padding import pad as lax_pad
from numjax._src.lax.structural import broadcasted_iota, convert_element_type, stop_gradient
from numjax._src.lax.structural import concatenate as lax_concatenate
from numjax._src.numpy.complex_fns import conj as jnp_conj
from numjax._src.numpy.complex_fns import conjugate
from numjax._src.numpy.complex_fns import real as jnp_real
from numjax._src.numpy.creation import arange, array, asarray, empty, eye, ones, zeros, zeros_like
from numjax._src.numpy.lax_numpy import matmul, where
from numjax._src.numpy.linalg import det as jnp_linalg_det
from numjax._src.numpy.linalg import inv as jnp_linalg_inv
from numjax._src.numpy.linalg import solve as jnp_linalg_solve
from numjax._src.numpy.manipulation import block
from numjax._src.numpy.matrices import tril, triu
from numjax._src.numpy.reductions import max as jnp_max
from numjax._src.numpy.reductions import min as jnp_min
from numjax._src.numpy.scalar_types import float64
from numjax._src.numpy.selection import vectorize
from numjax._src.numpy.shape import atleast_2d, broadcast_to, concatenate, ndim, swapaxes
from numjax._src.numpy.shape import shape as jnp_shape
from numjax._src.numpy.sorting import argsort
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import logical_and, maximum, minimum, sqrt, square
from numjax._src.numpy.util import check_arraylike, promote_dtypes, promote_dtypes_inexact
from numjax._src.runtime import transfer_guard
from numjax._src.scipy.qdwh import qdwh
from numjax._src.typing import Array

__all__ = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "det", "eigh", "eigh_tridiagonal",
    "hessenberg", "hilbert", "inv", "lu", "lu_factor", "lu_solve", "polar", "qr", "schur",
    "solve", "solve_triangular", "svd", "toeplitz",
]


def _inexact(*args: Any) -> list[Array]:
    return promote_dtypes_inexact(*(asarray(a) for a in args))


def _mH(x: Array) -> Array:
    return jnp_conj(swapaxes(x, -1, -2))


def _check_solve_shapes(a: Array, b: Array) -> None:
    if not (a.ndim >= 2 and b.ndim in (a.ndim, a.ndim - 1)
            and a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]):
        raise ValueError("The arguments to solve must have shapes a=[..., m, m] and "
                         f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}")


def _matvec(a: Array, x: Array) -> Array:
    """(..., n, m) @ (..., m) -> (..., n), batch dims broadcast."""
    return matmul(a, x[..., None], precision=Precision.HIGHEST)[..., 0]


# ---- Cholesky ------------------------------------------------------------------------------


def cholesky(a: Array, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> Array:
    """Cholesky factor of a Hermitian positive definite matrix: upper `U` with `a = U^H U`,
    or lower `L` with `a = L L^H`. Only that triangle of `a` is read.

    >>> import numjax.numpy as jnp
    >>> cholesky(jnp.array([[4.0, 2.0], [2.0, 5.0]]))
    Array([[2., 1.],
           [0., 2.]], dtype=float32)
    """
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    if a.ndim < 2:
        raise ValueError(f"Argument to Cholesky decomposition must have ndims >= 2, got shape "
                         f"{a.shape}")
    if lower:
        return lax_linalg.cholesky(a, symmetrize_input=False)
    return _mH(lax_linalg.cholesky(_mH(a), symmetrize_input=False))


def cho_factor(a: Array, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Array, bool]:
    """`(c, lower)`: the Cholesky factor and which triangle it is, for `cho_solve`.

    >>> import numjax.numpy as jnp
    >>> cho_factor(jnp.array([[4.0, 0.0], [0.0, 9.0]]))[0]
    Array([[2., 0.],
           [0., 3.]], dtype=float32)
    """
    del overwrite_a, check_finite
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower: tuple[Array, bool], b: Array, overwrite_b: bool = False,
              check_finite: bool = True) -> Array:
    """Solve `a @ x = b` given `cho_factor(a)`: two triangular solves.

    >>> import numjax.numpy as jnp
    >>> cho_solve(cho_factor(jnp.array([[4.0, 0.0], [0.0, 9.0]])), jnp.array([2.0, 9.0]))
    Array([0.5, 1. ], dtype=float32)
    """
    del overwrite_b, check_finite
    c, lower = c_and_lower
    c, b = _inexact(c, b)
    _check_solve_shapes(c, b)
    # a = L L^H: solve L y = b, then L^H x = y (for an upper factor U = L^H the other way).
    y = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower,
                                    transpose_a=not lower, conjugate_a=not lower)
    return lax_linalg.triangular_solve(c, y, left_side=True, lower=lower,
                                       transpose_a=lower, conjugate_a=lower)


# ---- decompositions ------------------------------------------------------------------------


def svd(a: Array, full_matrices: bool = True, compute_uv: bool = True,
        overwrite_a: bool = False, check_finite: bool = True,
        lapack_driver: str = "gesdd") -> Any:
    """Singular value decomposition: `(u, s, vh)` with `a = u @ diag(s) @ vh`, or `s`.

    >>> import numjax.numpy as jnp
    >>> svd(jnp.array([[0.0, 2.0], [1.0, 0.0]]), compute_uv=False)
    Array([2., 1.], dtype=float32)
    """
    del overwrite_a, check_finite, lapack_driver
    (a,) = _inexact(a)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def det(a: Array, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """Determinant (`jnp.linalg.det`).

    >>> import numjax.numpy as jnp
    >>> det(jnp.array([[2.0, 1.0], [1.0, 3.0]]))
    Array(5., dtype=float32)
    """
    del overwrite_a, check_finite
    return jnp_linalg_det(a)


def eigh(a: Array, b: Array | None = None, lower: bool = True, eigvals_only: bool = False,
         overwrite_a: bool = False, overwrite_b: bool = False, turbo: bool = True,
         eigvals: None = None, type: int = 1, check_finite: bool = True) -> Any:
    """Eigenvalues `w` (ascending) and eigenvectors `v` of a Hermitian matrix: `(w, v)`.

    Only the standard problem is supported (`b=None`, `type=1`, `eigvals=None`), as in JAX.

    >>> import numjax.numpy as jnp
    >>> eigh(jnp.array([[2.0, 1.0], [1.0, 2.0]]), eigvals_only=True)
    Array([1., 3.], dtype=float32)
    """
    del overwrite_a, overwrite_b, turbo, check_finite
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (a,) = _inexact(a)
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def schur(a: Array, output: str = "real") -> tuple[Array, Array]:
    """Schur decomposition `a = z @ t @ z^H`: `(t, z)`; real quasi-triangular `t` for real
    input unless `output="complex"`.

    >>> import numjax.numpy as jnp
    >>> t, z = schur(jnp.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> jnp.diag(t)
    Array([1., 3.], dtype=float32)
    """
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    a = asarray(a)
    if output == "complex":
        a = a.astype(dtypes.to_complex_dtype(a.dtype))
    if a.dtype.kind not in "fc":
        # XLA's LAPACK lowering has no integer Schur kernel.
        raise NotImplementedError(f"Unsupported dtype {a.dtype}")
    t, z = lax_linalg.schur(a)
    return t, z


def inv(a: Array, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """Matrix inverse (`jnp.linalg.inv`).

    >>> import numjax.numpy as jnp
    >>> inv(jnp.array([[2.0, 0.0], [0.0, 4.0]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    del overwrite_a, check_finite
    return jnp_linalg_inv(a)


def lu_factor(a: Array, overwrite_a: bool = False, check_finite: bool = True
              ) -> tuple[Array, Array]:
    """Packed LU factorization with partial pivoting: `(lu, pivots)`, LAPACK's getrf layout.

    >>> import numjax.numpy as jnp
    >>> lu_factor(jnp.array([[1.0, 2.0], [3.0, 4.0]]))[1]
    Array([1, 1], dtype=int32)
    """
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


def _lu_solve_core(lu_: Array, perm: Array, b: Array, trans: int) -> Array:
    """Solve with one (n, n) packed LU factor and an (n, k) right-hand side."""
    if trans == 0:
        x = lax_linalg.triangular_solve(lu_, b[perm, :], left_side=True, lower=True,
                                        unit_diagonal=True)
        return lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
    # (P^T L U)^T x = b: U^T L^T (P x) = b, then undo the row permutation.
    conj = trans == 2
    x = lax_linalg.triangular_solve(lu_, b, left_side=True, lower=False, transpose_a=True,
                                    conjugate_a=conj)
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True,
                                    transpose_a=True, conjugate_a=conj)
    return x[argsort(perm), :]


def _lu_solve(lu_: Array, perm: Array, b: Array, trans: int) -> Array:
    if lu_.ndim < 2 or lu_.shape[-1] != lu_.shape[-2]:
        raise ValueError("last two dimensions of LU decomposition must be equal, got shape "
                         f"{lu_.shape}")
    if b.ndim < 1:
        raise ValueError(f"b matrix must have rank >= 1, got shape {b.shape}")
    # As in jnp.linalg.solve, b is a (batch of) vector(s) when it has one dimension fewer.
    rhs_vector = lu_.ndim == b.ndim + 1
    if rhs_vector:
        if b.shape[-1] != lu_.shape[-1]:
            raise ValueError("When LU decomposition matrix and b have the same number of "
                             "dimensions, last axis of LU decomposition matrix (shape "
                             f"{lu_.shape}) and b array (shape {b.shape}) must match")
        b = b[..., None]
    elif b.shape[-2] != lu_.shape[-1]:
        raise ValueError("When LU decomposition matrix and b different numbers of dimensions, "
                         f"last axis of LU decomposition matrix (shape {lu_.shape}) and second "
                         f"to last axis of b array (shape {b.shape}) must match")
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    core = vectorize(functools.partial(_lu_solve_core, trans=trans),
                         signature="(n,n),(n),(n,k)->(n,k)")
    x = core(lu_, perm, b)
    return x[..., 0] if rhs_vector else x


def lu_solve(lu_and_piv: tuple[Array, Array], b: Array, trans: int = 0,
             overwrite_b: bool = False, check_finite: bool = True) -> Array:
    """Solve `a @ x = b` (trans=0), `a^T @ x = b` (1) or `a^H @ x = b` (2) from
    `lu_factor(a)`.

    >>> import numjax.numpy as jnp
    >>> lu_solve(lu_factor(jnp.array([[1.0, 2.0], [3.0, 4.0]])), jnp.array([5.0, 11.0]))
    Array([1., 2.], dtype=float32)
    """
    del overwrite_b, check_finite
    lu_, pivots = lu_and_piv
    lu_, pivots, b = asarray(lu_), asarray(pivots), asarray(b)
    perm = lax_linalg.lu_pivots_to_permutation(pivots, lu_.shape[-2])
    return _lu_solve(lu_, perm, b, trans)


def lu(a: Array, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[Array, ...]:
    """LU decomposition of a 2-D matrix: `(p, l, u)` with `a = p @ l @ u`, or
    `(p @ l, u)` with `permute_l`.

    >>> import numjax.numpy as jnp
    >>> p, l, u = lu(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> p
    Array([[0., 1.],
           [1., 0.]], dtype=float32)
    """
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    packed, _, perm = lax_linalg.lu(a)
    if a.ndim != 2:
        raise ValueError(f"jax.scipy.linalg.lu expects a 2-D matrix, got shape {a.shape}; "
                         "use jax.lax.linalg.lu for batches")
    m, n = a.shape
    k = min(m, n)
    # p[i, j] = 1 where row j of l @ u is row perm[j] = i of a.
    # A permutation matrix of the real dtype, complex input included (as JAX's).
    real = np.dtype(dtypes.finfo(a.dtype).dtype)
    p = (perm[None, :] == arange(m, dtype=perm.dtype)[:, None]).astype(real)
    lower = tril(packed, -1)[:, :k] + eye(m, k, dtype=a.dtype)
    upper = triu(packed)[:k, :]
    if permute_l:
        return matmul(p, lower, precision=Precision.HIGHEST), upper
    return p, lower, upper


def qr(a: Array, overwrite_a: bool = False, lwork: Any = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> tuple[Array, ...]:
    """QR decomposition: `(q, r)` for mode "full" or "economic", `(r,)` for mode "r".

    >>> import numjax.numpy as jnp
    >>> q, r = qr(jnp.array([[3.0, 0.0], [4.0, 1.0]]))
    >>> jnp.abs(r[0, 0])
    Array(5., dtype=float32)
    """
    del overwrite_a, lwork, check_finite
    if pivoting:
        raise NotImplementedError("The pivoting=True case of qr is not implemented.")
    if mode not in ("full", "r", "economic"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    (a,) = _inexact(a)
    q, r = lax_linalg.qr(a, full_matrices=mode != "economic")
    return (r,) if mode == "r" else (q, r)


def hessenberg(a: Array, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> Any:
    """Upper Hessenberg form `h` of a square matrix, and with `calc_q` the unitary `q` with
    `a = q @ h @ q^H`.

    >>> import numjax.numpy as jnp
    >>> hessenberg(jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.0, 0.0, 1.0]]))[2, 0]
    Array(0., dtype=float32)
    """
    del overwrite_a, check_finite
    a = asarray(a)
    n = a.shape[-1]
    if n == 0:
        return (zeros_like(a), zeros_like(a)) if calc_q else zeros_like(a)
    packed, taus = _lax_hessenberg(a)
    h = triu(packed, -1)
    if not calc_q:
        return h
    # The reflectors act on rows/columns 1..n-1; q is identity in the first row and column.
    q_inner = lax_linalg.householder_product(packed[..., 1:, :-1], taus)
    batch = packed.shape[:-2]
    dtype = packed.dtype
    q = block([[ones((*batch, 1, 1), dtype), zeros((*batch, 1, n - 1), dtype)],
                   [zeros((*batch, n - 1, 1), dtype), q_inner]])
    return h, q


def polar(a: Array, side: str = "right", *, method: str = "qdwh", eps: float | None = None,
          max_iterations: int | None = None) -> tuple[Array, Array]:
    """Polar decomposition `a = u @ p` (side "right") or `a = p @ u` (side "left"): `(u, p)`
    with `u` unitary (orthonormal rows or columns) and `p` Hermitian positive semidefinite.

    `method` is "qdwh" (iterative; `max_iterations` is ignored, as in JAX) or "svd".

    >>> import numjax.numpy as jnp
    >>> u, p = polar(jnp.array([[0.0, -2.0], [3.0, 0.0]]), method="svd")
    >>> p
    Array([[3., 0.],
           [0., 2.]], dtype=float32)
    """
    del max_iterations  # JAX 0.4.30 does not pass it on to qdwh either
    arr = asarray(a)
    if arr.ndim != 2:
        raise ValueError("The input `a` must be a 2-D array.")
    if side not in ("right", "left"):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    m, n = arr.shape
    if method == "qdwh":
        if arr.dtype.kind not in "fc":
            raise ValueError(f"data type {arr.dtype.type} not inexact")
        if m >= n and side == "right":
            unitary, posdef, _, _ = qdwh(arr, is_hermitian=False, eps=eps)
        elif m < n and side == "left":
            unitary, posdef, _, _ = qdwh(_mH(arr), is_hermitian=False, eps=eps)
            unitary, posdef = _mH(unitary), _mH(posdef)
        else:
            raise NotImplementedError(
                "method='qdwh' only supports mxn matrices where m < n where side='right' and "
                f"m >= n side='left', got {arr.shape} with {side=}")
    elif method == "svd":
        if arr.dtype.kind not in "fc":
            raise NotImplementedError(f"Unsupported dtype {arr.dtype}")
        u_svd, s_svd, vh_svd = lax_linalg.svd(arr, full_matrices=False)
        s_svd = s_svd.astype(u_svd.dtype)
        unitary = u_svd @ vh_svd
        if side == "right":
            posdef = (_mH(vh_svd) * s_svd[None, :]) @ vh_svd
        else:
            posdef = (u_svd * s_svd[None, :]) @ _mH(u_svd)
    else:
        raise ValueError(f"Unknown polar decomposition method {method}.")
    return unitary, posdef


# ---- solves --------------------------------------------------------------------------------


def _solve_pos(a: Array, b: Array, lower: bool) -> Array:
    a, b = _inexact(a, b)
    _check_solve_shapes(a, b)
    # Factor once, outside differentiation: custom_linear_solve's rules reuse the factor for
    # the tangent and cotangent systems (a is symmetric, so the transpose solve is the same).
    factors = cho_factor(stop_gradient(a), lower=lower)
    solve_one = functools.partial(
        custom_linear_solve, lambda x: _matvec(a, x),
        solve=lambda _, x: cho_solve(factors, x), symmetric=True)
    if a.ndim == b.ndim + 1:
        return solve_one(b)
    return vmap(solve_one, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)


def solve(a: Array, b: Array, lower: bool = False, overwrite_a: bool = False,
          overwrite_b: bool = False, debug: bool = False, check_finite: bool = True,
          assume_a: str = "gen") -> Array:
    """Solve `a @ x = b`; `assume_a="pos"` uses a Cholesky factorization of the `lower` (or
    upper) triangle, any other valid value the general LU solve.

    >>> import numjax.numpy as jnp
    >>> solve(jnp.array([[4.0, 0.0], [0.0, 1.0]]), jnp.array([2.0, 4.0]), assume_a="pos")
    Array([0.5, 4. ], dtype=float32)
    """
    del overwrite_a, overwrite_b, debug, check_finite
    valid_assume_a = ["gen", "sym", "her", "pos"]
    if assume_a not in valid_assume_a:
        raise ValueError(f"Expected assume_a to be one of {valid_assume_a}; got {assume_a!r}")
    if assume_a == "pos":
        return _solve_pos(a, b, lower)
    a, b = asarray(a), asarray(b)
    if a.ndim >= 2 and b.ndim >= 1 and a.shape[-1] != b.shape[-1 if b.ndim == 1 else -2]:
        # jnp.linalg.solve's core signature is (m,m),(m)->(m) or (m,m),(m,n)->(m,n).
        raise ValueError(f"inconsistent size for core dimension 'm': {a.shape} and {b.shape} "
                         "in jax.scipy.linalg.solve")
    return jnp_linalg_solve(a, b)


def solve_triangular(a: Array, b: Array, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False,
                     debug: Any = None, check_finite: bool = True) -> Array:
    """Solve `op(a) @ x = b` for triangular `a`; `trans` 0/"N", 1/"T" or 2/"C" picks `op`
    (identity, transpose, conjugate transpose).

    >>> import numjax.numpy as jnp
    >>> solve_triangular(jnp.array([[2.0, 1.0], [0.0, 4.0]]), jnp.array([4.0, 8.0]))
    Array([1., 2.], dtype=float32)
    """
    del overwrite_b, debug, check_finite
    if trans == 0 or trans == "N":
        transpose_a, conjugate_a = False, False
    elif trans == 1 or trans == "T":
        transpose_a, conjugate_a = True, False
    elif trans == 2 or trans == "C":
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a, b = _inexact(a, b)
    vector = a.ndim == b.ndim + 1
    out = lax_linalg.triangular_solve(a, b[..., None] if vector else b, left_side=True,
                                      lower=lower, transpose_a=transpose_a,
                                      conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    return out[..., 0] if vector else out


# ---- special matrices ----------------------------------------------------------------------


def block_diag(*arrs: Array) -> Array:
    """The block diagonal matrix of the given arrays (scalars and vectors count as 1-row
    matrices).

    >>> import numjax.numpy as jnp
    >>> block_diag(jnp.ones((1, 2)), 3.0)
    Array([[1., 1., 0.],
           [0., 0., 3.]], dtype=float32)
    """
    if not arrs:
        arrs = (zeros((1, 0)),)
    arrs = tuple(promote_dtypes(*arrs))
    for i, a in enumerate(arrs):
        if ndim(a) > 2:
            raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                             f"dimensions, got an array of shape {jnp_shape(a)} at argument "
                             f"{i}.")
    blocks = [atleast_2d(a) for a in arrs]
    out = blocks[0]
    zero = np.zeros((), out.dtype)
    for blk in blocks[1:]:
        rows, cols = blk.shape
        # Widen the accumulated matrix by blk's columns and put blk below, shifted right.
        shifted = lax_pad(blk, zero, ((0, 0, 0), (out.shape[1], 0, 0)))
        out = lax_concatenate([lax_pad(out, zero, ((0, 0, 0), (0, cols, 0))), shifted], 0)
    return out


def toeplitz(c: Array, r: Array | None = None) -> Array:
    """The Toeplitz matrix with first column `c` and first row `r` (default `conj(c)`);
    `c[0]` wins on the diagonal. Inputs are flattened.

    >>> import numjax.numpy as jnp
    >>> toeplitz(jnp.array([1, 2, 3]), jnp.array([1, 4]))
    Array([[1, 4],
           [2, 1],
           [3, 2]], dtype=int32)
    """
    if r is None:
        check_arraylike("toeplitz", c)
        r = conjugate(asarray(c))
    else:
        check_arraylike("toeplitz", c, r)
    c_arr = asarray(c).ravel()
    r_arr = asarray(r).ravel()
    nrows, ncols = c_arr.shape[0], r_arr.shape[0]
    if nrows == 0 or ncols == 0:
        return empty((nrows, ncols), dtype=promote_types(c_arr.dtype, r_arr.dtype))
    # Entry (i, j) is c[i - j] below the diagonal and r[j - i] on and above it: both are
    # elems[nrows - 1 - i + j] in elems = [c reversed, r without its first entry].
    elems = concatenate([c_arr[::-1], r_arr[1:]])
    index = nrows - 1 - np.arange(nrows)[:, None] + np.arange(ncols)[None, :]
    return convert_element_type(elems[index], elems.dtype)


def hilbert(n: int) -> Array:
    """The n x n Hilbert matrix `1 / (i + j + 1)`.

    >>> hilbert(2)
    Array([[1.        , 0.5       ],
           [0.5       , 0.33333334]], dtype=float32)
    """
    a = broadcasted_iota(float64, (n, 1), 0)
    return 1 / (a + a.T + 1)


# ---- eigenvalues of symmetric tridiagonal matrices -----------------------------------------

_TRIDIAGONAL_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64,
                                                  np.complex128))


def _sturm_count(alpha: Array, beta_sq: Array, pivmin: Array, alpha0_shift: Array,
                 x: Array) -> Array:
    """For each shift x, the number of eigenvalues below x: the negative pivots of the
    LDL^T factorization of T - x I (Sylvester's law of inertia), pivots kept away from 0."""
    q = alpha[0] - x
    count = (q < 0).astype(np.int32)
    q = where(alpha[0] == x, alpha0_shift, q)

    def step(carry: tuple[Array, Array], ab: tuple[Array, Array]
             ) -> tuple[tuple[Array, Array], None]:
        q, count = carry
        a_i, b2 = ab
        q = a_i - b2 / q - x
        small = q <= pivmin
        return (where(small, minimum(q, -pivmin), q), count + small.astype(np.int32)), None

    n = alpha.shape[0]
    (_, count), _ = scan(step, (q, count), (alpha[1:], beta_sq[:n - 1]))
    return count


def eigh_tridiagonal(d: Array, e: Array, *, eigvals_only: bool = False, select: str = "a",
                     select_range: tuple[float, float] | None = None,
                     tol: float | None = None) -> Array:
    """Eigenvalues (ascending) of the Hermitian tridiagonal matrix with diagonal `d` and
    off-diagonal `e`, by Sturm-sequence bisection; `select="i"` keeps the eigenvalues with
    indices in `select_range` (inclusive). Eigenvectors are not implemented, as in JAX.

    >>> import numjax.numpy as jnp
    >>> eigh_tridiagonal(jnp.array([2.0, 2.0]), jnp.array([1.0]), eigvals_only=True)
    Array([0.9999999, 3.       ], dtype=float32)
    """
    if not eigvals_only:
        raise NotImplementedError("Calculation of eigenvectors is not implemented")
    alpha, beta = asarray(d), asarray(e)
    if alpha.dtype != beta.dtype:
        raise TypeError("diagonal and off-diagonal values must have same dtype, got "
                        f"{alpha.dtype} and {beta.dtype}")
    if alpha.dtype not in _TRIDIAGONAL_DTYPES:
        raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                        f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and "
                        f"{beta.dtype}")
    n = alpha.shape[0]
    if n <= 1:
        return jnp_real(alpha)
    if alpha.dtype.kind == "c":
        alpha = jnp_real(alpha)
        beta_sq = jnp_real(beta * jnp_conj(beta))
        beta_abs = sqrt(beta_sq)
    else:
        beta_abs = jnp_abs(beta)
        beta_sq = square(beta)
    dtype = alpha.dtype
    finfo = np.finfo(dtype)
    eps = dtype.type(finfo.eps)

    # Gershgorin discs bound the spectrum.
    radius = concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]])
    upper_est = jnp_max(alpha + radius)
    lower_est = jnp_min(alpha - radius)
    t_norm = maximum(jnp_abs(lower_est), jnp_abs(upper_est))
    one = dtype.type(1)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * maximum(1, jnp_max(beta_sq))
    alpha0_shift = square(eps * beta_abs[0])
    abs_tol = eps * t_norm
    if tol is not None:
        abs_tol = maximum(tol, abs_tol)
    max_it = finfo.nmant + 1  # each halving gains one bit

    if select == "a":
        targets = arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        targets = arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")

    # Widen the Gershgorin interval slightly so the extreme eigenvalues lie strictly inside.
    fudge = 2.1
    slack = array(n, dtype) * fudge * eps * t_norm
    shape = targets.shape
    lo = broadcast_to(lower_est - slack - 2 * fudge * pivmin, shape)
    hi = broadcast_to(upper_est + slack + fudge * pivmin, shape)
    pivmin = broadcast_to(pivmin, shape)
    alpha0_shift = broadcast_to(alpha0_shift, shape)

    def cond(state: tuple[Any, Array, Array, Array]) -> Array:
        i, lo, _, hi = state
        return logical_and(i < max_it, abs_tol < jnp_max(hi - lo))

    def body(state: tuple[Any, Array, Array, Array]) -> tuple[Any, Array, Array, Array]:
        i, lo, mid, hi = state
        counts = _sturm_count(alpha, beta_sq, pivmin, alpha0_shift, mid)
        lo = where(counts <= targets, mid, lo)
        hi = where(counts > targets, mid, hi)
        return i + 1, lo, 0.5 * (lo + hi), hi

    _, _, mid, _ = while_loop(cond, body, (0, lo, 0.5 * (hi + lo), hi))
    return mid


# JAX runs toeplitz op by op: its index constants are transfers.
transfer_guard.entry_points(globals(), op_by_op=("toeplitz",))
