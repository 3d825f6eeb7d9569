"""lax.custom_linear_solve and lax.custom_root: values, derivatives (against finite differences
and JAX 0.4.30's values), vmap against loops, jit against eager, JAX's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.test_util import check_grads

A = jnp.array([[3.0, 1.0], [1.0, 2.0]])
A2 = jnp.array([[3.0, 1.0], [0.5, 2.0]])
B = jnp.array([1.0, 2.0])


def sym_solve(b: Any, a: Any = A) -> Any:
    return lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, r: jnp.linalg.solve(a, r),
                                   symmetric=True)


def general(m: Any, b: Any) -> Any:
    return lax.custom_linear_solve(lambda x: m @ x, b, lambda mv, r: jnp.linalg.solve(m, r),
                                   lambda vm, r: jnp.linalg.solve(m.T, r))


def cg_solve(matvec: Any, b: Any) -> Any:
    """Conjugate gradients in a while_loop: not reverse-differentiable by itself."""
    def body(state: Any) -> Any:
        x, r, p, k = state
        ap = matvec(p)
        alpha = (r @ r) / (p @ ap)
        x, r_new = x + alpha * p, r - alpha * ap
        return x, r_new, r_new + (r_new @ r_new) / (r @ r) * p, k + 1

    x0 = jnp.zeros_like(b)
    return lax.while_loop(lambda s: s[3] < b.shape[0], body, (x0, b, b, 0))[0]


def test_values_match_jax() -> None:
    # JAX 0.4.30's values for the same programs (to float32 rounding).
    np.testing.assert_allclose(sym_solve(B), [0.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(numjax.jit(sym_solve)(B), [0.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(numjax.grad(lambda b: sym_solve(b).sum())(B), [0.2, 0.4],
                               rtol=1e-5)
    np.testing.assert_allclose(numjax.jacfwd(sym_solve)(B), [[0.4, -0.2], [-0.2, 0.6]],
                               rtol=1e-5)
    np.testing.assert_allclose(numjax.grad(lambda m: general(m, B).sum())(A2),
                               [[0.0, -0.27272728], [0.0, -0.36363634]], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(numjax.vmap(general, in_axes=(0, None))(jnp.stack([A, A2]), B),
                               [[0.0, 1.0], [0.0, 1.0]], atol=1e-6)


def test_gradients_against_finite_differences() -> None:
    with numjax.experimental.enable_x64():
        m = jnp.array([[3.0, 1.0, 0.2], [0.5, 2.0, 0.1], [0.3, 0.4, 4.0]])
        b = jnp.array([1.0, -2.0, 0.5])
        check_grads(general, (m, b), order=2, modes=("fwd", "rev"))
        spd = m @ m.T
        check_grads(lambda b: lax.custom_linear_solve(lambda x: spd @ x, b, cg_solve,
                                                      symmetric=True), (b,), order=1,
                    modes=("fwd", "rev"))


def test_while_loop_solver_becomes_reverse_differentiable() -> None:
    spd = A @ A.T
    f = lambda b: lax.custom_linear_solve(lambda x: spd @ x, b, cg_solve,
                                          symmetric=True).sum()
    expected = np.linalg.solve(np.asarray(spd), np.ones(2))  # d/db 1.T A^-1 b = A^-T 1
    np.testing.assert_allclose(numjax.grad(f)(B), expected, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(numjax.jit(numjax.grad(f))(B), expected, rtol=1e-4, atol=1e-6)


def test_vmap_matches_loop_and_jit_matches_eager() -> None:
    rng = np.random.default_rng(0)
    ms = jnp.asarray(rng.normal(size=(4, 3, 3)) + 4 * np.eye(3), jnp.float32)
    bs = jnp.asarray(rng.normal(size=(4, 3)), jnp.float32)
    loop = np.stack([np.asarray(general(m, b)) for m, b in zip(ms, bs, strict=True)])
    for in_axes in [(0, 0), (0, None), (None, 0)]:
        m_arg = ms if in_axes[0] == 0 else ms[0]
        b_arg = bs if in_axes[1] == 0 else bs[0]
        expected = loop if in_axes == (0, 0) else np.stack(
            [np.asarray(general(ms[i] if in_axes[0] == 0 else ms[0],
                                bs[i] if in_axes[1] == 0 else bs[0])) for i in range(4)])
        np.testing.assert_allclose(numjax.vmap(general, in_axes=in_axes)(m_arg, b_arg), expected,
                                   rtol=1e-5, atol=1e-6)
    grad_m = numjax.grad(lambda m, b: general(m, b).sum())
    grads = numjax.vmap(grad_m)(ms, bs)
    for i in range(4):
        np.testing.assert_allclose(grads[i], grad_m(ms[i], bs[i]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(numjax.jit(general)(ms[0], bs[0]), general(ms[0], bs[0]),
                               rtol=1e-6)


def test_pytrees_and_aux() -> None:
    b = {"u": B, "v": 2 * B}

    def matvec(x: Any) -> Any:
        return {"u": A @ x["u"], "v": A @ x["v"]}

    def solve(mv: Any, r: Any) -> Any:
        return {k: jnp.linalg.solve(A, v) for k, v in r.items()}

    out = lax.custom_linear_solve(matvec, b, solve, symmetric=True)
    np.testing.assert_allclose(out["v"], 2 * np.asarray(out["u"]), rtol=1e-6)
    x, aux = lax.custom_linear_solve(lambda x: A @ x, B, lambda mv, r: (
        jnp.linalg.solve(A, r), 7), symmetric=True, has_aux=True)
    assert int(aux) == 7
    np.testing.assert_allclose(x, [0.0, 1.0], atol=1e-6)


@pytest.mark.parametrize("call,error,message", [
    (lambda: numjax.grad(lambda b: lax.custom_linear_solve(
        lambda x: A @ x, b, lambda mv, r: jnp.linalg.solve(A, r)).sum())(B), TypeError,
     "transpose_solve required for backwards mode automatic differentiation of "
     "custom_linear_solve"),
    (lambda: lax.custom_linear_solve(lambda x: (A @ x)[:1], B, lambda mv, r: r), ValueError,
     "matvec() output shapes must match b, got [(1,)] and [(2,)]"),
    (lambda: lax.custom_linear_solve(lambda x: [A @ x], B, lambda mv, r: r), TypeError,
     "matvec() output pytree structure must match b, got PyTreeDef([*]) and PyTreeDef(*)."),
    (lambda: lax.custom_root(lambda y: [y], 1.0, lambda f, x: x, lambda g, y: y), TypeError,
     "f() output pytree structure must match initial_guess, got PyTreeDef([*]) and "
     "PyTreeDef(*)."),
    (lambda: lax.custom_linear_solve(lambda x: A @ x, B, lambda mv, r: r, has_aux=True),
     ValueError, "solve() output shapes must match b, got [()] and [(2,)]"),
    (lambda: lax.custom_root(lambda y: y, 1.0, lambda f, x: x, lambda g, y: y, has_aux=True),
     ValueError, "solve() produced a pytree with structure PyTreeDef(*), but a pytree tuple "
     "with auxiliary output was expected because has_aux was set to True."),
])
def test_errors_match_jax(call: Any, error: type, message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def newton_sqrt(x: Any) -> Any:
    def newton(f: Any, y: Any) -> Any:
        for _ in range(20):
            y = y - f(y) / (2 * y)
        return y

    return lax.custom_root(lambda y: y * y - x, 1.0, newton, lambda g, y: y / g(1.0))


def test_custom_root() -> None:
    # JAX 0.4.30: 2.0 0.25 0.16666667 [0.25 0.125]
    assert float(newton_sqrt(4.0)) == 2.0
    assert float(numjax.grad(newton_sqrt)(4.0)) == 0.25
    np.testing.assert_allclose(numjax.jit(numjax.grad(newton_sqrt))(9.0), 1 / 6, rtol=1e-6)
    np.testing.assert_allclose(numjax.vmap(numjax.grad(newton_sqrt))(jnp.array([4.0, 16.0])),
                               [0.25, 0.125], rtol=1e-6)
    assert float(numjax.jacfwd(newton_sqrt)(4.0)) == 0.25

    def vec_root(p: Any) -> Any:
        return lax.custom_root(lambda x: x * p - 1.0, jnp.ones(2), lambda f, x0: 1.0 / p,
                               lambda g, y: y / g(jnp.ones(2)))

    np.testing.assert_allclose(numjax.jacrev(vec_root)(jnp.array([2.0, 4.0])),
                               [[-0.25, 0.0], [0.0, -0.0625]], rtol=1e-6)
    with numjax.experimental.enable_x64():
        check_grads(newton_sqrt, (jnp.float64(3.0),), order=1, modes=("fwd", "rev"))
