"""dm-haiku 0.0.12 on numjax: transform, init and apply of an MLP.

Expected values were recorded from JAX 0.4.30 running the same program. haiku imports flax.
"""

from __future__ import annotations

import numpy as np
from ecosystem_import import import_library

hk = import_library("haiku")


def test_transformed_mlp() -> None:
    import jax
    import jax.numpy as jnp

    transformed = hk.transform(lambda x: hk.nets.MLP([8, 1])(x))
    params = transformed.init(jax.random.PRNGKey(0), jnp.ones((1, 3)))
    assert jax.tree_util.tree_map(jnp.shape, params) == {
        "mlp/~/linear_0": {"b": (8,), "w": (3, 8)}, "mlp/~/linear_1": {"b": (1,), "w": (8, 1)}}
    np.testing.assert_allclose(transformed.apply(params, None, jnp.ones((2, 3))).ravel(),
                               [0.02132236771285534] * 2, rtol=1e-6)
