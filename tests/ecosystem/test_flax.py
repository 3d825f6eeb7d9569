"""flax 0.8.5 (linen) on numjax: init, apply and grad of a small MLP.

Expected values were recorded from JAX 0.4.30 running the same program. flax's import needs
`jax.sharding.Mesh` and `PartitionSpec`.
"""

from __future__ import annotations

import numpy as np
from ecosystem_import import import_library

flax = import_library("flax")


def test_linen_mlp() -> None:
    import flax.linen as nn
    import jax
    import jax.numpy as jnp

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):  # type: ignore[no-untyped-def]
            hidden = nn.relu(nn.Dense(8)(x))  # created first: Dense_0
            return nn.Dense(1)(hidden)

    model = MLP()
    params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
    assert jax.tree_util.tree_map(jnp.shape, params) == {"params": {
        "Dense_0": {"bias": (8,), "kernel": (3, 8)}, "Dense_1": {"bias": (1,), "kernel": (8, 1)}}}
    np.testing.assert_allclose(model.apply(params, jnp.ones((2, 3))).ravel(),
                               [0.06310612708330154] * 2, rtol=1e-6)
    grads = jax.grad(lambda p: model.apply(p, jnp.ones((2, 3))).sum())(params)
    assert float(grads["params"]["Dense_1"]["bias"][0]) == 2.0


def test_nnx_mlp() -> None:
    import jax
    import jax.numpy as jnp
    from flax import nnx

    class MLP(nnx.Module):  # type: ignore[misc]
        def __init__(self, din, dh, dout, rngs):  # type: ignore[no-untyped-def]
            self.l1 = nnx.Linear(din, dh, rngs=rngs)
            self.l2 = nnx.Linear(dh, dout, rngs=rngs)

        def __call__(self, x):  # type: ignore[no-untyped-def]
            return self.l2(jax.nn.relu(self.l1(x)))

    model = MLP(2, 8, 1, nnx.Rngs(0))
    x = jnp.ones((4, 2))
    # JAX 0.4.30's values.
    np.testing.assert_allclose(model(x).ravel(), [-0.40266538] * 4, rtol=1e-6)
    np.testing.assert_allclose(nnx.jit(lambda m, x: m(x))(model, x).ravel(), [-0.40266538] * 4,
                               rtol=1e-6)
    grads = nnx.grad(lambda m: (m(x) ** 2).mean())(model)
    np.testing.assert_allclose(jax.tree_util.tree_leaves(nnx.state(grads))[0].ravel()[:3],
                               [-0.00250852, 0.0, 0.0], atol=1e-7, rtol=1e-5)
