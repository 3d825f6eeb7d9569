"""Programs in the style of JAX's "Custom derivative rules" tutorial, written afresh: implicit
differentiation of a fixed point (custom_vjp over a while_loop), defjvps, and a custom_vjp
that inspects cotangents; values checked against closed forms."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.interpreters.ad import CustomVJPException


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def fixed_point(step, a, x_guess):
    """The x with step(a, x) == x, found by iterating from x_guess."""
    def cond(carry):
        prev, x = carry
        return jnp.abs(prev - x) > 1e-6

    def body(carry):
        _, x = carry
        return x, step(a, x)

    return lax.while_loop(cond, body, (x_guess, step(a, x_guess)))[1]


def _fixed_point_fwd(step, a, x_guess):
    x_star = fixed_point(step, a, x_guess)
    return x_star, (a, x_star)


def _fixed_point_bwd(step, residuals, x_star_bar):
    # Implicit function theorem: solve w = x_star_bar + w * d step/dx by another fixed point,
    # then pull w back through d step/da.
    a, x_star = residuals
    _, vjp_a = jax.vjp(lambda a: step(a, x_star), a)
    _, vjp_x = jax.vjp(lambda x: step(a, x), x_star)
    w = fixed_point(lambda v, w: v + vjp_x(w)[0], x_star_bar, x_star_bar)
    (a_bar,) = vjp_a(w)
    return a_bar, jnp.zeros_like(x_star)


fixed_point.defvjp(_fixed_point_fwd, _fixed_point_bwd)


def newton_sqrt(a):
    return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)


def test_fixed_point_value_gradient_and_vmap():
    np.testing.assert_allclose(float(newton_sqrt(2.0)), np.sqrt(2.0), rtol=1e-6)
    np.testing.assert_allclose(float(jax.grad(newton_sqrt)(2.0)), 0.5 / np.sqrt(2.0), rtol=1e-5)
    # Second order differentiates the bwd rule's closure over `a`: refused, as in JAX 0.4.30.
    with pytest.raises(CustomVJPException, match="closed-over value"):
        jax.grad(jax.grad(newton_sqrt))(2.0)
    xs = jnp.array([1.0, 4.0, 9.0])
    np.testing.assert_allclose(np.asarray(jax.vmap(jax.grad(newton_sqrt))(xs)),
                               [0.5, 0.25, 1 / 6], rtol=1e-5)
    np.testing.assert_allclose(float(jax.jit(jax.grad(newton_sqrt))(16.0)), 0.125, rtol=1e-5)


@jax.custom_jvp
def scaled_sin(x, y):
    return jnp.sin(x) * y


scaled_sin.defjvps(lambda x_dot, primal_out, x, y: jnp.cos(x) * x_dot * y,
                   lambda y_dot, primal_out, x, y: jnp.sin(x) * y_dot)


def test_defjvps_gradients():
    x, y = 0.7, 3.0
    gx, gy = jax.grad(scaled_sin, argnums=(0, 1))(x, y)
    np.testing.assert_allclose([float(gx), float(gy)], [np.cos(x) * y, np.sin(x)], rtol=1e-6)
    out, tangent = jax.jvp(scaled_sin, (x, y), (1.0, 0.0))
    np.testing.assert_allclose(float(tangent), np.cos(x) * y, rtol=1e-6)


@jax.custom_vjp
def record_cotangent(x):
    return x


seen: list[float] = []


def _record_fwd(x):
    return x, None


def _record_bwd(_, g):
    seen.append(float(g))        # runs eagerly in the backward pass: a concrete cotangent
    return (g,)


record_cotangent.defvjp(_record_fwd, _record_bwd)


def test_custom_vjp_sees_the_cotangent():
    seen.clear()
    grad = jax.grad(lambda x: 3.0 * jnp.sin(record_cotangent(x)))(0.0)
    assert seen == [3.0]
    assert float(grad) == 3.0
