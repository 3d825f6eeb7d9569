"""Krylov solvers for `A x = b` with `A` given as a function: JAX 0.4.30's
`jax.scipy.sparse.linalg` (cg, bicgstab, gmres).

`b`, `x0` and the iterates may be any pytree of arrays; inner products sum over the leaves.
Each solver runs inside `lax.custom_linear_solve`, so derivatives with respect to `b` and to
whatever `A` closes over come from solving again (with the transposed operator) instead of
differentiating through the iterations; loops are `lax.while_loop`s, so the solvers jit and
vmap.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.api.device_put import device_put
from numjax._src.control_flow.loops import fori_loop, while_loop
from numjax._src.control_flow.solves import custom_linear_solve
from numjax._src.dtypes import finfo, result_type
from numjax._src.lax import lax as lax_internal
from numjax._src.lax.dot import Precision
from numjax._src.lax.elementwise import rsqrt
from numjax._src.numpy.complex_fns import conj, imag, iscomplexobj, real
from numjax._src.numpy.creation import asarray, eye, zeros, zeros_like
from numjax._src.numpy.einsum import einsum
from numjax._src.numpy.lax_numpy import dot, vdot, where
from numjax._src.numpy.padding import pad
from numjax._src.numpy.shape import shape as jnp_shape
from numjax._src.numpy.shape import stack
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import isnan, logical_and, logical_not, maximum, minimum, sqrt, square
from numjax._src.runtime.array import Array as ArrayType
from numjax._src.scipy.linalg import solve, solve_triangular
from numjax._src.tree_util import Partial
from numjax._src.tree_util import user_tree_leaves as tree_leaves
from numjax._src.tree_util import user_tree_map as tree_map
from numjax._src.tree_util import user_tree_structure as tree_structure
from numjax._src.typing import Array

__all__ = ["bicgstab", "cg", "gmres"]

PyTree = Any

_HIGHEST = Precision.HIGHEST


# ---- pytree vector arithmetic --------------------------------------------------------------


def _dot(a: Array, b: Array) -> Array:
    return dot(a, b, precision=_HIGHEST)


def _vdot(a: Array, b: Array) -> Array:
    return vdot(a, b, precision=_HIGHEST)


def _vdot_real_part(x: Array, y: Array) -> Array:
    """Re <x, y>, computed without forming complex products."""
    out = _vdot(real(x), real(y))
    if iscomplexobj(x) or iscomplexobj(y):
        out = out + _vdot(imag(x), imag(y))
    return out


def _vdot_real_tree(x: PyTree, y: PyTree) -> Array:
    return sum(tree_leaves(tree_map(_vdot_real_part, x, y)))


def _vdot_tree(x: PyTree, y: PyTree) -> Array:
    return sum(tree_leaves(tree_map(_vdot, x, y)))


def _norm(x: PyTree) -> Array:
    leaves = tree_leaves(x)
    return sqrt(sum(_vdot_real_part(v, v) for v in leaves))


def _mul(scalar: Array, tree: PyTree) -> PyTree:
    return tree_map(lambda v: scalar * v, tree)


def _add(x: PyTree, y: PyTree) -> PyTree:
    return tree_map(operator.add, x, y)


def _sub(x: PyTree, y: PyTree) -> PyTree:
    return tree_map(operator.sub, x, y)


def _result_type(tree: PyTree) -> tuple[np.dtype, bool]:
    """The promoted (dtype, weak_type) of the leaves."""
    dtype, weak = dtypes.result_type(*tree_leaves(tree), return_weak_type_flag=True)
    return np.dtype(dtype), weak


# A Partial (a pytree with no leaves) so the default preconditioner is a valid static value
# and can be recognized with `is`.
_identity = Partial(lambda x: x)


def _normalize_matvec(f: Any) -> Callable[[PyTree], PyTree]:
    """A linear operator given as a function, a square matrix, or an object with @."""
    if callable(f):
        return f
    if isinstance(f, np.ndarray | ArrayType):
        shape = jnp_shape(f)
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: "
                             f"{shape}")
        return functools.partial(_dot, f)
    if hasattr(f, "__matmul__"):
        if hasattr(f, "shape") and len(f.shape) != 2 or f.shape[0] != f.shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: "
                             f"{f.shape}")
        return functools.partial(operator.matmul, f)
    raise TypeError(f"linear operator must be either a function or ndarray: {f}")


def _shapes(tree: PyTree) -> list[tuple[int, ...]]:
    return [jnp_shape(v) for v in tree_leaves(tree)]


# ---- conjugate gradients and BiCGSTAB ------------------------------------------------------


def _cg_solve(A: Callable[[PyTree], PyTree], b: PyTree, x0: PyTree, *, maxiter: int,
              tol: float = 1e-5, atol: float = 0.0,
              M: Callable[[PyTree], PyTree] = _identity) -> PyTree:
    # Stop once |r|^2 <= max(tol^2 |b|^2, atol^2) (SciPy's criterion).
    atol2 = maximum(square(tol) * _vdot_real_tree(b, b), square(atol))
    r0 = _sub(b, A(x0))
    p0 = z0 = M(r0)
    dtype = result_type(*tree_leaves(p0))
    gamma0 = _vdot_real_tree(r0, z0).astype(dtype)

    def cond(state: tuple[Any, ...]) -> Array:
        _, r, gamma, _, k = state
        # Without a preconditioner gamma = <r, z> is already |r|^2.
        rs = gamma.real if M is _identity else _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
        x, r, gamma, p, k = state
        ap = A(p)
        alpha = gamma / _vdot_real_tree(p, ap).astype(dtype)
        x = _add(x, _mul(alpha, p))
        r = _sub(r, _mul(alpha, ap))
        z = M(r)
        gamma_new = _vdot_real_tree(r, z).astype(dtype)
        p = _add(z, _mul(gamma_new / gamma, p))
        return x, r, gamma_new, p, k + 1

    x, *_ = while_loop(cond, body, (x0, r0, gamma0, p0, 0))
    return x


def _bicgstab_solve(A: Callable[[PyTree], PyTree], b: PyTree, x0: PyTree, *, maxiter: int,
                    tol: float = 1e-5, atol: float = 0.0,
                    M: Callable[[PyTree], PyTree] = _identity) -> PyTree:
    atol2 = maximum(square(tol) * _vdot_real_tree(b, b), square(atol))

    def cond(state: tuple[Any, ...]) -> Array:
        r, k = state[1], state[-1]
        # k < 0 flags a breakdown (rho, alpha or omega vanished).
        return (_vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)

    def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
        x, r, rhat, alpha, omega, rho, p, q, k = state
        rho_new = _vdot_tree(rhat, r)
        beta = rho_new / rho * alpha / omega
        p = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
        phat = M(p)
        q = A(phat)
        alpha = rho_new / _vdot_tree(rhat, q)
        s = _sub(r, _mul(alpha, q))
        # Converged halfway: take the half step and skip the stabilizing one.
        done = _vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega = _vdot_tree(t, s) / _vdot_tree(t, t)
        half = _add(x, _mul(alpha, phat))
        x = tree_map(functools.partial(where, done), half, _add(half, _mul(omega, shat)))
        r = tree_map(functools.partial(where, done), s, _sub(s, _mul(omega, t)))
        k = where((omega == 0) | (alpha == 0), -11, k + 1)
        k = where(rho_new == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_new, p, q, k

    r0 = _sub(b, A(x0))
    one = lax_internal._convert_element_type(1, *_result_type(b))
    state = (x0, r0, r0, one, one, one, r0, r0, 0)
    x, *_ = while_loop(cond, body, state)
    return x


def _isolve(solve_fn: Callable[..., PyTree], A: Any, b: PyTree, x0: PyTree | None = None, *,
            tol: float = 1e-5, atol: float = 0.0, maxiter: int | None = None,
            M: Any = None, check_symmetric: bool = False) -> tuple[PyTree, None]:
    if x0 is None:
        x0 = tree_map(zeros_like, b)
    b, x0 = device_put((b, x0))
    if maxiter is None:
        maxiter = 10 * sum(v.size for v in tree_leaves(b))  # SciPy's default
    A = _normalize_matvec(A)
    M = _normalize_matvec(_identity if M is None else M)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError("x0 and b must have matching tree structure: "
                         f"{tree_structure(x0)} vs {tree_structure(b)}")
    if _shapes(x0) != _shapes(b):
        raise ValueError(f"arrays in x0 and b must have matching shapes: {_shapes(x0)} vs "
                         f"{_shapes(b)}")
    solver = functools.partial(solve_fn, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    # cg's operator is symmetric for real data (Hermitian is not enough for the transpose).
    symmetric = check_symmetric and all(
        not iscomplexobj(v) for v in tree_leaves(b))
    x = custom_linear_solve(A, b, solve=solver, transpose_solve=solver,
                                symmetric=symmetric)
    return x, None


def cg(A: Any, b: PyTree, x0: PyTree | None = None, *, tol: float = 1e-5, atol: float = 0.0,
       maxiter: int | None = None, M: Any = None) -> tuple[PyTree, None]:
    """Conjugate gradients for `A x = b` with `A` Hermitian positive definite (a function, or
    a matrix). Returns `(x, None)`; `M` is a preconditioner approximating `A^-1`.

    >>> import numjax.numpy as jnp
    >>> cg(jnp.array([[4.0, 1.0], [1.0, 3.0]]), jnp.array([1.0, 2.0]))[0]
    Array([0.09090909, 0.6363636 ], dtype=float32)
    """
    return _isolve(_cg_solve, A=A, b=b, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=True)


def bicgstab(A: Any, b: PyTree, x0: PyTree | None = None, *, tol: float = 1e-5,
             atol: float = 0.0, maxiter: int | None = None, M: Any = None
             ) -> tuple[PyTree, None]:
    """Stabilized biconjugate gradients for a general square `A x = b`. Returns `(x, None)`.

    >>> import numjax.numpy as jnp
    >>> bicgstab(jnp.array([[2.0, 1.0], [0.0, 1.0]]), jnp.array([3.0, 1.0]))[0]
    Array([1., 1.], dtype=float32)
    """
    return _isolve(_bicgstab_solve, A=A, b=b, x0=x0, tol=tol, atol=atol, maxiter=maxiter,
                   M=M)


# ---- GMRES ---------------------------------------------------------------------------------


def _safe_normalize(x: PyTree, thresh: Array | None = None) -> tuple[PyTree, Array]:
    """(x / |x|, |x|), or zeros and 0 when |x| <= thresh (default: eps)."""
    norm = _norm(x)
    dtype, weak = _result_type(x)
    if thresh is None:
        thresh = finfo(norm.dtype).eps
    thresh = real(asarray(thresh).astype(dtype))
    use_norm = norm > thresh
    norm_cast = lax_internal._convert_element_type(norm, dtype, weak)
    normalized = tree_map(lambda y: where(use_norm, y / norm_cast, 0.0), x)
    return normalized, where(use_norm, norm, 0.0)


def _project_on_columns(Q: PyTree, v: PyTree) -> Array:
    """Q^H v, Q's columns being the trailing axis of each leaf."""
    parts = tree_map(lambda X, y: einsum("...n,...->n", conj(X), y,
                                             precision=_HIGHEST), Q, v)
    return functools.reduce(operator.add, tree_leaves(parts))


def _arnoldi_step(k: Array, A: Callable[[PyTree], PyTree], M: Callable[[PyTree], PyTree],
                  V: PyTree, H: Array) -> tuple[PyTree, Array, Array]:
    """Extend the Krylov basis V by M A V[:, k], orthogonalized against V; its coefficients
    become row k of H."""
    dtype, _ = _result_type(V)
    eps = finfo(dtype).eps
    v = M(A(tree_map(lambda X: X[..., k], V)))
    _, v_norm_0 = _safe_normalize(v)
    # One pass of classical Gram-Schmidt: JAX's re-orthogonalization loop stops after its
    # first pass when capped at two iterations, as the Arnoldi step caps it.
    h = _project_on_columns(V, v)
    v = _sub(v, tree_map(lambda X: _dot(X, h), V))
    unit_v, v_norm_1 = _safe_normalize(v, thresh=eps * v_norm_0)
    V = tree_map(lambda X, y: X.at[..., k + 1].set(y), V, unit_v)
    h = h.at[k + 1].set(v_norm_1.astype(dtype))
    H = H.at[k, :].set(h)
    return V, H, v_norm_1 == 0.0


def _rotate(H: Array, i: Array, cs: Array, sn: Array) -> Array:
    """Apply the Givens rotation (cs, sn) to entries i, i+1 of a vector."""
    x1, y1 = H[i], H[i + 1]
    H = H.at[i].set(conj(cs) * x1 - conj(sn) * y1)
    return H.at[i + 1].set(sn * x1 + cs * y1)


def _givens(a: Array, b: Array) -> tuple[Array, Array]:
    """(cs, sn) of the rotation that zeroes b against a."""
    b_zero = jnp_abs(b) == 0
    a_lt_b = jnp_abs(a) < jnp_abs(b)
    t = -where(a_lt_b, a, b) / where(a_lt_b, b, a)
    r = rsqrt(1 + jnp_abs(t) ** 2).astype(t.dtype)
    cs = where(b_zero, 1, where(a_lt_b, r * t, r))
    sn = where(b_zero, 0, where(a_lt_b, r, r * t))
    return cs, sn


def _apply_givens(row: Array, givens: Array, k: Array) -> tuple[Array, Array]:
    """Rotate a new Hessenberg row by the k previous rotations, then by a new one that zeroes
    its entry k+1."""
    row = fori_loop(0, k, lambda i, r: _rotate(r, i, givens[i, 0], givens[i, 1]), row)
    cs, sn = _givens(row[k], row[k + 1])
    givens = givens.at[k, :].set(stack([cs, sn]))
    return _rotate(row, k, cs, sn), givens


def _basis(unit_residual: PyTree, restart: int) -> PyTree:
    """Krylov basis storage: the first column is the unit residual, the rest zeros."""
    return tree_map(lambda x: pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)),
                    unit_residual)


def _finish(A: Callable[[PyTree], PyTree], M: Callable[[PyTree], PyTree], b: PyTree,
            x0: PyTree, V: PyTree, y: Array) -> tuple[PyTree, PyTree, Array]:
    x = _add(x0, tree_map(lambda X: _dot(X[..., :-1], y), V))
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x))))
    return x, unit_residual, residual_norm


def _gmres_incremental(A: Callable[[PyTree], PyTree], b: PyTree, x0: PyTree,
                       unit_residual: PyTree, residual_norm: Array, ptol: Array,
                       restart: int, M: Callable[[PyTree], PyTree]
                       ) -> tuple[PyTree, PyTree, Array]:
    """One restart cycle, keeping the Hessenberg matrix QR-factored by Givens rotations so
    the residual is known at each step and the cycle stops early once it is below ptol."""
    V = _basis(unit_residual, restart)
    dtype = result_type(*tree_leaves(b))
    R = eye(restart, restart + 1, dtype=dtype)
    givens = zeros((restart, 2), dtype=dtype)
    beta = zeros(restart + 1, dtype=dtype).at[0].set(residual_norm.astype(dtype))

    def cond(state: tuple[Any, ...]) -> Array:
        k, err = state[0], state[1]
        return logical_and(k < restart, err > ptol)

    def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
        k, _, V, R, beta, givens = state
        V, H, _ = _arnoldi_step(k, A, M, V, R)
        row, givens = _apply_givens(H[k, :], givens, k)
        R = R.at[k, :].set(row)
        beta = _rotate(beta, k, givens[k, 0], givens[k, 1])
        return k + 1, jnp_abs(beta[k + 1]), V, R, beta, givens

    _, _, V, R, beta, _ = while_loop(cond, body, (0, residual_norm, V, R, beta, givens))
    y = solve_triangular(R[:, :-1].T, beta[:-1])
    return _finish(A, M, b, x0, V, y)


def _lstsq(a: Array, b: Array) -> Array:
    """Least squares through the normal equations (a^H a) x = a^H b."""
    return solve(_dot(conj(a.T), a), _dot(conj(a.T), b), assume_a="pos")


def _gmres_batched(A: Callable[[PyTree], PyTree], b: PyTree, x0: PyTree,
                   unit_residual: PyTree, residual_norm: Array, ptol: Array, restart: int,
                   M: Callable[[PyTree], PyTree]) -> tuple[PyTree, PyTree, Array]:
    """One restart cycle: build the whole Krylov basis (unless it breaks down), then solve the
    small least-squares problem once."""
    del ptol
    V = _basis(unit_residual, restart)
    dtype, weak = _result_type(b)
    H = lax_internal._convert_element_type(eye(restart, restart + 1, dtype=dtype),
                                           dtype, weak)

    def cond(state: tuple[Any, ...]) -> Array:
        _, _, breakdown, k = state
        return logical_and(k < restart, logical_not(breakdown))

    def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
        V, H, _, k = state
        V, H, breakdown = _arnoldi_step(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = while_loop(cond, body, (V, H, False, 0))
    beta = zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
    y = _lstsq(H.T, beta)
    return _finish(A, M, b, x0, V, y)


def _gmres_solve(A: Callable[[PyTree], PyTree], b: PyTree, x0: PyTree, atol: Array,
                 ptol: Array, restart: int, maxiter: int, M: Callable[[PyTree], PyTree],
                 cycle: Callable[..., tuple[PyTree, PyTree, Array]]) -> PyTree:
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x0))))

    def cond(state: tuple[Any, ...]) -> Array:
        _, k, _, residual_norm = state
        return logical_and(k < maxiter, residual_norm > atol)

    def body(state: tuple[Any, ...]) -> tuple[Any, ...]:
        x, k, unit_residual, residual_norm = state
        x, unit_residual, residual_norm = cycle(A, b, x, unit_residual, residual_norm, ptol,
                                                restart, M)
        return x, k + 1, unit_residual, residual_norm

    x, *_ = while_loop(cond, body, (x0, 0, unit_residual, residual_norm))
    return x


def gmres(A: Any, b: PyTree, x0: PyTree | None = None, *, tol: float = 1e-5,
          atol: float = 0.0, restart: int = 20, maxiter: int | None = None, M: Any = None,
          solve_method: str = "batched") -> tuple[PyTree, Array]:
    """Restarted GMRES for a general square `A x = b`. `restart` bounds the Krylov basis per
    cycle and `maxiter` the cycles; `solve_method` is "batched" (build the basis, then solve)
    or "incremental" (Givens updates, may stop a cycle early). Returns `(x, info)` with info
    -1 when x has NaNs, else 0.

    >>> import numjax.numpy as jnp
    >>> x, info = gmres(jnp.array([[2.0, 1.0], [0.0, 1.0]]), jnp.array([3.0, 1.0]))
    >>> x.round(4), info
    (Array([1., 1.], dtype=float32), Array(0, dtype=int32, weak_type=True))
    """
    if x0 is None:
        x0 = tree_map(zeros_like, b)
    A = _normalize_matvec(A)
    M = _normalize_matvec(_identity if M is None else M)
    b, x0 = device_put((b, x0))
    size = sum(v.size for v in tree_leaves(b))
    if maxiter is None:
        maxiter = 10 * size  # SciPy's default
    restart = min(restart, size)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError("x0 and b must have matching tree structure: "
                         f"{tree_structure(x0)} vs {tree_structure(b)}")
    b_norm = _norm(b)
    atol = maximum(tol * b_norm, atol)
    # The incremental method's per-cycle target, in the preconditioned residual's scale.
    ptol = _norm(M(b)) * minimum(1.0, atol / b_norm)
    if solve_method == "incremental":
        cycle = _gmres_incremental
    elif solve_method == "batched":
        cycle = _gmres_batched
    else:
        raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' "
                         "or 'batched'")

    def run(A: Callable[[PyTree], PyTree], b: PyTree) -> PyTree:
        return _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, cycle)

    x = custom_linear_solve(A, b, solve=run, transpose_solve=run)
    info = where(isnan(_norm(x)), -1, 0)
    return x, info
