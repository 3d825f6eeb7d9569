"""How tracers print: the text JAX 0.4.30 gives in each context (recorded from JAX) — the
aval, the trace and its level, and the contents of JVP, batch and partial-evaluation tracers."""

from __future__ import annotations

from typing import Any

import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax

GOLDEN = {
    'jit': 'Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace(level=1/0)>',
    'jit_weak_scalar': (
        'Traced<ShapedArray(float32[], weak_type=True)>with<DynamicJaxprTrace(l'
        'evel=1/0)>'
    ),
    'jit_int': 'Traced<ShapedArray(int32[3])>with<DynamicJaxprTrace(level=1/0)>',
    'jit_of_jit': 'Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace(level=2/0)>',
    'grad': (
        'Traced<ConcreteArray([1. 1. 1.], dtype=float32)>with<JVPTrace(level=2/0)> with\n'
        '  primal = Array([1., 1., 1.], dtype=float32)\n'
        '  tangent = Traced<ShapedArray(float32[3])>with<JaxprTrace(level=1/0)> with\n'
        '    pval = (ShapedArray(float32[3]), None)\n'
        '    recipe = LambdaBinding()'
    ),
    'jit_of_grad': (
        'Traced<ShapedArray(float32[3])>with<JVPTrace(level=3/0)> with\n'
        '  primal = Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace(level=1/0)>\n'
        '  tangent = Traced<ShapedArray(float32[3])>with<JaxprTrace(level=2/0)> with\n'
        '    pval = (ShapedArray(float32[3]), None)\n'
        '    recipe = LambdaBinding()'
    ),
    'grad_of_jit': 'Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace(level=3/0)>',
    'vmap': (
        'Traced<ShapedArray(float32[])>with<BatchTrace(level=1/0)> with\n'
        '  val = Array([1., 1., 1.], dtype=float32)\n'
        '  batch_dim = 0'
    ),
    'vmap_of_vmap': (
        'Traced<ShapedArray(float32[])>with<BatchTrace(level=2/0)> with\n'
        '  val = Traced<ShapedArray(float32[3])>with<BatchTrace(level=1/0)> with\n'
        '    val = Array([[1., 1., 1.],\n'
        '       [1., 1., 1.]], dtype=float32)\n'
        '    batch_dim = 0\n'
        '  batch_dim = 0'
    ),
    'vmap_of_jit': 'Traced<ShapedArray(float32[])>with<DynamicJaxprTrace(level=2/0)>',
    'jvp': (
        'Traced<ConcreteArray([1. 1. 1.], dtype=float32)>with<JVPTrace(level=1/0)> with\n'
        '  primal = Array([1., 1., 1.], dtype=float32)\n'
        '  tangent = Array([1., 1., 1.], dtype=float32)'
    ),
    'linearize': (
        'Traced<ConcreteArray([1. 1. 1.], dtype=float32)>with<JVPTrace(level=2/0)> with\n'
        '  primal = Array([1., 1., 1.], dtype=float32)\n'
        '  tangent = Traced<ShapedArray(float32[3])>with<JaxprTrace(level=1/0)> with\n'
        '    pval = (ShapedArray(float32[3]), None)\n'
        '    recipe = LambdaBinding()'
    ),
    'grad_of_grad': (
        'Traced<ConcreteArray(1.0, dtype=float32, weak_type=True)>with<JVPTrace(level=4/0)> with\n'
        '  primal = Traced<ConcreteArray(1.0, dtype=float32, weak_type=True)>wi'
        'th<JVPTrace(level=2/0)> with\n'
        '    primal = 1.0\n'
        '    tangent = Traced<ShapedArray(float32[], weak_type=True)>with<Jaxpr'
        'Trace(level=1/0)> with\n'
        '      pval = (ShapedArray(float32[], weak_type=True), None)\n'
        '      recipe = LambdaBinding()\n'
        '  tangent = Traced<ShapedArray(float32[], weak_type=True)>with<JaxprTr'
        'ace(level=3/0)> with\n'
        '    pval = (ShapedArray(float32[], weak_type=True), None)\n'
        '    recipe = LambdaBinding()'
    ),
    'scan_carry': (
        'Traced<ShapedArray(float32[], weak_type=True)>with<DynamicJaxprTrace(l'
        'evel=1/0)>'
    ),
    'make_jaxpr': 'Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace(level=1/0)>',
    'vmap_of_grad': (
        'Traced<ShapedArray(float32[])>with<JVPTrace(level=3/0)> with\n'
        '  primal = Traced<ShapedArray(float32[])>with<BatchTrace(level=1/0)> with\n'
        '    val = Array([1., 1., 1.], dtype=float32)\n'
        '    batch_dim = 0\n'
        '  tangent = Traced<ShapedArray(float32[])>with<JaxprTrace(level=2/0)> with\n'
        '    pval = (ShapedArray(float32[]), None)\n'
        '    recipe = LambdaBinding()'
    ),
}


def _printed() -> dict[str, str]:
    seen: dict[str, str] = {}

    def grab(name: str) -> Any:
        def keep(x: Any) -> Any:
            seen[name] = repr(x)
            return x
        return keep

    x = jnp.ones(3)
    jax.jit(lambda x: grab("jit")(x))(x)
    jax.jit(lambda x: grab("jit_weak_scalar")(x))(1.0)
    jax.jit(lambda x: grab("jit_int")(x))(jnp.arange(3))
    jax.jit(lambda x: jax.jit(grab("jit_of_jit"))(x))(x)
    jax.grad(lambda x: grab("grad")(x).sum())(x)
    jax.jit(jax.grad(lambda x: grab("jit_of_grad")(x).sum()))(x)
    jax.grad(jax.jit(lambda x: grab("grad_of_jit")(x).sum()))(x)
    jax.vmap(grab("vmap"))(x)
    jax.vmap(jax.vmap(grab("vmap_of_vmap")))(jnp.ones((2, 3)))
    jax.vmap(jax.jit(grab("vmap_of_jit")))(x)
    jax.jvp(grab("jvp"), (x,), (x,))
    jax.linearize(grab("linearize"), x)
    jax.grad(lambda x: jax.grad(lambda y: grab("grad_of_grad")(y) ** 3)(x))(1.0)
    lax.scan(lambda c, x: (grab("scan_carry")(c), x), 0.0, x)
    jax.make_jaxpr(grab("make_jaxpr"))(x)
    jax.vmap(jax.grad(lambda x: grab("vmap_of_grad")(x)))(x)
    return seen


PRINTED = _printed()


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_a_tracer_prints_as_in_jax(name: str) -> None:
    assert PRINTED[name] == GOLDEN[name]


def test_str_and_format_are_the_repr() -> None:
    seen = []
    jax.jit(lambda x: seen.append((str(x), f"{x}", repr(x))) or x)(jnp.ones(2))
    assert len(set(seen[0])) == 1
    assert seen[0][0] == "Traced<ShapedArray(float32[2])>with<DynamicJaxprTrace(level=1/0)>"
