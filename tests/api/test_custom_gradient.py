"""custom_gradient: a function returning (output, rule) differentiates with its rule, under
jit, vmap and higher order (values recorded from JAX 0.4.30 for the same programs)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp


@jax.custom_gradient
def _square(x: Any) -> Any:
    return x ** 2, lambda g: (g * x,)  # deliberately half the true derivative


@jax.custom_gradient
def _clip_gradient(x: Any) -> Any:
    return x, lambda g: (jnp.clip(g, -0.5, 0.5),)


def test_the_rule_is_the_gradient() -> None:
    assert _square(3.0) == 9.0  # eagerly, the function's own output
    assert float(jax.grad(_square)(3.0)) == 3.0
    value, grad = jax.value_and_grad(_square)(3.0)
    assert (float(value), float(grad)) == (9.0, 3.0)
    assert float(jax.grad(jax.grad(_square))(3.0)) == 1.0  # the rule is differentiated
    assert float(jax.jit(jax.grad(_square))(3.0)) == 3.0
    np.testing.assert_array_equal(jax.vmap(jax.grad(_square))(jnp.arange(3.0)), [0, 1, 2])
    np.testing.assert_array_equal(jax.grad(lambda x: 3 * _clip_gradient(x).sum())(jnp.ones(3)),
                                  [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(
        jax.jit(jax.grad(lambda x: (_clip_gradient(x) * x).sum()))(jnp.arange(3.0)),
        [0.0, 1.5, 2.5])
    assert str(jax.make_jaxpr(jax.grad(_square))(3.0)) == """{ lambda ; a:f32[]. let
    _:f32[] = integer_pow[y=2] a
    b:f32[] = mul 1.0 a
  in (b,) }"""


def test_several_arguments_and_pytrees() -> None:
    @jax.custom_gradient
    def g(x: Any, y: Any) -> Any:
        return x * y, lambda ct: (ct * y * 2, ct * x * 3)

    gx, gy = jax.grad(g, argnums=(0, 1))(2.0, 5.0)
    assert (float(gx), float(gy)) == (10.0, 6.0)

    @jax.custom_gradient
    def h(d: Any) -> Any:
        out = {"a": d["x"] * 2, "b": jnp.sin(d["y"])}
        return out, lambda ct: ({"x": ct["a"] * 10, "y": ct["b"] + 1},)

    grads = jax.grad(lambda d: h(d)["a"] + h(d)["b"])({"x": 1.0, "y": 2.0})
    assert {k: float(v) for k, v in grads.items()} == {"x": 10.0, "y": 3.0}


def test_a_rule_closing_over_traced_values() -> None:
    @jax.custom_gradient
    def scaled(x: Any, s: Any) -> Any:
        return x * s, lambda g: (g * jnp.exp(s), g * 0.0)

    f = jax.jit(jax.grad(lambda x, s: scaled(x, s) ** 2))
    np.testing.assert_allclose(f(1.5, 0.5), 2 * 1.5 * 0.5 * np.exp(0.5), rtol=1e-6)


def test_a_rule_of_the_wrong_arity_fails_as_in_jax() -> None:
    @jax.custom_gradient
    def pair(x: Any) -> Any:
        return (x, x), lambda ct: (ct[0] + ct[1],)

    assert float(jax.grad(lambda x: pair(x)[0] + pair(x)[1])(1.0)) == 2.0
    wrong = jax.custom_gradient(lambda x: (x, lambda a, b: (a,)))
    with pytest.raises(TypeError, match=r"(?m)missing 1 required positional argument: 'b'$"):
        jax.grad(wrong)(1.0)
