"""numjax.experimental.ode.odeint against values recorded from JAX 0.4.30's
`jax.experimental.ode.odeint` (at the default tolerances both sit at float32's rounding
noise, so values agree to a few float32 ulps of accumulated error, not bit for bit); gradients
against finite differences; vmap against a loop; jit against eager; JAX's errors."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax._src import ode as ode_impl
from numjax.experimental.ode import odeint

GOLDEN = {  # JAX 0.4.30: (dtype, values)
    'decay': ('float32', [1.0, 0.36787939071655273, 0.13533525168895721]),
    'lv_x': ('float32',
        [1.0, 2.35101318359375, 2.490731716156006, 0.371084988117218, 0.16507157683372498,
        0.2129361778497696]),
    'lv_y': ('float32',
        [0.5, 0.9117912650108337, 5.790247440338135, 6.7523193359375, 3.112147808074951,
        1.3673862218856812]),
    'grad_y0_k': ('float32', [1.6034613847732544, -0.9806625843048096]),
    'grad_t': ('float32', [-11.65052604675293, 3.8514161109924316, 2.7608211040496826]),
    'loose_jit': ('float32',
        [[1.0, 2.0], [0.6546546220779419, 0.7972211241722107], [0.5222949385643005,
        0.5879386067390442], [0.4472176134586334, 0.48680761456489563]]),
    'mxstep1': ('float32', [1.0, 0.3690376877784729]),
    'mxstep2': ('float32', [1.0, 0.36770495772361755]),
    'mxstep3': ('float32', [1.0, 0.36788031458854675]),
    'hmax': ('float32', [1.0, 0.3678794205188751]),
    'closure_grad': ('float32', -0.6065305471420288),
    'vdp': ('float32',
        [[2.0, 0.0], [1.6980410814285278, -0.4087299704551697], [1.1679292917251587,
        -0.7250542044639587], [-0.3936651647090912, -3.336630344390869]]),
    'vdp_grad_mu': ('float32', 2.3309707641601562),
    'f64_decay': ('float64', [1.0, 0.3678794420798061]),
}


def _check(name, value, rtol=5e-5):
    dtype, expected = GOLDEN[name]
    value = np.asarray(value)
    assert value.dtype == dtype
    np.testing.assert_allclose(value, expected, rtol=rtol, atol=1e-6)


def _decay(y, t, k):
    return -k * y


def _lotka_volterra(s, t, a, b):
    x, y = s["x"], s["y"]
    return {"x": a * x - b * x * y, "y": -y + x * y}


def _van_der_pol(y, t, mu):
    return jnp.array([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


def test_exponential_decay():
    ys = odeint(_decay, 1.0, jnp.array([0.0, 0.5, 1.0]), 2.0)
    _check("decay", ys)
    np.testing.assert_allclose(ys, np.exp(-2.0 * np.array([0.0, 0.5, 1.0])), rtol=2e-6)


def test_pytree_state():
    out = odeint(_lotka_volterra, {"x": 1.0, "y": 0.5}, jnp.linspace(0.0, 5.0, 6), 1.1, 0.4)
    assert set(out) == {"x", "y"}
    _check("lv_x", out["x"])
    _check("lv_y", out["y"])


def test_van_der_pol():
    _check("vdp", odeint(_van_der_pol, jnp.array([2.0, 0.0]), jnp.linspace(0.0, 3.0, 4), 2.0))


def test_tolerances_under_jit():
    def solve(y0):
        return odeint(lambda y, t: -y ** 3, y0, jnp.linspace(0, 2.0, 4), rtol=1e-3, atol=1e-3)

    out = numjax.jit(solve)(jnp.array([1.0, 2.0]))
    _check("loose_jit", out)
    np.testing.assert_allclose(out, solve(jnp.array([1.0, 2.0])), rtol=1e-6)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_mxstep_caps_the_steps_per_interval(n):
    out = odeint(lambda y, t: -y, 1.0, jnp.array([0.0, 1.0]), mxstep=n, rtol=1e-4, atol=1e-4)
    _check(f"mxstep{n}", out)


def test_hmax():
    _check("hmax", odeint(lambda y, t: -y, 1.0, jnp.array([0.0, 1.0]), hmax=0.1))


def test_float64():
    with numjax.experimental.enable_x64():
        out = odeint(lambda y, t: -y, jnp.array(1.0, jnp.float64),
                     jnp.array([0.0, 1.0], jnp.float64))
    _check("f64_decay", out, rtol=1e-12)


# ---- gradients: the adjoint method against JAX and finite differences ----------------------


def _sum_of_solution(y0, k):
    return odeint(lambda y, t, k: -k * y * y + jnp.sin(t), y0, jnp.array([0.0, 0.5, 2.0]),
                  k).sum()


def _central_difference(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (float(f(jnp.asarray(x + step, jnp.float32)))
                   - float(f(jnp.asarray(x - step, jnp.float32)))) / (2 * eps)
    return grad


def test_grad_with_respect_to_y0_and_args():
    g = numjax.grad(_sum_of_solution, (0, 1))(1.0, 0.7)
    _check("grad_y0_k", jnp.array(g))
    fd = [_central_difference(lambda v: _sum_of_solution(v, 0.7), 1.0),
          _central_difference(lambda v: _sum_of_solution(1.0, v), 0.7)]
    np.testing.assert_allclose([float(v) for v in g], [float(v) for v in fd], rtol=2e-3)


def test_grad_with_respect_to_times():
    def total(t):
        return odeint(lambda y, t: jnp.cos(t) * y, jnp.array([1.0, 2.0]), t).sum()

    t = jnp.array([0.0, 0.3, 1.2])
    g = numjax.grad(total)(t)
    _check("grad_t", g)
    np.testing.assert_allclose(g, _central_difference(total, t), rtol=2e-3)


def test_grad_through_a_closure_and_of_a_pytree_argument():
    g = numjax.grad(lambda k: odeint(lambda y, t: -k * y, 1.0, jnp.array([0.0, 1.0]))[1])(0.5)
    _check("closure_grad", g)

    def last_x(params):
        out = odeint(lambda s, t, p: _lotka_volterra(s, t, p["a"], p["b"]),
                     {"x": 1.0, "y": 0.5}, jnp.linspace(0.0, 1.0, 3), params)
        return out["x"][-1]

    g = numjax.grad(last_x)({"a": 1.1, "b": 0.4})
    fd_a = _central_difference(lambda a: last_x({"a": a, "b": 0.4}), 1.1)
    fd_b = _central_difference(lambda b: last_x({"a": 1.1, "b": b}), 0.4)
    np.testing.assert_allclose([float(g["a"]), float(g["b"])], [fd_a, fd_b], rtol=2e-3)


def test_grad_of_van_der_pol_parameter():
    def last(mu):
        return odeint(_van_der_pol, jnp.array([2.0, 0.0]), jnp.linspace(0.0, 3.0, 4), mu)[-1, 0]

    g = numjax.grad(last)(2.0)
    _check("vdp_grad_mu", g, rtol=2e-4)
    np.testing.assert_allclose(float(g), _central_difference(last, 2.0), rtol=5e-3)


def test_jit_of_grad_matches_eager_grad():
    eager = numjax.grad(_sum_of_solution)(1.0, 0.7)
    jitted = numjax.jit(numjax.grad(_sum_of_solution))(1.0, 0.7)
    np.testing.assert_allclose(jitted, eager, rtol=1e-6)


def test_vmap_matches_a_loop():
    y0s = jnp.array([1.0, 2.0, 3.0])
    ks = jnp.array([0.5, 1.0, 2.0])

    def solve(y0, k):
        return odeint(_decay, y0, jnp.array([0.0, 1.0, 2.0]), k)

    batched = numjax.vmap(solve)(y0s, ks)
    looped = np.stack([np.asarray(solve(a, b)) for a, b in zip(y0s, ks, strict=True)])
    # A batched solve rounds its (batched) products differently: equal to float32 noise.
    np.testing.assert_allclose(batched, looped, rtol=1e-5)
    grads = numjax.vmap(numjax.grad(lambda k: solve(1.0, k)[-1]))(ks)
    np.testing.assert_allclose(grads, [float(numjax.grad(lambda k: solve(1.0, k)[-1])(k))
                                       for k in ks], rtol=1e-5)


def test_bad_arguments_raise_jax_errors():
    with pytest.raises(TypeError, match="^The contents of odeint \\*args must be arrays or "
                                        "scalars, but got a\\.$"):
        odeint(lambda y, t, s: y, 1.0, jnp.array([0.0, 1.0]), "a")
    with pytest.raises(TypeError, match=r"^t must be an array of floats, but got \[0 1\]\.$"):
        odeint(lambda y, t: y, 1.0, jnp.array([0, 1]))


def test_docstring_examples():
    result = doctest.testmod(ode_impl)
    assert result.failed == 0 and result.attempted > 0
