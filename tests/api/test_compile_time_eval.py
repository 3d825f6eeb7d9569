"""ensure_compile_time_eval: inside a trace, operations on concrete values run at once (their
results are concrete Arrays, usable in Python control flow); operations on tracers are traced."""

from __future__ import annotations

from typing import Any

import numpy as np

import numjax as jax
import numjax.numpy as jnp
from numjax._src.core.trace import Tracer


def test_concrete_operations_run_while_tracing() -> None:
    seen: dict[str, Any] = {}

    @jax.jit
    def f(x: Any) -> Any:
        with jax.ensure_compile_time_eval():
            y = jnp.sin(3.0)
            positive = jnp.sin(y) > 0
            w = x + 1
            seen.update(y=y, w=w, key=jax.random.PRNGKey(0), a=jnp.arange(4) * 2,
                        jitted=jax.jit(lambda t: t * 3)(2.0))
        if positive:  # concrete: Python control flow works
            return jnp.sin(x) + w
        return jnp.cos(x) + w

    np.testing.assert_allclose(f(1.0), np.sin(1.0) + 2.0, rtol=1e-6)
    assert not isinstance(seen["y"], Tracer) and isinstance(seen["w"], Tracer)
    np.testing.assert_allclose(seen["y"], np.sin(np.float32(3.0)), rtol=1e-6)
    np.testing.assert_array_equal(seen["key"], [0, 0])
    np.testing.assert_array_equal(seen["a"], [0, 2, 4, 6])
    assert float(seen["jitted"]) == 6.0
    # The jaxpr (as JAX 0.4.30 prints it) holds only the traced operations.
    assert str(jax.make_jaxpr(f)(1.0)) == """{ lambda ; a:f32[]. let
    b:f32[] = pjit[
      name=f
      jaxpr={ lambda ; c:f32[]. let
          d:f32[] = add c 1.0
          e:f32[] = sin c
          f:f32[] = add e d
        in (f,) }
    ] a
  in (b,) }"""


def _scaled(x: Any) -> Any:
    with jax.ensure_compile_time_eval():
        c = jnp.ones(3) * 2
        assert not isinstance(c, Tracer)
    return x * c


def test_under_grad_vmap_and_eagerly() -> None:
    assert float(jax.grad(lambda x: _scaled(x).sum())(1.0)) == 6.0
    np.testing.assert_array_equal(jax.vmap(_scaled)(jnp.arange(2.0)), [[0, 0, 0], [2, 2, 2]])
    with jax.ensure_compile_time_eval():  # no transformation: nothing changes
        np.testing.assert_array_equal(jnp.ones(2) + 1, [2.0, 2.0])
    assert jax.core.ensure_compile_time_eval is jax.ensure_compile_time_eval
