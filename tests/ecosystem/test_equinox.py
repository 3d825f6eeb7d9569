"""equinox 0.11.4 on numjax: a Module, filter_jit/filter_grad, an MLP trained with optax.

Expected values were recorded from JAX 0.4.30 running the same programs.
"""

from __future__ import annotations

import numpy as np
import pytest
from ecosystem_import import import_library

eqx = import_library("equinox")
optax = import_library("optax")

# equinox registers its primitives' printers through jax.core's deprecated names, as in JAX.
pytestmark = pytest.mark.filterwarnings("ignore:jax.core.pp_:DeprecationWarning")


def test_mlp_trains_with_optax() -> None:
    import jax
    import jax.numpy as jnp

    model_key, data_key = jax.random.split(jax.random.PRNGKey(0))
    model = eqx.nn.MLP(in_size=2, out_size=1, width_size=8, depth=2, key=model_key)
    x = jax.random.normal(data_key, (32, 2))
    y = jnp.sum(x**2, axis=1, keepdims=True)

    @eqx.filter_value_and_grad
    def loss(m, x, y):  # type: ignore[no-untyped-def]
        return jnp.mean((jax.vmap(m)(x) - y) ** 2)

    opt = optax.adam(1e-2)
    state = opt.init(eqx.filter(model, eqx.is_array))

    @eqx.filter_jit
    def step(m, s, x, y):  # type: ignore[no-untyped-def]
        value, grads = loss(m, x, y)
        updates, s = opt.update(grads, s, eqx.filter(m, eqx.is_array))
        return eqx.apply_updates(m, updates), s, value

    losses = []
    for _ in range(30):
        model, state, value = step(model, state, x, y)
        losses.append(float(value))
    np.testing.assert_allclose([losses[0], losses[9], losses[29]],
                               [6.697200298309326, 4.792934417724609, 1.7343134880065918],
                               rtol=2e-5)


def test_module_filter_transformations_and_printing() -> None:
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    linear = eqx.nn.Linear(2, 3, key=key)
    np.testing.assert_allclose(linear(jnp.ones(2)),
                               [0.9670617580413818, -0.18434542417526245, 0.7763453722000122],
                               rtol=1e-6)
    assert eqx.tree_pformat(linear, short_arrays=True) == (
        "Linear(\n  weight=f32[3,2],\n  bias=f32[3],\n  in_features=2,\n  out_features=3,\n"
        "  use_bias=True\n)")

    class Scale(eqx.Module):
        w: jax.Array
        n: int = eqx.field(static=True)

        def __call__(self, x):  # type: ignore[no-untyped-def]
            return self.w * x * self.n

    m = Scale(jnp.array([1.0, 2.0]), 3)
    assert m(2.0).tolist() == [6.0, 12.0]
    assert [leaf.tolist() for leaf in jax.tree_util.tree_leaves(m)] == [[1.0, 2.0]]
    assert eqx.filter_jit(lambda m, x: m(x))(m, jnp.ones(2)).tolist() == [3.0, 6.0]
    assert eqx.filter_grad(lambda m, x: jnp.sum(m(x)))(m, jnp.ones(2)).w.tolist() == [3.0, 3.0]
    assert eqx.filter_vmap(lambda m, x: m(x), in_axes=(None, 0))(m, jnp.ones((4, 2))).shape == (
        4, 2)
