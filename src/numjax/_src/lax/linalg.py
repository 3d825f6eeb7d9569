"""Matrix decompositions and triangular solves (JAX's `jax.lax.linalg`).

Every primitive works on stacks of matrices: leading dimensions are batch dimensions, as in
NumPy's stacked linalg, so batching rules only move the mapped axis to the front. Kernels call
NumPy's stacked routines or loop SciPy over the batch (SciPy is imported inside kernels so that
`import numjax` does not pay for it). Failures follow LAPACK-through-XLA rather than NumPy: a
matrix that is not positive definite gives a NaN Cholesky factor, not an exception.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero
from numjax._src.interpreters.batching import move_dim, moveaxis, not_mapped
from numjax._src.lax import complex_ops as cx
from numjax._src.lax import dot
from numjax._src.lax import elementwise as ew
from numjax._src.lax import reductions as red
from numjax._src.lax import structural as st
from numjax._src.lax.hessenberg import check_square_matrices
from numjax._src.lax.rules import FLOAT_OR_COMPLEX, check_dtype
from numjax._src.typing import Array

__all__ = [
    "cholesky", "cholesky_p", "eig", "eig_p", "eigh", "eigh_p", "geqrf", "geqrf_p",
    "householder_product",
    "householder_product_p", "lu", "lu_p", "lu_pivots_to_permutation",
    "lu_pivots_to_permutation_p", "qr", "qr_p", "schur", "schur_p", "svd", "svd_p",
    "triangular_solve", "triangular_solve_p", "tridiagonal", "tridiagonal_p", "tridiagonal_solve",
    "tridiagonal_solve_p",
]


# ---- matrix helpers built from lax primitives (so they differentiate, batch and jit) --------


def _ndim(x: Any) -> int:
    return get_aval(x).ndim


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(get_aval(x).shape)


def _is_complex(x: Any) -> bool:
    return get_aval(x).dtype.kind == "c"


def _real_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float64) if dtype == np.complex128 else (
        np.dtype(np.float32) if dtype == np.complex64 else dtype)


def _complex_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.complex128) if dtype in (np.float64, np.complex128) else \
        np.dtype(np.complex64)


def _mT(x: Array) -> Array:
    """Swap the last two axes."""
    n = _ndim(x)
    return st.transpose(x, (*range(n - 2), n - 1, n - 2))


def _conj(x: Array) -> Array:
    return cx.conj(x) if _is_complex(x) else x


def _mH(x: Array) -> Array:
    return _conj(_mT(x))


def _mm(a: Array, b: Array) -> Array:
    """Batched matrix product of (..., m, k) and (..., k, n) with equal batch shapes."""
    nb = _ndim(a) - 2
    batch = tuple(range(nb))
    return dot.dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)))


def _tri_mask(shape: Sequence[int], k: int, lower: bool) -> Array:
    n = len(shape)
    rows = st.broadcasted_iota(np.int32, shape, n - 2)
    cols = st.broadcasted_iota(np.int32, shape, n - 1)
    return ew.ge(ew.add(rows, np.int32(k)), cols) if lower else \
        ew.le(ew.add(rows, np.int32(k)), cols)


def _tril(x: Array, k: int = 0) -> Array:
    """Keep the entries on and below the k-th diagonal (zeros of x's type and weak type, as
    jnp.tril's)."""
    aval = get_aval(x)
    return st.select(_tri_mask(aval.shape, k, True), x, st.full_like(x, 0))


def _triu(x: Array, k: int = 0) -> Array:
    aval = get_aval(x)
    return st.select(_tri_mask(aval.shape, k, False), x, st.full_like(x, 0))


def _eye(shape: Sequence[int], dtype: Any) -> Array:
    """Identity matrices of the trailing two dims of `shape`, broadcast over the leading ones."""
    n = len(shape)
    rows = st.broadcasted_iota(np.int32, shape, n - 2)
    cols = st.broadcasted_iota(np.int32, shape, n - 1)
    return st.convert_element_type(ew.eq(rows, cols), dtype)


def _diag(x: Array) -> Array:
    """The main diagonal of a stack of square matrices: sum over the masked last axis."""
    aval = get_aval(x)
    return red.reduce_sum(ew.mul(x, _eye(aval.shape, aval.dtype)), (aval.ndim - 1,))


def _row(v: Array) -> Array:
    """(..., n) -> (..., 1, n)."""
    return st.expand_dims(v, (_ndim(v) - 1,))


def _col(v: Array) -> Array:
    """(..., n) -> (..., n, 1)."""
    return st.expand_dims(v, (_ndim(v),))


def _bmul(a: Array, b: Array) -> Array:
    """Multiply with NumPy broadcasting (lax needs equal shapes)."""
    shape = np.broadcast_shapes(_shape(a), _shape(b))
    return ew.mul(_bcast(a, shape), _bcast(b, shape))


def _bcast(x: Array, shape: Sequence[int]) -> Array:
    xs = _shape(x)
    if xs == tuple(shape):
        return x
    # Drop size-1 axes that need expanding, then broadcast_in_dim them back.
    keep = tuple(i for i, d in enumerate(xs) if d == shape[len(shape) - len(xs) + i])
    squeezed = st.reshape(x, tuple(xs[i] for i in keep))
    offset = len(shape) - len(xs)
    return st.broadcast_in_dim(squeezed, tuple(shape), tuple(i + offset for i in keep))


def _as(x: Array, dtype: np.dtype) -> Array:
    return x if get_aval(x).dtype == dtype else st.convert_element_type(x, dtype)


def _check_matrix(name: str, x: ShapedArray, square: bool) -> None:
    if x.ndim < 2:
        raise ValueError(f"Argument to {name} must have ndims >= 2, got shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"Argument to {name} must have shape [..., n, n], got shape "
                         f"{x.shape}")


def _front_batch(p: Primitive) -> Callable[..., tuple[Any, Any]]:
    """Batch rule of a one-operand stacked primitive: the mapped axis becomes a batch axis."""

    def rule(args: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        (x,), (d,) = args, dims
        out = p.bind(moveaxis(x, d, 0), **params)
        return out, ([0] * len(out) if p.multiple_results else 0)

    return rule


def _stacked(fn: Callable[[np.ndarray], Sequence[np.ndarray]], x: np.ndarray
             ) -> list[np.ndarray]:
    """Apply a per-matrix function over the leading dims and stack each of its outputs."""
    batch = x.shape[:-2]
    flat = x.reshape((math.prod(batch), *x.shape[-2:]))
    results = [fn(m) for m in flat]
    if not results:
        probe = fn(np.eye(*x.shape[-2:], dtype=x.dtype) if x.shape[-1] else
                   np.zeros(x.shape[-2:], x.dtype))
        return [np.zeros((*batch, *np.shape(o)), np.asarray(o).dtype) for o in probe]
    return [np.stack([r[i] for r in results]).reshape((*batch, *np.shape(results[0][i])))
            for i in range(len(results[0]))]


def _check_lapack_dtype(x: np.ndarray, even_if_empty: bool = True) -> None:
    """XLA:CPU hands these decompositions to LAPACK, which has no float16/bfloat16 routines:
    JAX refuses them (NotImplementedError), also for empty matrices except where it
    short-cuts those (qr, svd) before LAPACK."""
    if x.dtype.itemsize == 2 and x.dtype.kind in "fV" and (even_if_empty or x.size):
        raise NotImplementedError(f"Unsupported dtype {x.dtype.name}")


# ---- cholesky ------------------------------------------------------------------------------

cholesky_p = Primitive("cholesky")


def _cholesky_kernel(x: Any) -> Any:
    from scipy.linalg import get_lapack_funcs

    # LAPACK's potrf on the lower triangle, as XLA:CPU calls it (NumPy's batched cholesky
    # rounds some entries differently); ~1.6 us per matrix.
    x = np.asarray(x)
    _check_lapack_dtype(x)

    def one(m: np.ndarray) -> tuple[np.ndarray]:
        (potrf,) = get_lapack_funcs(("potrf",), (m,))
        factor, info = potrf(m, lower=True, clean=True)
        if info != 0:
            # XLA reports a failed factorization as NaNs.
            return (np.full(m.shape, np.nan, m.dtype),)
        return (factor,)

    return _stacked(one, x)[0]


@cholesky_p.def_abstract_eval
def _cholesky_abstract_eval(x: ShapedArray) -> ShapedArray:
    check_dtype("cholesky", x.dtype, FLOAT_OR_COMPLEX)
    _check_matrix("Cholesky decomposition", x, square=True)
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _cholesky_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    # With A = L L^H: dL = L phi(L^-1 dA L^-H), phi taking the lower triangle with its
    # diagonal halved.
    (x,), (t,) = primals, tangents
    L = cholesky_p.bind(x)
    t = ad.instantiate_zeros(t)
    tmp = triangular_solve(L, t, left_side=False, transpose_a=True, conjugate_a=True,
                           lower=True)
    inner = triangular_solve(L, tmp, left_side=True, transpose_a=False, lower=True)
    aval = get_aval(inner)
    half = ew.mul(_eye(aval.shape, aval.dtype), np.array(0.5, aval.dtype))
    phi = ew.mul(_tril(inner), ew.sub(st.full(aval.shape, 1, aval.dtype), half))
    return L, _mm(L, phi)


cholesky_p.def_impl(_cholesky_kernel)
cholesky_p.def_jvp(_cholesky_jvp)
cholesky_p.def_batch(_front_batch(cholesky_p))


def _symmetrize(x: Array) -> Array:
    n = _ndim(x)
    if n < 2:
        # As JAX's swapaxes of the last two axes: NumPy's error indexing its permutation.
        raise IndexError(f"index -2 is out of bounds for axis 0 with size {n}")
    # JAX divides by a Python 2, which keeps a weakly typed x's result weak.
    aval = get_aval(x)
    return ew.div(ew.add(x, _mH(x)), st._convert_element_type(2, aval.dtype, aval.weak_type))


def cholesky(x: Array, *, symmetrize_input: bool = True) -> Array:
    """Lower Cholesky factor `L` of Hermitian positive definite `x` (`x = L L^H`).

    NaNs where `x` is not positive definite, as in JAX.

    >>> import numjax.numpy as jnp
    >>> cholesky(jnp.array([[4.0, 2.0], [2.0, 5.0]]))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
    """
    if symmetrize_input:
        # Symmetrized first, as JAX: x + x^H broadcasts a (1, 0) matrix to an empty (0, 0)
        # one, and a non-square one fails in the add.
        x = _symmetrize(x)
    _check_matrix("Cholesky decomposition", get_aval(x), square=True)
    return _tril(cholesky_p.bind(x))


# ---- triangular_solve ----------------------------------------------------------------------

triangular_solve_p = Primitive("triangular_solve")


def _triangular_solve_kernel(a: Any, b: Any, *, left_side: bool, lower: bool,
                             transpose_a: bool, conjugate_a: bool, unit_diagonal: bool) -> Any:
    a, b = np.asarray(a), np.asarray(b)
    if conjugate_a and a.dtype.kind == "c":
        a = np.conj(a)
    trans = transpose_a
    if not left_side:
        # X op(A) = B  <=>  op(A)^T X^T = B^T.
        b = np.swapaxes(b, -1, -2)
        trans = not trans
    batch = a.shape[:-2]
    n = a.shape[-1]
    af = a.reshape((math.prod(batch), n, n))
    bf = b.reshape((math.prod(batch), *b.shape[-2:]))
    dtype = np.result_type(af.dtype, bf.dtype)
    if af.shape[0] > 1 and n <= _SUBSTITUTED_SIZE:
        # Many small systems: substitution row by row, each step over the whole batch at
        # once (one LAPACK call per matrix costs ~100x more for a 3x3 system).
        matrix = np.swapaxes(af, -1, -2) if trans else af
        out = _substitute(matrix, bf, lower != trans, unit_diagonal, dtype)
    else:
        out = np.empty(bf.shape, dtype)
        for i in range(af.shape[0]):
            out[i] = _solve_one(af[i], bf[i], trans, lower, unit_diagonal, dtype)
    out = out.reshape((*batch, *b.shape[-2:]))
    return np.swapaxes(out, -1, -2) if not left_side else out


# Systems up to this size, when there are several, are solved by batched substitution.
_SUBSTITUTED_SIZE = 32


def _solve_one(a: np.ndarray, b: np.ndarray, trans: bool, lower: bool, unit: bool,
               dtype: np.dtype[Any]) -> np.ndarray:
    from scipy.linalg import solve_triangular
    try:
        return solve_triangular(a, b, trans=int(trans), lower=lower,  # type: ignore[no-any-return]
                                unit_diagonal=unit, check_finite=False)
    except np.linalg.LinAlgError:
        # A zero on the diagonal: XLA divides by it (inf, then inf - inf), as substitution does.
        matrix = a.T if trans else a
        return _substitute(matrix[None], b[None], lower != trans, unit, dtype)[0]


def _substitute(m: np.ndarray, b: np.ndarray, lower: bool, unit: bool,
                dtype: np.dtype[Any]) -> np.ndarray:
    """Solve `m @ x = b` for a batch of triangular `m` (lower or upper) by forward or back
    substitution, one row of every system per step. Narrow floats compute in float32."""
    work = np.result_type(dtype, np.float32)
    m, b = m.astype(work, copy=False), b.astype(work, copy=False)
    n = m.shape[-1]
    x = np.empty(b.shape, work)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in range(n) if lower else range(n - 1, -1, -1):
            done = slice(0, i) if lower else slice(i + 1, n)
            row = b[:, i, :] - np.matmul(m[:, i:i + 1, done], x[:, done, :])[:, 0, :]
            x[:, i, :] = row if unit else row / m[:, i, i, None]
    return x.astype(dtype, copy=False)


@triangular_solve_p.def_abstract_eval
def _triangular_solve_abstract_eval(a: ShapedArray, b: ShapedArray, *, left_side: bool,
                                    **params: Any) -> ShapedArray:
    for i, aval in enumerate((a, b)):
        # (dtypes.issubdtype: bfloat16 is a floating type, as in JAX)
        if not any(dtypes.issubdtype(aval.dtype, t) for t in FLOAT_OR_COMPLEX):
            raise TypeError(f"triangular_solve does not accept dtype {aval.dtype.name} at "
                            f"position {i}. Accepted dtypes at position {i} are subtypes of "
                            "floating, complexfloating.")
    if a.dtype != b.dtype:
        raise TypeError("triangular_solve requires arguments to have the same dtypes, got "
                        f"{a.dtype.name}, {b.dtype.name}.")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise TypeError("triangular_solve requires the last two dimensions of a to be equal "
                        f"in size, got a.shape of {a.shape}.")
    if a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
        raise TypeError("triangular_solve requires both arguments to have the same number "
                        "of dimensions and equal batch dimensions, got "
                        f"{a.shape} and {b.shape}.")
    common = b.shape[-2] if left_side else b.shape[-1]
    if a.shape[-1] != common:
        raise TypeError(f"Incompatible shapes for arguments to triangular_solve: {a.shape} "
                        f"and {b.shape}.")
    # lax's rule for weak types: weak when every operand is (JAX 0.4.30)
    return ShapedArray(b.shape, b.dtype, a.weak_type and b.weak_type)


def _op_a(m: Array, transpose_a: bool, conjugate_a: bool) -> Array:
    if transpose_a:
        m = _mT(m)
    return _conj(m) if conjugate_a else m


def _triangular_solve_jvp_a(g_a: Any, ans: Any, a: Any, b: Any, **params: Any) -> Any:
    # op(A) X = B gives dX = -op(A)^-1 op(dA) X (and symmetrically on the right); only the
    # referenced triangle of dA counts, without its diagonal when the diagonal is unit.
    k = -1 if params["unit_diagonal"] else 0
    if params["lower"]:
        g_a = _tril(g_a, k)
    else:
        g_a = _triu(g_a, -k)
    g_a = _op_a(g_a, params["transpose_a"], params["conjugate_a"])
    tmp = _mm(g_a, ans) if params["left_side"] else _mm(ans, g_a)
    return ew.neg(triangular_solve_p.bind(a, tmp, **params))


def _triangular_solve_jvp_b(g_b: Any, ans: Any, a: Any, b: Any, **params: Any) -> Any:
    return triangular_solve_p.bind(a, g_b, **params)


def _triangular_solve_transpose(ct: Any, a: Any, b: Any, **params: Any) -> list[Any]:
    # B -> op(A)^-1 B is linear in B; its transpose (bilinear pairing, JAX's convention for
    # complex values) solves with op(A)^T, i.e. with transpose_a flipped.
    assert not ad.is_undefined_primal(a) and ad.is_undefined_primal(b)
    if type(ct) is Zero:
        return [None, Zero(b.aval)]
    flipped = dict(params, transpose_a=not params["transpose_a"])
    return [None, triangular_solve_p.bind(a, ct, **flipped)]


def _triangular_solve_batch(args: Sequence[Any], dims: Sequence[Any], **params: Any
                            ) -> tuple[Any, Any]:
    a, b = args
    da, db = dims
    size = _shape(a)[da] if da is not not_mapped else _shape(b)[db]
    out = [move_dim(x, d, 0, size) for x, d in ((a, da), (b, db))]
    return triangular_solve_p.bind(*out, **params), 0


triangular_solve_p.def_impl(_triangular_solve_kernel)
ad.defjvp(triangular_solve_p, _triangular_solve_jvp_a, _triangular_solve_jvp_b, uses_output=True)
triangular_solve_p.def_transpose(_triangular_solve_transpose)
triangular_solve_p.def_batch(_triangular_solve_batch)


def triangular_solve(a: Array, b: Array, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False) -> Array:
    """Solve `op(a) @ x = b` (left_side) or `x @ op(a) = b` for triangular `a`.

    `op` transposes and/or conjugates `a`; only the `lower` (or upper) triangle is read.

    >>> import numjax.numpy as jnp
    >>> triangular_solve(jnp.array([[2.0, 0.0], [1.0, 1.0]]), jnp.array([[2.0], [3.0]]),
    ...                  left_side=True, lower=True)
    Array([[1.],
           [2.]], dtype=float32)
    """
    params = dict(left_side=bool(left_side), lower=bool(lower),
                  transpose_a=bool(transpose_a), conjugate_a=bool(conjugate_a),
                  unit_diagonal=bool(unit_diagonal))
    a_aval, b_aval = get_aval(a), get_aval(b)
    if b_aval.ndim == a_aval.ndim - 1:
        # JAX accepts a vector (batch) b: a column on the left side, a row on the right.
        axis = b_aval.ndim if left_side else b_aval.ndim - 1
        out = triangular_solve_p.bind(a, st.expand_dims(b, (axis,)), **params)
        return st.squeeze(out, (axis,))
    return triangular_solve_p.bind(a, b, **params)


# ---- lu and lu_pivots_to_permutation -------------------------------------------------------

lu_p = Primitive("lu")
lu_p.multiple_results = True


def _lu_kernel(x: Any) -> list[Any]:
    """Partial-pivoting LU (getrf) vectorized over the batch: one Python step per column."""
    x = np.asarray(x)
    _check_lapack_dtype(x)
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    k = min(m, n)
    a = np.array(x.reshape((math.prod(batch), m, n)), copy=True)
    nb = a.shape[0]
    pivots = np.zeros((nb, k), np.int32)
    rows = np.arange(nb)
    for j in range(k):
        col = a[:, j:, j]
        # LAPACK's i?amax compares |re| + |im| for complex values.
        mag = np.abs(col.real) + np.abs(col.imag) if a.dtype.kind == "c" else np.abs(col)
        p = np.argmax(mag, axis=1) + j
        pivots[:, j] = p
        swap = a[rows, p].copy()
        a[rows, p] = a[:, j]
        a[:, j] = swap
        pivot = a[:, j, j][:, None]
        safe = np.where(pivot == 0, 1, pivot)
        # A zero pivot leaves its column unscaled, as getrf does (the matrix is singular).
        a[:, j + 1:, j] = np.where(pivot == 0, a[:, j + 1:, j], a[:, j + 1:, j] / safe)
        a[:, j + 1:, j + 1:] -= a[:, j + 1:, j:j + 1] * a[:, j:j + 1, j + 1:]
    perm = _pivots_to_permutation_kernel(pivots, permutation_size=m)
    return [a.reshape(x.shape), pivots.reshape((*batch, k)), perm.reshape((*batch, m))]


@lu_p.def_abstract_eval
def _lu_abstract_eval(x: ShapedArray) -> list[ShapedArray]:
    check_dtype("lu", x.dtype, FLOAT_OR_COMPLEX)
    if x.ndim < 2:
        raise ValueError("Argument to LU decomposition must have ndims >= 2")
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    # Every output keeps the operand's weak type, the integer pivots too (JAX 0.4.30 derives
    # them from the operand's aval).
    weak = x.weak_type
    return [ShapedArray(x.shape, x.dtype, weak),
            ShapedArray((*batch, min(m, n)), np.dtype(np.int32), weak),
            ShapedArray((*batch, m), np.dtype(np.int32), weak)]


def _permutation_matrix(perm: Array, dtype: np.dtype, weak_type: bool = False) -> Array:
    """One-hot rows: P[..., i, j] = (perm[..., i] == j), so P @ x == x[..., perm, :] (weakly
    typed when asked, so that P @ x keeps a weakly typed x's weak type, as x[perm] does)."""
    m = _shape(perm)[-1]
    shape = (*_shape(perm), m)
    cols = st.broadcasted_iota(np.int32, shape, len(shape) - 1)
    return st._convert_element_type(ew.eq(st.broadcast_in_dim(
        perm, shape, tuple(range(len(shape) - 1))), cols), dtype, weak_type)


def _lu_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    # P A = L U gives L^-1 P dA U^-1 = L^-1 dL + dU U^-1: strictly lower plus upper parts.
    (a,), (t,) = primals, tangents
    lu_, pivots, perm = lu_p.bind(a)
    t = ad.instantiate_zeros(t)
    aval = get_aval(a)
    batch, (m, n) = aval.shape[:-2], aval.shape[-2:]
    k = min(m, n)
    x = _mm(_permutation_matrix(perm, aval.dtype), t)
    nd = aval.ndim
    l_ = st.slice_in_dim(lu_, 0, k, axis=nd - 1)
    l_ = ew.add(_tril(l_, -1), _eye((*batch, m, k), aval.dtype))
    if m > k:
        extra = st.slice_in_dim(_eye((*batch, m, m), aval.dtype), k, m, axis=nd - 1)
        l_ = st.concatenate([l_, extra], nd - 1)
    u_ = _triu(st.slice_in_dim(lu_, 0, k, axis=nd - 2))
    if n > k:
        extra = st.slice_in_dim(_eye((*batch, n, n), aval.dtype), k, n, axis=nd - 2)
        u_ = st.concatenate([u_, extra], nd - 2)
    la = triangular_solve(l_, x, left_side=True, lower=True, unit_diagonal=True)
    lau = triangular_solve(u_, la, left_side=False, lower=False)
    lu_dot = ew.add(_mm(l_, _tril(lau, -1)), _mm(_triu(lau), u_))
    int_zero = Zero(ShapedArray(_shape(pivots), np.dtype(dtypes.float0)))
    perm_zero = Zero(ShapedArray(_shape(perm), np.dtype(dtypes.float0)))
    return [lu_, pivots, perm], [lu_dot, int_zero, perm_zero]


lu_p.def_impl(_lu_kernel)
lu_p.def_jvp(_lu_jvp)
lu_p.def_batch(_front_batch(lu_p))


def lu(x: Array) -> tuple[Array, Array, Array]:
    """LU decomposition with partial pivoting: `(lu, pivots, permutation)`.

    `lu` packs unit-lower `L` (below the diagonal) and `U`; `x[..., permutation, :] = L @ U`.

    >>> import numjax.numpy as jnp
    >>> lu(jnp.array([[1.0, 2.0], [3.0, 4.0]]))[2]
    Array([1, 0], dtype=int32)
    """
    out = lu_p.bind(x)
    return out[0], out[1], out[2]


lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")


def _pivots_to_permutation_kernel(pivots: Any, *, permutation_size: int) -> Any:
    pivots = np.asarray(pivots)
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    piv = pivots.reshape((math.prod(batch), k))
    perm = np.tile(np.arange(permutation_size, dtype=np.int32), (piv.shape[0], 1))
    rows = np.arange(piv.shape[0])
    for i in range(k):
        p = piv[:, i]
        tmp = perm[rows, p].copy()
        perm[rows, p] = perm[:, i]
        perm[:, i] = tmp
    return perm.reshape((*batch, permutation_size))


@lu_pivots_to_permutation_p.def_abstract_eval
def _pivots_abstract_eval(pivots: ShapedArray, *, permutation_size: int) -> ShapedArray:
    if pivots.dtype != np.int32:
        raise TypeError(f"lu_pivots_to_permutation requires pivots of dtype int32, got "
                        f"{pivots.dtype.name}")
    if pivots.ndim < 1:
        raise ValueError("Argument to lu_pivots_to_permutation must have rank >= 1 and "
                         f"dtype int32. Got shape={pivots.shape} and dtype={pivots.dtype}")
    if permutation_size < pivots.shape[-1]:
        raise ValueError(f"Output permutation size {permutation_size} has to exceed the "
                         "trailing dimension of the pivots. Got shape "
                         f"{pivots.shape}")
    return ShapedArray((*pivots.shape[:-1], permutation_size), np.dtype(np.int32),
                       pivots.weak_type)


lu_pivots_to_permutation_p.def_impl(_pivots_to_permutation_kernel)
ad.defjvp_zero(lu_pivots_to_permutation_p)
lu_pivots_to_permutation_p.def_batch(_front_batch(lu_pivots_to_permutation_p))


def lu_pivots_to_permutation(pivots: Array, permutation_size: int) -> Array:
    """The permutation made by applying LAPACK-style row swaps `pivots` to `arange(size)`.

    >>> import numjax.numpy as jnp
    >>> lu_pivots_to_permutation(jnp.array([2, 2, 2], jnp.int32), 4)
    Array([2, 0, 1, 3], dtype=int32)
    """
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=int(permutation_size))


# ---- qr ------------------------------------------------------------------------------------

qr_p = Primitive("qr")
qr_p.multiple_results = True


def _qr_kernel(x: Any, *, full_matrices: bool) -> list[Any]:
    x = np.asarray(x)
    _check_lapack_dtype(x, even_if_empty=False)
    m, n = x.shape[-2:]
    if x.size == 0:
        k = m if full_matrices else min(m, n)
        q = np.broadcast_to(np.eye(m, k, dtype=x.dtype), (*x.shape[:-2], m, k)).copy()
        return [q, np.zeros((*x.shape[:-2], k, n), x.dtype)]
    from scipy.linalg import get_lapack_funcs

    # LAPACK's geqrf, then orgqr/ungqr on the reflectors, as XLA:CPU calls them (NumPy's qr
    # rounds differently).
    def one(mat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        geqrf, orgqr = get_lapack_funcs(("geqrf", "ungqr" if mat.dtype.kind == "c" else "orgqr"),
                                        (mat,))
        packed, tau, _, _ = geqrf(mat)
        if m < n:
            reflectors = packed[:, :m]
        elif full_matrices:
            reflectors = np.zeros((m, m), mat.dtype)
            reflectors[:, :n] = packed
        else:
            reflectors = packed
        q, _, _ = orgqr(reflectors, tau)
        r = np.triu(packed if full_matrices or m < n else packed[:n, :n])
        return q, r

    q, r = _stacked(one, x)
    return [q, r]


@qr_p.def_abstract_eval
def _qr_abstract_eval(x: ShapedArray, *, full_matrices: bool) -> list[ShapedArray]:
    check_dtype("qr", x.dtype, FLOAT_OR_COMPLEX)
    if x.ndim < 2:
        raise ValueError("Argument to QR decomposition must have ndims >= 2")
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    k = m if full_matrices else min(m, n)
    return [ShapedArray((*batch, m, k), x.dtype, x.weak_type),
            ShapedArray((*batch, k, n), x.dtype, x.weak_type)]


def _qr_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, full_matrices: bool
            ) -> tuple[Any, Any]:
    # A = QR with Q^H dQ skew-Hermitian and dR R^-1 upper: split Q^H dA R^-1 accordingly.
    (x,), (dx,) = primals, tangents
    q, r = qr_p.bind(x, full_matrices=full_matrices)
    aval = get_aval(x)
    m, n = aval.shape[-2:]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError("Unimplemented case of QR decomposition derivative")
    dx = ad.instantiate_zeros(dx)
    dx_rinv = triangular_solve(r, dx)
    qt_dx_rinv = _mm(_mH(q), dx_rinv)
    lower = _tril(qt_dx_rinv, -1)
    do = ew.sub(lower, _mH(lower))
    if _is_complex(x):
        # The diagonal of Q^H dQ is purely imaginary for complex Q.
        imag_part = ew.sub(qt_dx_rinv, _as(cx.real(qt_dx_rinv), aval.dtype))
        do = ew.add(do, ew.mul(_eye(_shape(do), aval.dtype), imag_part))
    dq = ew.add(_mm(q, ew.sub(do, qt_dx_rinv)), dx_rinv)
    dr = _mm(ew.sub(qt_dx_rinv, do), r)
    return [q, r], [dq, dr]


qr_p.def_impl(_qr_kernel)
qr_p.def_jvp(_qr_jvp)
qr_p.def_batch(_front_batch(qr_p))


def qr(x: Array, *, full_matrices: bool = True) -> tuple[Array, Array]:
    """QR decomposition `x = q @ r`, `q` unitary (or with orthonormal columns), `r` upper.

    >>> import numjax.numpy as jnp
    >>> q, r = qr(jnp.array([[3.0, 1.0], [4.0, 2.0]]))
    >>> r.shape
    (2, 2)
    """
    q, r = qr_p.bind(x, full_matrices=bool(full_matrices))
    return q, r


geqrf_p = Primitive("geqrf")
geqrf_p.multiple_results = True


def _geqrf_kernel(x: Any) -> list[Any]:
    from scipy.linalg import get_lapack_funcs

    x = np.asarray(x)
    _check_lapack_dtype(x)

    def one(mat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        (fn,) = get_lapack_funcs(("geqrf",), (mat,))
        packed, tau, _, _ = fn(mat)
        return packed, tau

    k = min(x.shape[-2:])
    if x.size == 0:  # LAPACK is not called on empty matrices
        return [x.copy(), np.zeros((*x.shape[:-2], k), x.dtype)]
    packed, taus = _stacked(one, x)
    return [packed, taus]


@geqrf_p.def_abstract_eval
def _geqrf_abstract_eval(x: ShapedArray) -> list[ShapedArray]:
    check_dtype("geqrf", x.dtype, FLOAT_OR_COMPLEX)
    if x.ndim < 2:
        raise ValueError("Argument to QR decomposition must have ndims >= 2")
    k = min(x.shape[-2:])
    return [ShapedArray(x.shape, x.dtype, x.weak_type),
            ShapedArray((*x.shape[:-2], k), x.dtype, x.weak_type)]


geqrf_p.def_impl(_geqrf_kernel)
geqrf_p.def_batch(_front_batch(geqrf_p))
geqrf_p.declare_undefined("jvp", "Differentiation rule for 'geqrf' not implemented",
                          NotImplementedError)


def geqrf(x: Array) -> tuple[Array, Array]:
    """LAPACK's packed QR factorization: R in the upper triangle, the Householder reflectors
    below it, and their scale factors `taus` (`jnp.linalg.qr(mode="raw")` transposes the first).

    >>> import numjax.numpy as jnp
    >>> a, taus = geqrf(jnp.array([[3.0, 1.0], [4.0, 2.0]]))
    >>> a.shape, taus.shape
    ((2, 2), (2,))
    """
    a, taus = geqrf_p.bind(x)
    return a, taus


tridiagonal_p = Primitive("tridiagonal")
tridiagonal_p.multiple_results = True


def _tridiagonal_kernel(x: Any, *, lower: bool) -> list[Any]:
    from scipy.linalg import get_lapack_funcs

    x = np.asarray(x)
    name = "hetrd" if x.dtype.kind == "c" else "sytrd"

    def one(mat: np.ndarray) -> tuple[np.ndarray, ...]:
        (fn,) = get_lapack_funcs((name,), (mat,))
        packed, d, e, taus, _ = fn(mat, lower=int(lower))
        return packed, d, e, taus

    return _stacked(one, x)


@tridiagonal_p.def_abstract_eval
def _tridiagonal_abstract_eval(a: ShapedArray, *, lower: bool) -> list[ShapedArray]:
    check_square_matrices("tridiagonal", a)
    if a.shape[-1] == 0:
        raise TypeError("tridiagonal requires the last two dimensions of a to be non-zero, got "
                        f"a.shape of {a.shape}.")
    batch, n = a.shape[:-2], a.shape[-1]
    real = np.dtype(a.dtype.char.lower()) if a.dtype.kind == "c" else a.dtype
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, n), real),
            ShapedArray((*batch, n - 1), real), ShapedArray((*batch, n - 1), a.dtype)]


tridiagonal_p.def_impl(_tridiagonal_kernel)
tridiagonal_p.def_batch(_front_batch(tridiagonal_p))
tridiagonal_p.declare_undefined("jvp", "Differentiation rule for 'tridiagonal' not implemented",
                                NotImplementedError)


def tridiagonal(a: Array, *, lower: bool = True) -> tuple[Array, Array, Array, Array]:
    """Reduce a symmetric/Hermitian matrix to tridiagonal form (LAPACK's sytrd/hetrd):
    `(a, d, e, taus)`, `a` holding the tridiagonal matrix and the Householder reflectors in
    the `lower` (else upper) triangle, `d` its diagonal, `e` its first sub-/superdiagonal and
    `taus` the reflectors' scale factors.

    >>> import numjax.numpy as jnp
    >>> _, d, e, _ = tridiagonal(jnp.array([[2.0, 1.0], [1.0, 3.0]]))
    >>> d, e
    (Array([2., 3.], dtype=float32), Array([1.], dtype=float32))
    """
    packed, d, e, taus = tridiagonal_p.bind(a, lower=bool(lower))
    return packed, d, e, taus


householder_product_p = Primitive("householder_product")


def _householder_product_kernel(a: Any, taus: Any) -> Any:
    from scipy.linalg import get_lapack_funcs

    a, taus = np.asarray(a), np.asarray(taus)
    _check_lapack_dtype(a, even_if_empty=False)
    name = "ungqr" if a.dtype.kind == "c" else "orgqr"
    tb = taus.reshape((math.prod(taus.shape[:-1]), taus.shape[-1]))

    counter = iter(range(tb.shape[0]))

    def one(m: np.ndarray) -> tuple[np.ndarray]:
        (fn,) = get_lapack_funcs((name,), (m,))
        q, _, info = fn(m, tb[next(counter)])
        return (q,)

    return _stacked(one, a)[0]


@householder_product_p.def_abstract_eval
def _householder_product_abstract_eval(a: ShapedArray, taus: ShapedArray) -> ShapedArray:
    if a.ndim < 2:
        raise ValueError("Argument to Householder product must have ndims >= 2")
    m, n = a.shape[-2:]
    if taus.shape[:-1] != a.shape[:-2] or taus.shape[-1] > n or m < n:
        raise ValueError("Type mismatch for Householder product: a has shape "
                         f"{a.shape} and taus has shape {taus.shape}")
    return ShapedArray(a.shape, a.dtype, a.weak_type)


def _householder_product_batch(args: Sequence[Any], dims: Sequence[Any]) -> tuple[Any, Any]:
    a, taus = args
    da, dt = dims
    size = _shape(a)[da] if da is not not_mapped else _shape(taus)[dt]
    out = [move_dim(x, d, 0, size) for x, d in ((a, da), (taus, dt))]
    return householder_product_p.bind(*out), 0


householder_product_p.def_impl(_householder_product_kernel)
householder_product_p.def_batch(_householder_product_batch)
householder_product_p.declare_undefined(
    "jvp", "Differentiation rule for 'householder_product' not implemented",
    NotImplementedError)


def householder_product(a: Array, taus: Array) -> Array:
    """The orthogonal matrix from Householder reflectors (LAPACK's orgqr/ungqr).

    >>> import numjax.numpy as jnp
    >>> householder_product(jnp.zeros((3, 2)), jnp.zeros((2,))).shape
    (3, 2)
    """
    return householder_product_p.bind(a, taus)


# ---- svd -----------------------------------------------------------------------------------

svd_p = Primitive("svd")
svd_p.multiple_results = True


def _svd_kernel(x: Any, *, full_matrices: bool, compute_uv: bool,
                subset_by_index: tuple[int, int] | None) -> list[Any]:
    x = np.asarray(x)
    _check_lapack_dtype(x, even_if_empty=False)
    m, n = x.shape[-2:]
    k = min(m, n)
    if x.size == 0:
        avals = _svd_abstract_eval(ShapedArray(x.shape, x.dtype), full_matrices=full_matrices,
                                   compute_uv=compute_uv, subset_by_index=subset_by_index)
        outs = [np.zeros(a.shape, a.dtype) for a in avals]
        for o in outs[1:]:
            o[...] = np.eye(*o.shape[-2:], dtype=o.dtype)
        return outs
    from scipy.linalg import get_lapack_funcs

    # LAPACK's gesdd per matrix, as XLA:CPU calls it (NumPy's svd rounds differently).
    def one(mat: np.ndarray) -> tuple[np.ndarray, ...]:
        (gesdd,) = get_lapack_funcs(("gesdd",), (mat,))
        u, s, vt, info = gesdd(mat, compute_uv=int(compute_uv),
                               full_matrices=int(full_matrices))
        if info != 0:  # XLA reports a failed decomposition as NaNs
            s, u, vt = (np.full_like(o, np.nan) for o in (s, u, vt))
        return (s, u, vt) if compute_uv else (s,)

    if not compute_uv:
        (s,) = _stacked(one, x)
        lo, hi = subset_by_index or (0, k)
        return [s[..., lo:hi]]
    s, u, vt = _stacked(one, x)
    if subset_by_index is not None:
        lo, hi = subset_by_index
        s, u, vt = s[..., lo:hi], u[..., :, lo:hi], vt[..., lo:hi, :]
    return [s, u, vt]


@svd_p.def_abstract_eval
def _svd_abstract_eval(x: ShapedArray, *, full_matrices: bool, compute_uv: bool,
                       subset_by_index: tuple[int, int] | None) -> list[ShapedArray]:
    check_dtype("svd", x.dtype, FLOAT_OR_COMPLEX)
    if x.ndim < 2:
        # JAX 0.4.30 has no rank check here: reading shape[-2] of a 0-d or 1-d operand fails.
        raise IndexError("tuple index out of range")
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    k = min(m, n)
    rank = k
    if subset_by_index is not None:
        lo, hi = subset_by_index
        if full_matrices and subset_by_index != (0, k):
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        if not 0 <= lo < hi <= k:
            raise ValueError(f"Invalid subset_by_index {subset_by_index} for a matrix with "
                             f"{k} singular values")
        rank = hi - lo
    s = ShapedArray((*batch, rank), _real_dtype(x.dtype), x.weak_type)
    if not compute_uv:
        return [s]
    ucols = m if full_matrices else rank
    vrows = n if full_matrices else rank
    return [s, ShapedArray((*batch, m, ucols), x.dtype, x.weak_type),
            ShapedArray((*batch, vrows, n), x.dtype, x.weak_type)]


def _safe_reciprocal(x: Array) -> Array:
    """1/x where x != 0, else 0."""
    aval = get_aval(x)
    zero = ew.eq(x, st.full(aval.shape, 0, aval.dtype))
    one = st.full(aval.shape, 1, aval.dtype)
    return st.select(zero, st.full(aval.shape, 0, aval.dtype),
                     ew.div(one, st.select(zero, one, x)))


def _svd_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, full_matrices: bool,
             compute_uv: bool, subset_by_index: tuple[int, int] | None) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    if compute_uv and full_matrices:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices")
    if subset_by_index is not None:
        raise NotImplementedError("Singular value decomposition JVP with subset_by_index")
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True, subset_by_index=None)
    da = ad.instantiate_zeros(da)
    dtype = get_aval(a).dtype
    m, n = _shape(a)[-2:]
    ut, v = _mH(u), _mH(vt)
    ds_mat = _mm(_mm(ut, da), v)
    ds = cx.real(_diag(ds_mat)) if _is_complex(a) else _diag(ds_mat)
    if not compute_uv:
        return [s], [ds]
    # dU, dV from the off-diagonal part: F_ij = 1 / (s_j^2 - s_i^2) (0 where equal).
    s_row = _row(s)
    s_col = _mT(s_row)
    shape = (*_shape(s), _shape(s)[-1])
    sr, sc = _bcast(s_row, shape), _bcast(s_col, shape)
    f = _safe_reciprocal(ew.mul(ew.add(sr, sc), ew.sub(sr, sc)))
    f = _as(f, dtype)
    s_row_c = _as(sr, dtype)
    s_col_c = _as(sc, dtype)
    dss = ew.mul(s_row_c, ds_mat)
    sds = ew.mul(s_col_c, ds_mat)
    s_inv = _as(_safe_reciprocal(s), dtype)
    s_inv_mat = ew.mul(_eye(shape, dtype), _bcast(_row(s_inv), shape))
    half = np.array(0.5, dtype)
    dudv_diag = ew.mul(ew.mul(ew.sub(ds_mat, _mH(ds_mat)), half), s_inv_mat)
    du = _mm(u, ew.add(ew.mul(f, ew.add(dss, _mH(dss))), dudv_diag))
    dv = _mm(v, ew.mul(f, ew.add(sds, _mH(sds))))
    if m > n:
        dav = _mm(da, v)
        resid = ew.sub(dav, _mm(u, _mm(ut, dav)))
        du = ew.add(du, ew.div(resid, _bcast(_as(s_row, dtype), _shape(resid))))
    if n > m:
        dahu = _mm(_mH(da), u)
        resid = ew.sub(dahu, _mm(v, _mm(vt, dahu)))
        dv = ew.add(dv, ew.div(resid, _bcast(_as(s_row, dtype), _shape(resid))))
    return [s, u, vt], [ds, du, _mH(dv)]


svd_p.def_impl(_svd_kernel)
svd_p.def_jvp(_svd_jvp)
svd_p.def_batch(_front_batch(svd_p))


def svd(x: Array, *, full_matrices: bool = True, compute_uv: bool = True,
        subset_by_index: tuple[int, int] | None = None) -> Any:
    """Singular value decomposition: `(u, s, vh)` with `x = u @ diag(s) @ vh`, or `s`.

    >>> import numjax.numpy as jnp
    >>> svd(jnp.array([[3.0, 0.0], [0.0, 4.0]]), compute_uv=False)
    Array([4., 3.], dtype=float32)
    """
    sub = None if subset_by_index is None else (int(subset_by_index[0]),
                                                int(subset_by_index[1]))
    outs = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                      subset_by_index=sub)
    if compute_uv:
        s, u, vt = outs
        return u, s, vt
    return outs[0]


# ---- eigh ----------------------------------------------------------------------------------

eigh_p = Primitive("eigh")
eigh_p.multiple_results = True


def _eigh_kernel(x: Any, *, lower: bool, sort_eigenvalues: bool,
                 subset_by_index: tuple[int, int] | None) -> list[Any]:
    x = np.asarray(x)
    _check_lapack_dtype(x)
    if x.size == 0:
        n = x.shape[-1]
        k = n if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
        return [np.zeros((*x.shape[:-1], k), x.dtype),
                np.zeros((*x.shape[:-2], k), _real_dtype(x.dtype))]
    from scipy.linalg import get_lapack_funcs

    # LAPACK's syevd/heevd per matrix (ascending eigenvalues), as XLA:CPU calls it; NumPy's
    # eigh rounds differently.
    def one(mat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        (evd,) = get_lapack_funcs(("heevd" if mat.dtype.kind == "c" else "syevd",), (mat,))
        w, v, info = evd(mat, compute_v=1, lower=int(lower))
        if info != 0:  # XLA reports a failed decomposition as NaNs
            w, v = np.full_like(w, np.nan), np.full_like(v, np.nan)
        return w, v

    w, v = _stacked(one, x)
    if subset_by_index is not None:
        lo, hi = subset_by_index
        w, v = w[..., lo:hi], v[..., :, lo:hi]
    return [v, w]


@eigh_p.def_abstract_eval
def _eigh_abstract_eval(x: ShapedArray, *, lower: bool, sort_eigenvalues: bool,
                        subset_by_index: tuple[int, int] | None) -> list[ShapedArray]:
    check_dtype("eigh", x.dtype, FLOAT_OR_COMPLEX)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        # JAX 0.4.30's text, with no space after the comma.
        raise ValueError("Argument to symmetric eigendecomposition must have shape [..., n, "
                         f"n],got shape {x.shape}")
    n = x.shape[-1]
    k = n
    if subset_by_index is not None:
        lo, hi = subset_by_index
        if not 0 <= lo < hi <= n:
            raise ValueError(f"Invalid subset_by_index {subset_by_index} for a matrix of "
                             f"size {n}")
        k = hi - lo
    return [ShapedArray((*x.shape[:-1], k), x.dtype, x.weak_type),
            ShapedArray((*x.shape[:-2], k), _real_dtype(x.dtype), x.weak_type)]


def _eigh_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, lower: bool,
              sort_eigenvalues: bool, subset_by_index: tuple[int, int] | None
              ) -> tuple[Any, Any]:
    # With A = V diag(w) V^H: dw = diag(V^H dA V), dV = V (F * V^H dA V) with
    # F_ij = 1 / (w_j - w_i) off the diagonal.
    (a,), (da,) = primals, tangents
    if subset_by_index is not None:
        raise NotImplementedError("Derivatives not defined with subset_by_index")
    v, w_real = eigh_p.bind(a, lower=lower, sort_eigenvalues=sort_eigenvalues,
                            subset_by_index=None)
    da = ad.instantiate_zeros(da)
    dtype = get_aval(a).dtype
    w = _as(w_real, dtype)
    shape = _shape(a)
    eye = _eye(shape, dtype)
    diffs = ew.sub(_bcast(_row(w), shape), _bcast(_col(w), shape))
    fmat = ew.sub(ew.div(st.full(shape, 1, dtype), ew.add(eye, diffs)), eye)
    vdag_da_v = _mm(_mm(_mH(v), da), v)
    dv = _mm(v, ew.mul(fmat, vdag_da_v))
    dw = _diag(vdag_da_v)
    dw = cx.real(dw) if _is_complex(a) else dw
    return [v, w_real], [dv, dw]


eigh_p.def_impl(_eigh_kernel)
eigh_p.def_jvp(_eigh_jvp)
eigh_p.def_batch(_front_batch(eigh_p))


def eigh(x: Array, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True,
         subset_by_index: tuple[int, int] | None = None) -> tuple[Array, Array]:
    """Eigendecomposition of Hermitian `x`: `(v, w)` with `x @ v = v * w`, `w` ascending.

    >>> import numjax.numpy as jnp
    >>> eigh(jnp.array([[2.0, 0.0], [0.0, 1.0]]))[1]
    Array([1., 2.], dtype=float32)
    """
    if symmetrize_input:
        x = _symmetrize(x)  # first, as JAX (see cholesky): the shape is checked after
    sub = None if subset_by_index is None else (int(subset_by_index[0]),
                                                int(subset_by_index[1]))
    v, w = eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues),
                       subset_by_index=sub)
    return v, w


# ---- eig -----------------------------------------------------------------------------------

eig_p = Primitive("eig")
eig_p.multiple_results = True


def _eig_kernel(x: Any, *, compute_left_eigenvectors: bool,
                compute_right_eigenvectors: bool) -> list[Any]:
    from scipy.linalg import eig as scipy_eig

    x = np.asarray(x)
    _check_lapack_dtype(x)
    out_dtype = _complex_dtype(x.dtype)

    def one(m: np.ndarray) -> tuple[np.ndarray, ...]:
        if not np.all(np.isfinite(m)):
            nan = np.full(m.shape, np.nan, out_dtype)
            return (nan[0], nan, nan)
        w, vl, vr = scipy_eig(m, left=True, right=True, check_finite=False)
        # geev normalizes each eigenvector to unit 2-norm; SciPy only does so for reals.
        vl = vl / np.linalg.norm(vl, axis=0, keepdims=True)
        vr = vr / np.linalg.norm(vr, axis=0, keepdims=True)
        return (w.astype(out_dtype), vl.astype(out_dtype), vr.astype(out_dtype))

    w, vl, vr = _stacked(one, x)
    out = [w]
    if compute_left_eigenvectors:
        out.append(vl)
    if compute_right_eigenvectors:
        out.append(vr)
    return out


@eig_p.def_abstract_eval
def _eig_abstract_eval(x: ShapedArray, *, compute_left_eigenvectors: bool,
                       compute_right_eigenvectors: bool) -> list[ShapedArray]:
    check_dtype("eig", x.dtype, FLOAT_OR_COMPLEX)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError("Argument to nonsymmetric eigendecomposition must have shape [..., "
                         f"n, n], got shape {x.shape}")
    dtype = _complex_dtype(x.dtype)
    out = [ShapedArray(x.shape[:-1], dtype, x.weak_type)]
    out += [ShapedArray(x.shape, dtype, x.weak_type)] * (int(compute_left_eigenvectors)
                                            + int(compute_right_eigenvectors))
    return out


def _eig_jvp(primals: Sequence[Any], tangents: Sequence[Any], *,
             compute_left_eigenvectors: bool, compute_right_eigenvectors: bool
             ) -> tuple[Any, Any]:
    if compute_left_eigenvectors or compute_right_eigenvectors:
        raise NotImplementedError(
            "The derivatives of eigenvectors are not implemented, only eigenvalues. See "
            "https://github.com/google/jax/issues/2748 for discussion.")
    # dw = diag(V^-1 dA V) for A = V diag(w) V^-1.
    (a,), (da,) = primals, tangents
    w, v = eig_p.bind(a, compute_left_eigenvectors=False, compute_right_eigenvectors=True)
    dtype = get_aval(v).dtype
    da = _as(ad.instantiate_zeros(da), dtype)
    dw = _diag(solve(v, _mm(da, v)))
    return [w], [dw]


eig_p.def_impl(_eig_kernel)
eig_p.def_jvp(_eig_jvp)
eig_p.def_batch(_front_batch(eig_p))


def eig(x: Array, *, compute_left_eigenvectors: bool = True,
        compute_right_eigenvectors: bool = True) -> list[Array]:
    """Eigendecomposition of a general square matrix: `[w, vl, vr]` (complex).

    `x @ vr = vr * w` and `vl^H @ x = w[:, None] * vl^H`; eigenvectors have unit 2-norm.

    >>> import numjax.numpy as jnp
    >>> eig(jnp.array([[2.0, 0.0], [0.0, 3.0]]), compute_left_eigenvectors=False)[0]
    Array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    return list(eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                           compute_right_eigenvectors=bool(compute_right_eigenvectors)))


# ---- schur ---------------------------------------------------------------------------------

schur_p = Primitive("schur")
schur_p.multiple_results = True


def _schur_kernel(x: Any, *, compute_schur_vectors: bool, sort_eig_vals: bool,
                  select_callable: Any) -> list[Any]:
    from scipy.linalg import schur as scipy_schur

    x = np.asarray(x)
    _check_lapack_dtype(x)
    output = "complex" if x.dtype.kind == "c" else "real"

    def one(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if sort_eig_vals and select_callable is not None:
            t, z, _ = scipy_schur(m, output=output, sort=select_callable)
        else:
            t, z = scipy_schur(m, output=output)
        return t.astype(x.dtype), z.astype(x.dtype)

    t, z = _stacked(one, x)
    return [t, z] if compute_schur_vectors else [t]


@schur_p.def_abstract_eval
def _schur_abstract_eval(x: ShapedArray, *, compute_schur_vectors: bool, sort_eig_vals: bool,
                         select_callable: Any) -> list[ShapedArray]:
    check_dtype("schur", x.dtype, FLOAT_OR_COMPLEX)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError("Argument to Schur decomposition must have shape [..., n, n], got "
                         f"shape {x.shape}")
    out = ShapedArray(x.shape, x.dtype, x.weak_type)
    return [out, out] if compute_schur_vectors else [out]


schur_p.def_impl(_schur_kernel)
schur_p.def_batch(_front_batch(schur_p))
schur_p.declare_undefined("jvp", "Schur decomposition is not differentiable (as in JAX).")


def schur(x: Array, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable: Callable[..., Any] | None = None) -> Any:
    """Schur decomposition `x = z @ t @ z^H` (real Schur form for real input), via SciPy.

    Returns `(t, z)`, or `[t]` without Schur vectors, as JAX does.

    >>> import numjax.numpy as jnp
    >>> schur(jnp.eye(2))[0]
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    outs = schur_p.bind(x, compute_schur_vectors=bool(compute_schur_vectors),
                        sort_eig_vals=bool(sort_eig_vals), select_callable=select_callable)
    return (outs[0], outs[1]) if compute_schur_vectors else list(outs)


# ---- tridiagonal_solve ---------------------------------------------------------------------

tridiagonal_solve_p = Primitive("tridiagonal_solve")


def _tridiagonal_solve_kernel(dl: Any, d: Any, du: Any, b: Any) -> Any:
    """Thomas algorithm (gtsv without pivoting, as cuSPARSE/XLA's), vectorized over batch."""
    dl, d, du, b = (np.asarray(v) for v in (dl, d, du, b))
    m = d.shape[-1]
    cp = np.zeros(d.shape, d.dtype)
    dp = np.zeros(b.shape, b.dtype)
    x = np.zeros(b.shape, b.dtype)
    if m == 0:
        return x
    cp[..., 0] = du[..., 0] / d[..., 0]
    dp[..., 0, :] = b[..., 0, :] / d[..., 0, None]
    for i in range(1, m):
        denom = d[..., i] - dl[..., i] * cp[..., i - 1]
        cp[..., i] = du[..., i] / denom
        dp[..., i, :] = (b[..., i, :] - dl[..., i, None] * dp[..., i - 1, :]) / denom[..., None]
    x[..., m - 1, :] = dp[..., m - 1, :]
    for i in range(m - 2, -1, -1):
        x[..., i, :] = dp[..., i, :] - cp[..., i, None] * x[..., i + 1, :]
    return x


@tridiagonal_solve_p.def_abstract_eval
def _tridiagonal_solve_abstract_eval(dl: ShapedArray, d: ShapedArray, du: ShapedArray,
                                     b: ShapedArray) -> ShapedArray:
    if not (dl.dtype == d.dtype == du.dtype == b.dtype):
        raise ValueError("tridiagonal_solve: dl, d, du and b must have the same dtype, got "
                         f"{dl.dtype}, {d.dtype}, {du.dtype}, {b.dtype}")
    check_dtype("tridiagonal_solve", b.dtype, FLOAT_OR_COMPLEX)
    if b.ndim < 2 or not (dl.shape == d.shape == du.shape == b.shape[:-1]):
        raise ValueError("tridiagonal_solve: dl, d and du must have shape [..., m] and b "
                         f"shape [..., m, n], got {dl.shape}, {d.shape}, {du.shape}, "
                         f"{b.shape}")
    return ShapedArray(b.shape, b.dtype, all(v.weak_type for v in (dl, d, du, b)))


def _tridiagonal_solve_batch(args: Sequence[Any], dims: Sequence[Any]) -> tuple[Any, Any]:
    size = next(_shape(x)[d] for x, d in zip(args, dims, strict=False) if d is not not_mapped)
    out = [move_dim(x, d, 0, size) for x, d in zip(args, dims, strict=True)]
    return tridiagonal_solve_p.bind(*out), 0


def _tridiagonal_matmul(dl: Array, d: Array, du: Array, x: Array) -> Array:
    """T @ x for the tridiagonal T given by its three diagonals."""
    nd = _ndim(x)
    m = _shape(x)[-2]
    out = _bmul(_col(d), x)
    if m > 1:
        below = st.slice_in_dim(x, 0, m - 1, axis=nd - 2)
        above = st.slice_in_dim(x, 1, m, axis=nd - 2)
        zero = st.full((*_shape(x)[:-2], 1, _shape(x)[-1]), 0, get_aval(x).dtype)
        shifted_down = st.concatenate([zero, below], nd - 2)  # row i holds x[i-1]
        shifted_up = st.concatenate([above, zero], nd - 2)  # row i holds x[i+1]
        out = ew.add(out, _bmul(_col(dl), shifted_down))
        out = ew.add(out, _bmul(_col(du), shifted_up))
    return out


def _tridiagonal_solve_jvp(primals: Sequence[Any], tangents: Sequence[Any]
                           ) -> tuple[Any, Any]:
    # T x = b gives dx = T^-1 (db - dT x).
    dl, d, du, b = primals
    x = tridiagonal_solve_p.bind(dl, d, du, b)
    tdl, td, tdu, tb = (ad.instantiate_zeros(t) for t in tangents)
    rhs = ew.sub(tb, _tridiagonal_matmul(tdl, td, tdu, x))
    return x, tridiagonal_solve_p.bind(dl, d, du, rhs)


def _tridiagonal_solve_transpose(ct: Any, dl: Any, d: Any, du: Any, b: Any) -> list[Any]:
    # b -> T^-1 b is linear in b (the jvp binds it so); its transpose solves with T^T, whose
    # sub-diagonal is du shifted down one and super-diagonal dl shifted up one (the unused
    # entries dl[..., 0] and du[..., -1] become zeros).
    assert ad.is_undefined_primal(b) and not any(
        ad.is_undefined_primal(v) for v in (dl, d, du))
    if type(ct) is Zero:
        return [None, None, None, Zero(b.aval)]
    m = _shape(d)[-1]
    if m == 0:
        return [None, None, None, ct]
    nd = _ndim(d)
    zero = st.full((*_shape(d)[:-1], 1), 0, get_aval(d).dtype)
    dl_t = st.concatenate([zero, st.slice_in_dim(du, 0, m - 1, axis=nd - 1)], nd - 1)
    du_t = st.concatenate([st.slice_in_dim(dl, 1, m, axis=nd - 1), zero], nd - 1)
    return [None, None, None, tridiagonal_solve_p.bind(dl_t, d, du_t, ct)]


tridiagonal_solve_p.def_impl(_tridiagonal_solve_kernel)
tridiagonal_solve_p.def_batch(_tridiagonal_solve_batch)
tridiagonal_solve_p.def_jvp(_tridiagonal_solve_jvp)
tridiagonal_solve_p.def_transpose(_tridiagonal_solve_transpose)


def tridiagonal_solve(dl: Array, d: Array, du: Array, b: Array) -> Array:
    """Solve the tridiagonal system `T @ x = b`; `dl[..., 0]` and `du[..., -1]` are unused.

    >>> import numjax.numpy as jnp
    >>> tridiagonal_solve(jnp.zeros(2), jnp.full(2, 2.0), jnp.zeros(2), jnp.ones((2, 1)))
    Array([[0.5],
           [0.5]], dtype=float32)
    """
    return tridiagonal_solve_p.bind(dl, d, du, b)


# ---- solve: the LU-based general solve shared by eig's jvp and jnp.linalg --------------------


def solve(a: Array, b: Array) -> Array:
    """Solve `a @ x = b` for square `a` (..., n, n) and `b` (..., n, k) with equal batch dims,
    through `lu` and two triangular solves (so it differentiates in both arguments)."""
    lu_, _, perm = lu(a)
    b_aval = get_aval(b)
    pb = _mm(_permutation_matrix(perm, b_aval.dtype, b_aval.weak_type), b)
    y = triangular_solve(lu_, pb, left_side=True, lower=True, unit_diagonal=True)
    return triangular_solve(lu_, y, left_side=True, lower=False)
