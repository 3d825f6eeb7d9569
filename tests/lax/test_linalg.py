"""lax.linalg and jnp.linalg: values against NumPy/SciPy, reconstruction identities, eval_shape,
jvp against central differences, vjp against jvp, vmap against a loop, jit against eager, errors
(types and messages recorded from JAX 0.4.30)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.linalg

import numjax
import numjax.numpy as jnp
from numjax.experimental import enable_x64
from numjax.lax import linalg as L
from numjax.test_util import numerical_jvp

SHAPES = [(3, 3), (2, 4, 4), (2, 1, 3, 3)]
DTYPES = [np.float32, np.complex64]


def _rand(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return x.astype(dtype)


def _well_conditioned(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray:
    return (_rand(shape, dtype, seed) + 3 * np.eye(shape[-1])).astype(dtype)


def _hpd(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray:
    a = _rand(shape, dtype, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _mH(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


def _tol(dtype: Any) -> float:
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


# ---- values and identities -----------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky(shape: tuple[int, ...], dtype: Any) -> None:
    a = _hpd(shape, dtype)
    c = L.cholesky(jnp.asarray(a))
    assert c.dtype == dtype and c.shape == shape
    np.testing.assert_allclose(np.asarray(c), np.linalg.cholesky(a), rtol=_tol(dtype),
                               atol=_tol(dtype))
    np.testing.assert_allclose(np.asarray(c) @ _mH(np.asarray(c)), a, rtol=1e-4, atol=1e-4)
    upper = jnp.linalg.cholesky(jnp.asarray(a), upper=True)
    np.testing.assert_allclose(np.asarray(upper), _mH(np.asarray(c)), rtol=1e-6)


def test_cholesky_not_positive_definite_is_nan() -> None:
    out = np.asarray(L.cholesky(jnp.array([[[1.0, 0.0], [0.0, -1.0]], [[4.0, 0.0],
                                                                          [0.0, 1.0]]])))
    # JAX takes the lower triangle of the NaN factor.
    assert np.isnan(out[0][np.tril_indices(2)]).all() and np.allclose(out[1], [[2, 0], [0, 1]])


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (4, 3), (3, 5), (2, 5, 2)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_lu(shape: tuple[int, ...], dtype: Any) -> None:
    a = _rand(shape, dtype)
    lu, piv, perm = L.lu(jnp.asarray(a))
    m, n = shape[-2:]
    k = min(m, n)
    assert (lu.dtype, piv.dtype, perm.dtype) == (dtype, np.int32, np.int32)
    assert piv.shape == (*shape[:-2], k) and perm.shape == (*shape[:-2], m)
    lu_np = np.asarray(lu)
    low = np.tril(lu_np, -1)[..., :, :k] + np.eye(m, k)
    up = np.triu(lu_np)[..., :k, :]
    permuted = np.take_along_axis(a, np.asarray(perm)[..., None], axis=-2)
    np.testing.assert_allclose(low @ up, permuted, rtol=1e-4, atol=1e-5)
    if m == n:
        for i, mat in enumerate(a.reshape(-1, m, n)):
            ref_lu, ref_piv = scipy.linalg.lu_factor(mat)
            np.testing.assert_array_equal(np.asarray(piv).reshape(-1, k)[i], ref_piv)
            np.testing.assert_allclose(lu_np.reshape(-1, m, n)[i], ref_lu, rtol=1e-4,
                                       atol=1e-5)


def test_lu_pivots_to_permutation() -> None:
    # Recorded from JAX 0.4.30.
    out = L.lu_pivots_to_permutation(jnp.array([2, 2, 2], jnp.int32), 4)
    np.testing.assert_array_equal(np.asarray(out), [2, 0, 1, 3])
    assert out.dtype == np.int32
    with pytest.raises(ValueError, match="Output permutation size 2 has to exceed the "
                                         "trailing dimension of the pivots"):
        L.lu_pivots_to_permutation(jnp.array([2, 2, 2], jnp.int32), 2)


@pytest.mark.parametrize("shape", [(3, 3), (2, 5, 3), (3, 5)])
@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_qr(shape: tuple[int, ...], full_matrices: bool, dtype: Any) -> None:
    a = _rand(shape, dtype)
    q, r = L.qr(jnp.asarray(a), full_matrices=full_matrices)
    qn, rn = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    assert q.shape == qn.shape and r.shape == rn.shape and q.dtype == dtype
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.triu(np.asarray(r)), np.asarray(r))
    eye = np.eye(q.shape[-1])
    np.testing.assert_allclose(_mH(np.asarray(q)) @ np.asarray(q), np.broadcast_to(
        eye, (*shape[:-2], *eye.shape)), atol=1e-5)


def test_householder_product() -> None:
    a = _rand((4, 3), np.float64)
    (qr_raw, tau), _ = scipy.linalg.qr(a, mode="raw")
    with enable_x64():
        q = L.householder_product(jnp.asarray(qr_raw), jnp.asarray(tau))
    np.testing.assert_allclose(np.asarray(q), np.linalg.qr(a)[0], atol=1e-12)


@pytest.mark.parametrize("shape", [(3, 3), (2, 5, 3), (3, 5)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_svd(shape: tuple[int, ...], dtype: Any) -> None:
    a = _rand(shape, dtype)
    for full in (True, False):
        u, s, vh = L.svd(jnp.asarray(a), full_matrices=full)
        un, sn, vhn = np.linalg.svd(a, full_matrices=full)
        assert (u.shape, s.shape, vh.shape) == (un.shape, sn.shape, vhn.shape)
        assert s.dtype == np.float32 and u.dtype == dtype
        np.testing.assert_allclose(np.asarray(s), sn, rtol=1e-4)
        k = sn.shape[-1]
        rebuilt = (np.asarray(u)[..., :, :k] * np.asarray(s)[..., None, :]) @ \
            np.asarray(vh)[..., :k, :]
        np.testing.assert_allclose(rebuilt, a, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(L.svd(jnp.asarray(a), compute_uv=False)),
                               np.linalg.svd(a, compute_uv=False), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(jnp.linalg.svdvals(a)),
                               np.linalg.svd(a, compute_uv=False), rtol=1e-4)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh(shape: tuple[int, ...], dtype: Any) -> None:
    a = _hpd(shape, dtype)
    v, w = L.eigh(jnp.asarray(a))
    assert w.dtype == np.float32 and v.dtype == dtype
    np.testing.assert_allclose(np.asarray(w), np.linalg.eigvalsh(a), rtol=1e-4)
    vn, wn = np.asarray(v), np.asarray(w)
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], rtol=1e-3, atol=1e-3)
    res = jnp.linalg.eigh(jnp.asarray(a))
    np.testing.assert_allclose(np.asarray(res.eigenvalues), wn)
    np.testing.assert_allclose(np.asarray(jnp.linalg.eigvalsh(a)), wn)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_eig(shape: tuple[int, ...], dtype: Any) -> None:
    a = _rand(shape, dtype)
    w, vl, vr = L.eig(jnp.asarray(a))
    assert w.dtype == np.complex64 and vr.dtype == np.complex64
    wn, vln, vrn = (np.asarray(x) for x in (w, vl, vr))
    np.testing.assert_allclose(a @ vrn, vrn * wn[..., None, :], rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(_mH(vln) @ a, wn[..., :, None] * _mH(vln), rtol=1e-3,
                               atol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(vrn, axis=-2), 1, rtol=1e-5)
    np.testing.assert_allclose(np.sort_complex(np.asarray(jnp.linalg.eigvals(a)).ravel()),
                               np.sort_complex(np.linalg.eigvals(a).ravel()), rtol=1e-4)
    assert len(L.eig(jnp.asarray(a), compute_left_eigenvectors=False)) == 2


# (batch, n): several small systems are solved by batched substitution, one system or larger
# ones by LAPACK, matrix by matrix.
TRIANGULAR_SIZES = [(2, 3), (1, 3), (3, 1), (2, 33)]


@pytest.mark.parametrize("batch,n", TRIANGULAR_SIZES, ids=[f"{b}x{n}" for b, n in
                                                          TRIANGULAR_SIZES])
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
@pytest.mark.parametrize("conjugate_a", [True, False])
@pytest.mark.parametrize("unit_diagonal", [True, False])
def test_triangular_solve(batch: int, n: int, left_side: bool, lower: bool, transpose_a: bool,
                          conjugate_a: bool, unit_diagonal: bool) -> None:
    # Off-diagonal entries small against the diagonal: a random triangular matrix of size 33
    # is otherwise too ill-conditioned for the residual check.
    a = (_rand((batch, n, n), np.complex64) / n + 3 * np.eye(n)).astype(np.complex64)
    b = _rand((batch, n, 4) if left_side else (batch, 4, n), np.complex64, 1)
    x = np.asarray(L.triangular_solve(jnp.asarray(a), jnp.asarray(b), left_side=left_side,
                                      lower=lower, transpose_a=transpose_a,
                                      conjugate_a=conjugate_a, unit_diagonal=unit_diagonal))
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        eye = np.eye(n, dtype=t.dtype)
        t = t * (1 - eye) + eye
    if transpose_a:
        t = np.swapaxes(t, -1, -2)
    if conjugate_a:
        t = np.conj(t)
    np.testing.assert_allclose(t @ x if left_side else x @ t, b, rtol=1e-4, atol=1e-4)


def test_schur() -> None:
    a = _rand((2, 4, 4), np.float64)
    with enable_x64():
        t, z = L.schur(jnp.asarray(a))
    tn, zn = np.asarray(t), np.asarray(z)
    np.testing.assert_allclose(zn @ tn @ _mH(zn), a, atol=1e-10)
    np.testing.assert_allclose(tn[0], scipy.linalg.schur(a[0])[0], atol=1e-10)
    assert len(L.schur(jnp.asarray(a, np.float32), compute_schur_vectors=False)) == 1


def test_tridiagonal_solve() -> None:
    rng = np.random.default_rng(0)
    m = 5
    dl, du = rng.normal(size=(2, m)), rng.normal(size=(2, m))
    d = 4 + rng.random((2, m))
    dl[:, 0] = 0
    du[:, -1] = 0
    b = rng.normal(size=(2, m, 3))
    with enable_x64():
        x = L.tridiagonal_solve(*(jnp.asarray(v) for v in (dl, d, du, b)))
    t = np.stack([np.diag(d[i]) + np.diag(dl[i, 1:], -1) + np.diag(du[i, :-1], 1)
                  for i in range(2)])
    np.testing.assert_allclose(t @ np.asarray(x), b, atol=1e-10)


# ---- transformations -----------------------------------------------------------------------


def _fd_check(f: Callable[[Any], Any], x: np.ndarray, t: np.ndarray, rtol: float = 1e-5
              ) -> None:
    """jvp against central differences, and vjp against jvp (<ct, J t> = <J^T ct, t>)."""
    with enable_x64():
        x64, t64 = jnp.asarray(x), jnp.asarray(t)
        out, tan = numjax.jvp(f, (x64,), (t64,))
        fd = numerical_jvp(f, (x64,), (t64,), eps=1e-6)
        np.testing.assert_allclose(np.asarray(tan), fd, rtol=rtol, atol=rtol)
        _, pull = numjax.vjp(f, x64)
        ct = _rand(out.shape, out.dtype, 7)
        (g,) = pull(jnp.asarray(ct))
        # JAX's transposes pair values bilinearly; for maps that are only R-linear (conj,
        # real, abs inside), the identity holds for the real parts.
        lhs = np.sum(ct * np.asarray(tan)).real
        rhs = np.sum(np.asarray(g) * t).real
        np.testing.assert_allclose(lhs, rhs, rtol=1e-7, atol=1e-7)


JVP_CASES: list[tuple[str, Callable[[Any], Any], Callable[..., np.ndarray], tuple[int, ...]]] = [
    ("cholesky", lambda a: L.cholesky(a), _hpd, (2, 3, 3)),
    ("lu", lambda a: L.lu(a)[0], _well_conditioned, (2, 3, 3)),
    ("lu_wide", lambda a: L.lu(a)[0], _rand, (3, 5)),
    ("lu_tall", lambda a: L.lu(a)[0], _rand, (5, 3)),
    ("qr_q", lambda a: L.qr(a, full_matrices=False)[0], _rand, (2, 4, 3)),
    ("qr_r", lambda a: L.qr(a, full_matrices=False)[1], _rand, (3, 3)),
    ("svd_s", lambda a: L.svd(a, compute_uv=False), _rand, (2, 4, 3)),
    # Singular vectors and eigenvectors are defined up to a phase per column: compare
    # phase-invariant |u|^2.
    ("svd_u", lambda a: jnp.abs(L.svd(a, full_matrices=False)[0]) ** 2, _rand, (4, 3)),
    ("svd_vh", lambda a: jnp.abs(L.svd(a, full_matrices=False)[2]) ** 2, _rand, (3, 5)),
    ("eigh_w", lambda a: L.eigh(a)[1], _hpd, (2, 3, 3)),
    ("eigh_v", lambda a: jnp.abs(L.eigh(a)[0]) ** 2, _hpd, (3, 3)),
    ("eigvals", lambda a: L.eig(a, compute_left_eigenvectors=False,
                                compute_right_eigenvectors=False)[0], _rand, (3, 3)),
    ("tri_a", lambda a: L.triangular_solve(a, a[..., :2] + 1.0, left_side=True, lower=True),
     _well_conditioned, (2, 3, 3)),
    ("tri_right", lambda a: L.triangular_solve(a, a + 1.0, transpose_a=True),
     _well_conditioned, (3, 3)),
    ("det", lambda a: jnp.linalg.det(a), _well_conditioned, (2, 3, 3)),
    ("slogdet", lambda a: jnp.linalg.slogdet(a)[1], _well_conditioned, (3, 3)),
    ("inv", lambda a: jnp.linalg.inv(a), _well_conditioned, (2, 3, 3)),
    ("solve", lambda a: jnp.linalg.solve(a, a[..., 0]), _well_conditioned, (3, 3)),
    ("pinv", lambda a: jnp.linalg.pinv(a), _rand, (4, 3)),
    ("norm_nuc", lambda a: jnp.linalg.norm(a, "nuc"), _rand, (3, 4)),
]


@pytest.mark.parametrize("name,f,make,shape", JVP_CASES, ids=[c[0] for c in JVP_CASES])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_jvp_vjp(name: str, f: Callable[[Any], Any], make: Callable[..., np.ndarray],
                 shape: tuple[int, ...], dtype: Any) -> None:
    x = make(shape, dtype)
    t = _rand(shape, dtype, 3)
    if name.startswith(("cholesky", "eigh")):
        t = t + _mH(t)  # Hermitian tangents: the functions read only one triangle
    _fd_check(f, x, t)


def test_derivative_errors() -> None:
    a = jnp.asarray(_rand((3, 3), np.float32))
    with pytest.raises(NotImplementedError, match="The derivatives of eigenvectors are not "
                                                  "implemented, only eigenvalues"):
        numjax.jvp(lambda x: L.eig(x)[1], (a,), (a,))
    with pytest.raises(NotImplementedError, match="Singular value decomposition JVP not "
                                                  "implemented for full matrices"):
        numjax.jvp(lambda x: L.svd(x)[0], (a,), (a,))
    with pytest.raises(NotImplementedError, match="Unimplemented case of QR"):
        numjax.jvp(lambda x: L.qr(x[:2])[0], (a,), (a,))


VMAP_CASES: list[tuple[str, Callable[[Any], Any], Callable[..., np.ndarray]]] = [
    ("cholesky", lambda a: L.cholesky(a), _hpd),
    ("lu", lambda a: L.lu(a), _rand),
    ("qr", lambda a: L.qr(a), _rand),
    ("svd", lambda a: L.svd(a), _rand),
    ("eigh", lambda a: L.eigh(a), _hpd),
    ("eigvals", lambda a: L.eig(a, compute_left_eigenvectors=False,
                                compute_right_eigenvectors=False), _rand),
    ("triangular_solve", lambda a: L.triangular_solve(a, jnp.ones((3, 2)), left_side=True,
                                                      lower=True), _well_conditioned),
    ("det", jnp.linalg.det, _well_conditioned),
    ("inv", jnp.linalg.inv, _well_conditioned),
    ("norm2", lambda a: jnp.linalg.norm(a, 2), _rand),
]


@pytest.mark.parametrize("name,f,make", VMAP_CASES, ids=[c[0] for c in VMAP_CASES])
def test_vmap_jit_eval_shape(name: str, f: Callable[[Any], Any],
                             make: Callable[..., np.ndarray]) -> None:
    xs = make((4, 3, 3), np.float32)
    batched = numjax.vmap(f, in_axes=1)(jnp.asarray(np.moveaxis(xs, 0, 1)))
    looped = [f(jnp.asarray(x)) for x in xs]
    flat_b = numjax.tree_util.tree_leaves(batched)
    flat_l = [numjax.tree_util.tree_leaves(r) for r in looped]
    for i, leaf in enumerate(flat_b):
        np.testing.assert_allclose(np.asarray(leaf), np.stack([np.asarray(r[i])
                                                               for r in flat_l]),
                                   rtol=1e-4, atol=1e-5)
    x = jnp.asarray(xs[0])
    eager = numjax.tree_util.tree_leaves(f(x))
    jitted = numjax.tree_util.tree_leaves(numjax.jit(f)(x))
    shapes = numjax.tree_util.tree_leaves(numjax.eval_shape(f, x))
    for e, j, s in zip(eager, jitted, shapes, strict=True):
        assert (e.shape, e.dtype) == (j.shape, j.dtype) == (s.shape, s.dtype)
        np.testing.assert_allclose(np.asarray(e), np.asarray(j), rtol=1e-6)


# JAX 0.4.30 (eager and jit): a zero on the diagonal is divided by, as substitution does.
SINGULAR_TRIANGULAR = [
    ([[0.0, 0.0], [1.0, 1.0]], [np.inf, -np.inf]),
    ([[2.0, 0.0], [1.0, 0.0]], [0.5, np.inf]),
]


@pytest.mark.parametrize("a,want", SINGULAR_TRIANGULAR)
@pytest.mark.parametrize("batch", [1, 3])
def test_singular_triangular_solve_divides_by_the_zero_pivot(a: list[list[float]],
                                                             want: list[float],
                                                             batch: int) -> None:
    # (A batch of several: numjax substitutes; JAX 0.4.30's batched kernel gives other values
    # for a singular matrix, a difference noted in docs/differences.md.)
    a_ = np.broadcast_to(np.array(a, np.float32), (batch, 2, 2))
    b = np.ones((batch, 2, 1), np.float32)
    solve = lambda a, b: L.triangular_solve(a, b, left_side=True, lower=True)
    for f in (solve, numjax.jit(solve)):
        np.testing.assert_array_equal(np.asarray(f(a_, b))[..., 0],
                                      np.broadcast_to(np.array(want, np.float32), (batch, 2)))


def test_jacobian_of_many_small_solves_is_batched() -> None:
    """jacobian of 100 stacked 3x3 solves: 30,000 systems as one batched substitution per
    transformation (it took seconds of CPU per call, one LAPACK call per system)."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(100, 3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
    b = rng.normal(size=(100, 3, 1)).astype(np.float32)
    jac = numjax.jacobian(lambda a, b: jnp.linalg.solve(a, b), argnums=1)(a, b)
    x = np.linalg.solve(a, b)
    np.testing.assert_allclose(np.asarray(jnp.linalg.solve(a, b)), x, rtol=1e-4, atol=1e-5)
    want = np.zeros((100, 3, 1, 100, 3, 1), np.float32)  # d x_i / d b_i = inv(a_i)
    for i in range(100):
        want[i, :, 0, i, :, 0] = np.linalg.inv(a[i])
    np.testing.assert_allclose(np.asarray(jac), want, rtol=1e-4, atol=1e-5)


def test_triangular_solve_vmap_unbatched_a() -> None:
    a = jnp.asarray(_well_conditioned((3, 3), np.float32))
    bs = _rand((5, 3, 2), np.float32)
    out = numjax.vmap(lambda b: L.triangular_solve(a, b, left_side=True, lower=True))(
        jnp.asarray(bs))
    for i in range(5):
        np.testing.assert_allclose(np.asarray(out[i]), np.asarray(L.triangular_solve(
            a, jnp.asarray(bs[i]), left_side=True, lower=True)), rtol=1e-6)


def test_float64_under_x64() -> None:
    a = _hpd((3, 3), np.float64)
    with enable_x64():
        c = L.cholesky(jnp.asarray(a))
        assert c.dtype == np.float64
        np.testing.assert_allclose(np.asarray(c), np.linalg.cholesky(a), rtol=1e-12)
        w = jnp.linalg.eigvals(jnp.asarray(a))
        assert w.dtype == np.complex128


# ---- jnp.linalg values ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_jnp_linalg_values(dtype: Any) -> None:
    a = _well_conditioned((2, 3, 3), dtype)
    b = _rand((2, 3, 2), dtype, 1)
    tol: dict[str, Any] = dict(rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(jnp.linalg.det(a)), np.linalg.det(a), **tol)
    sign, logdet = jnp.linalg.slogdet(a)
    rs, rl = np.linalg.slogdet(a)
    np.testing.assert_allclose(np.asarray(sign), rs, **tol)
    np.testing.assert_allclose(np.asarray(logdet), rl, **tol)
    np.testing.assert_allclose(np.asarray(jnp.linalg.slogdet(a, method="qr").logabsdet), rl,
                               **tol)
    np.testing.assert_allclose(np.asarray(jnp.linalg.inv(a)), np.linalg.inv(a), **tol)
    np.testing.assert_allclose(np.asarray(jnp.linalg.solve(a, b)), np.linalg.solve(a, b),
                               **tol)
    np.testing.assert_allclose(np.asarray(jnp.linalg.solve(a[0], b[0, :, 0])),
                               np.linalg.solve(a[0], b[0, :, 0]), **tol)
    np.testing.assert_allclose(np.asarray(jnp.linalg.pinv(b)), np.linalg.pinv(b), **tol)
    np.testing.assert_allclose(np.asarray(jnp.linalg.matrix_power(a, 3)),
                               np.linalg.matrix_power(a, 3), rtol=1e-3)
    np.testing.assert_allclose(np.asarray(jnp.linalg.matrix_power(a, -2)),
                               np.linalg.matrix_power(a, -2), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(np.asarray(jnp.linalg.cond(a)), np.linalg.cond(a), rtol=1e-3)
    np.testing.assert_allclose(np.asarray(jnp.linalg.cond(a, 1)), np.linalg.cond(a, 1),
                               rtol=1e-3)
    x, res, rank, s = jnp.linalg.lstsq(b[0], a[0])
    rx, rres, rrank, rs_ = np.linalg.lstsq(b[0], a[0], rcond=None)
    np.testing.assert_allclose(np.asarray(x), rx, **tol)
    np.testing.assert_allclose(np.asarray(s), rs_, **tol)
    assert int(rank) == rrank


def test_det_singular_and_slogdet_zero() -> None:
    a = jnp.array([[1.0, 2.0], [2.0, 4.0]])
    assert float(jnp.linalg.det(a)) == 0.0
    sign, logdet = jnp.linalg.slogdet(a)
    assert float(sign) == 0.0 and float(logdet) == -np.inf


@pytest.mark.parametrize("ord", [None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"])
def test_norm_matrix(ord: Any) -> None:
    x = _rand((2, 3, 4), np.float32)
    np.testing.assert_allclose(np.asarray(jnp.linalg.norm(x, ord, axis=(1, 2))),
                               np.linalg.norm(x, ord, axis=(1, 2)), rtol=1e-5)
    np.testing.assert_allclose(
        np.asarray(jnp.linalg.norm(x, ord, axis=(2, 0), keepdims=True)),
        np.linalg.norm(x, ord, axis=(2, 0), keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("ord", [None, 0, 1, 2, 3, 0.5, np.inf, -np.inf])
def test_norm_vector(ord: Any) -> None:
    x = _rand((3, 4), np.complex64)
    for axis in (0, 1, -1):
        np.testing.assert_allclose(np.asarray(jnp.linalg.norm(x, ord, axis=axis)),
                                   np.linalg.norm(x, ord, axis=axis), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.vector_norm(x, ord=2 if ord is None
                                                                  else ord)),
                               np.linalg.vector_norm(x, ord=2 if ord is None else ord),
                               rtol=1e-5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.norm(x)), np.linalg.norm(x), rtol=1e-5)


def test_misc_jnp_linalg() -> None:
    a = _rand((3, 4), np.float32)
    np.testing.assert_allclose(np.asarray(jnp.linalg.matrix_norm(a, ord="nuc")),
                               np.linalg.matrix_norm(a, ord="nuc"), rtol=1e-5)
    assert int(jnp.linalg.matrix_rank(np.outer(np.arange(3.0), np.arange(4.0)))) == 1
    assert int(jnp.linalg.matrix_rank(a)) == 3
    q, r = jnp.linalg.qr(a)
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, atol=1e-5)
    assert jnp.linalg.qr(a, mode="r").shape == (3, 4)
    t = _well_conditioned((4, 4), np.float32).reshape(2, 2, 2, 2)
    np.testing.assert_allclose(np.asarray(jnp.linalg.tensorinv(t)), np.linalg.tensorinv(t),
                               rtol=1e-4, atol=1e-5)
    rhs = _rand((2, 2), np.float32)
    np.testing.assert_allclose(np.asarray(jnp.linalg.tensorsolve(t, rhs)),
                               np.linalg.tensorsolve(t, rhs), rtol=1e-4, atol=1e-5)
    mats = [_rand((2, 3), np.float32), _rand((3, 4), np.float32, 1), _rand((4,), np.float32, 2)]
    np.testing.assert_allclose(np.asarray(jnp.linalg.multi_dot(mats)),
                               np.linalg.multi_dot(mats), rtol=1e-5)
    u, v = _rand((3,), np.float32), _rand((3,), np.float32, 1)
    np.testing.assert_allclose(np.asarray(jnp.linalg.outer(u, v)), np.outer(u, v))
    np.testing.assert_allclose(np.asarray(jnp.linalg.cross(u, v)), np.cross(u, v), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.linalg.trace(a, offset=1)), np.trace(a, 1),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.linalg.diagonal(a, offset=-1)),
                               np.diagonal(a, -1))
    np.testing.assert_allclose(np.asarray(jnp.linalg.vecdot(u, v)), np.vdot(u, v), rtol=1e-6)
    h = _hpd((3, 3), np.float32)
    np.testing.assert_allclose(np.asarray(jnp.linalg.svd(h, hermitian=True,
                                                         compute_uv=False)),
                               np.linalg.svd(h, compute_uv=False), rtol=1e-4)


# ---- errors (types and messages from JAX 0.4.30) -------------------------------------------


def test_errors() -> None:
    with pytest.raises(ValueError, match="Argument to LU decomposition must have ndims >= 2"):
        L.lu(jnp.ones(3))
    with pytest.raises(ValueError, match="Argument to QR decomposition must have ndims >= 2"):
        L.qr(jnp.ones(3))
    with pytest.raises(ValueError, match="Argument to nonsymmetric eigendecomposition must "
                                         r"have shape \[..., n, n\], got shape \(2, 3\)"):
        L.eig(jnp.ones((2, 3)))
    with pytest.raises(TypeError, match="Incompatible shapes for arguments to "
                                        r"triangular_solve: \(3, 3\) and \(2, 2\)."):
        L.triangular_solve(jnp.ones((3, 3)), jnp.ones((2, 2)), left_side=True)
    with pytest.raises(TypeError, match="triangular_solve requires the last two dimensions "
                                        r"of a to be equal in size, got a.shape of \(3, 4\)"):
        L.triangular_solve(jnp.ones((3, 4)), jnp.ones((3, 2)), left_side=True)
    with pytest.raises(TypeError, match="triangular_solve does not accept dtype int32 at "
                                        "position 1"):
        L.triangular_solve(jnp.ones((3, 3)), jnp.ones((3, 3), jnp.int32), left_side=True)
    # JAX 0.4.30 symmetrizes first: x + x^H of a non-square matrix fails in the add.
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: "
                                        r"\(2, 3\), \(3, 2\)\."):
        L.cholesky(jnp.ones((2, 3)))
    with pytest.raises(TypeError, match="add got incompatible shapes for broadcasting"):
        L.eigh(jnp.ones((2, 3)))
    with pytest.raises(ValueError):
        jnp.linalg.det(jnp.ones((2, 3)))
    with pytest.raises(ValueError):
        jnp.linalg.inv(jnp.ones(3))
    with pytest.raises(TypeError, match="3-dimensional array given. Array must be "
                                        "two-dimensional"):
        jnp.linalg.lstsq(jnp.ones((2, 2, 2)), jnp.ones((2, 2)))


def test_triangular_solve_vector_b_on_either_side() -> None:
    # JAX 0.4.30: a b with one dimension fewer than a is a column (left) or a row (right).
    a = jnp.array([[2.0, 0.0], [1.0, 4.0]])
    b = jnp.array([3.0, 5.0])
    assert L.triangular_solve(a, b, lower=True).tolist() == [0.875, 1.25]
    assert L.triangular_solve(a, b, lower=True, left_side=True).tolist() == [1.5, 0.875]
    batched = L.triangular_solve(jnp.stack([a, 2 * a]), jnp.stack([b, b]), lower=True,
                                 transpose_a=True)
    assert batched.tolist() == [[1.5, 0.875], [0.75, 0.4375]]


@pytest.mark.parametrize("a,grad", [
    # JAX 0.4.30: the gradient of det is the cofactor matrix, finite at singular matrices
    ([[1.0, 2.0], [2.0, 4.0]], [[4.0, -2.0], [-2.0, 1.0]]),
    ([[1.0, 2.0], [3.0, 4.0]], [[4.0, -3.0], [-2.0, 1.0]]),
    ([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]], np.zeros((3, 3))),  # rank 1
    ([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0], [0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]],
     [[4.0, -4.0, -4.0, 4.0], [-2.0, 2.0, 2.0, -2.0], [0.0, 0.0, 0.0, 0.0], [0.0] * 4]),
    ([[2.0, 1.0, 0.0, 1.0], [1.0, 3.0, 1.0, 0.0], [0.0, 1.0, 4.0, 1.0], [1.0, 0.0, 1.0, 5.0]],
     [[52.0, -20.0, 8.0, -12.0], [-20.0, 34.0, -10.0, 6.0], [8.0, -10.0, 22.0, -6.0],
      [-12.0, 6.0, -6.0, 18.0]]),
])
def test_det_gradient_is_the_cofactor_matrix(a, grad):
    a = np.array(a, np.float32)
    for g in (numjax.grad(jnp.linalg.det), numjax.jit(numjax.grad(jnp.linalg.det))):
        np.testing.assert_allclose(g(a), grad, rtol=1e-5, atol=1e-5)
    _, tangent = numjax.jvp(jnp.linalg.det, (a,), (np.ones_like(a),))
    np.testing.assert_allclose(float(tangent), np.sum(grad), rtol=1e-5, atol=1e-5)


def test_det_gradient_batches_and_matches_finite_differences():
    a = np.array([[[2.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 4.0]]], np.float32)
    g = numjax.vmap(numjax.grad(jnp.linalg.det))(a)
    np.testing.assert_allclose(g, [[[3.0, -1.0], [-1.0, 2.0]], [[4.0, -2.0], [-2.0, 1.0]]],
                               rtol=1e-6)
    np.testing.assert_allclose(numjax.grad(lambda x: jnp.linalg.det(x).sum())(a), g, rtol=1e-6)
    from numjax.test_util import check_grads
    check_grads(jnp.linalg.det, (np.array([[2.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.1, 0.4, 1.5]],
                                          np.float32),), order=2, modes=("fwd", "rev"),
                atol=1e-2, rtol=1e-2)
    assert "custom_jvp_call" in str(numjax.make_jaxpr(jnp.linalg.det)(a[0]))


def test_pinv_derivative_at_the_identity():
    # JAX 0.4.30: d pinv = -dA at the identity, where the SVD's own derivative is undefined
    jac = numjax.jacobian(jnp.linalg.pinv)(jnp.eye(2, dtype=jnp.float32))
    np.testing.assert_allclose(jac[0, 1], [[0.0, -1.0], [0.0, 0.0]], atol=1e-6)
    np.testing.assert_allclose(jac[1, 0], [[0.0, 0.0], [-1.0, 0.0]], atol=1e-6)
    expected = -np.einsum("ik,lj->ijkl", np.eye(2), np.eye(2))
    np.testing.assert_allclose(jac, expected, atol=1e-6)
    from numjax.test_util import check_grads
    for a in (np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]], np.float32),
              np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], np.float32)):
        check_grads(jnp.linalg.pinv, (a,), order=1, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)
