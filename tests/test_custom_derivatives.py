"""custom_jvp / custom_vjp (examples in the spirit of JAX's "Custom derivative rules" tutorial,
written anew), Jacobians and linear_transpose."""

import functools

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp


@jax.custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))


def test_custom_jvp_fixes_numerical_instability():
    assert float(jax.grad(log1pexp)(100.0)) == 1.0
    np.testing.assert_allclose(jax.vmap(jax.grad(log1pexp))(jnp.array([0.0, 2.0, 100.0])),
                               [0.5, 1 - 1 / (1 + np.exp(2.0)), 1.0], rtol=1e-6)
    assert float(jax.jit(jax.grad(log1pexp))(3.0)) == pytest.approx(1 - 1 / (1 + np.exp(3.0)))
    primal, tangent = jax.jvp(log1pexp, (3.0,), (2.0,))
    assert float(tangent) == pytest.approx(2 * (1 - 1 / (1 + np.exp(3.0))), rel=1e-6)


def test_custom_jvp_python_control_flow_and_higher_order():
    @jax.custom_jvp
    def f(x):
        if x > 0:
            return jnp.sin(x)
        return jnp.cos(x)

    f.defjvps(lambda t, ans, x: jnp.cos(x) * t if x > 0 else -jnp.sin(x) * t)
    assert float(jax.grad(f)(1.0)) == pytest.approx(np.cos(1.0), rel=1e-6)
    assert float(jax.grad(f)(-1.0)) == pytest.approx(np.sin(1.0), rel=1e-6)

    @jax.custom_jvp
    def cube(x):
        return x ** 3

    cube.defjvp(lambda p, t: (cube(p[0]), 3.0 * p[0] ** 2 * t[0]))
    assert float(jax.grad(jax.grad(cube))(2.0)) == pytest.approx(12.0)


def test_custom_jvp_nondiff_argnums_and_errors():
    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        (x,), (t,) = primals, tangents
        return app(f, x), 7.0 * t

    assert float(jax.grad(app, 1)(jnp.sin, 1.0)) == 7.0

    @jax.custom_jvp
    def bad(x):
        return x

    bad.defjvp(lambda p, t: (p[0], jnp.ones(3)))
    with pytest.raises(ValueError, match="corresponding shapes"):
        jax.jvp(bad, (1.0,), (1.0,))


@jax.custom_vjp
def clip_gradient(lo, hi, x):
    return x


def _clip_fwd(lo, hi, x):
    return x, (lo, hi)


def _clip_bwd(res, g):
    lo, hi = res
    return (None, None, jnp.clip(g, lo, hi))


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_custom_vjp_clip_gradient():
    f = lambda x: clip_gradient(-0.5, 0.5, jnp.sin(x) * 10.0)
    assert float(f(1.0)) == pytest.approx(np.sin(1.0) * 10)
    assert float(jax.grad(f)(1.0)) == pytest.approx(0.5 * np.cos(1.0) * 10, rel=1e-6)
    xs = jnp.array([0.0, 1.0, 3.1])
    expected = [float(jax.grad(f)(x)) for x in xs]
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(xs), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(f)))(xs), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(lambda x: jax.vmap(f)(x).sum())(xs), expected,
                               rtol=1e-6)


def test_custom_vjp_pytree_residuals_and_jvp_error():
    @jax.custom_vjp
    def f(d):
        return d["a"] * d["b"]

    f.defvjp(lambda d: (f(d), {"saved": (d["a"], d["b"])}),
             lambda res, g: ({"a": res["saved"][1] * g * 2, "b": res["saved"][0] * g},))
    g = jax.grad(f)({"a": 2.0, "b": 3.0})
    assert float(g["a"]) == 6.0 and float(g["b"]) == 2.0
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a "
                                        r"custom_vjp function\."):
        jax.jvp(f, ({"a": 2.0, "b": 3.0},), ({"a": 1.0, "b": 1.0},))


def test_jacobians_and_hessian():
    f = lambda x: jnp.sin(x) * x[::-1]
    x = jnp.array([1.0, 2.0, 3.0])
    expected = np.diag(np.cos([1.0, 2.0, 3.0]) * [3.0, 2.0, 1.0]) + np.fliplr(
        np.diag(np.sin([1.0, 2.0, 3.0])[::-1])) * (1 - np.eye(3)[::-1] * 0)
    expected = np.zeros((3, 3))
    for i in range(3):
        expected[i, i] += np.cos(x[i]) * x[2 - i]
        expected[i, 2 - i] += np.sin(x[i])
    np.testing.assert_allclose(jax.jacfwd(f)(x), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jacrev(f)(x), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.hessian(lambda x: jnp.sum(x ** 3))(x), np.diag(6 * x),
                               rtol=1e-6)
    g = lambda d: {"o": d["a"] * d["b"].sum()}
    jf = jax.jacfwd(g)({"a": jnp.ones(2), "b": jnp.ones(3)})
    jr = jax.jacrev(g)({"a": jnp.ones(2), "b": jnp.ones(3)})
    for j in (jf, jr):
        np.testing.assert_allclose(j["o"]["a"], 3 * np.eye(2))
        np.testing.assert_allclose(j["o"]["b"], np.ones((2, 3)))
    np.testing.assert_allclose(jax.jacrev(jax.jacfwd(lambda x: jnp.sum(jnp.tanh(x) ** 2)))(x),
                               jax.hessian(lambda x: jnp.sum(jnp.tanh(x) ** 2))(x), rtol=1e-5)


def test_linear_transpose():
    f_t = jax.linear_transpose(lambda x, y: 2.0 * x + y.sum(), 1.0, jnp.ones(3))
    ct_x, ct_y = f_t(3.0)
    assert float(ct_x) == 6.0
    np.testing.assert_allclose(ct_y, [3.0, 3.0, 3.0])
