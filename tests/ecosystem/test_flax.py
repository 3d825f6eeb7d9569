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
