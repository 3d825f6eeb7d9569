"""device_put / device_get / block_until_ready on the CPU device."""

import numpy as np

import numjax as jax
import numjax.numpy as jnp


def test_device_put_copies_host_values_and_commits_to_a_device():
    host = np.ones(3)
    x = jax.device_put(host)
    host[0] = 5.0
    np.testing.assert_allclose(x, [1.0, 1.0, 1.0])
    assert x.dtype == np.float32 and not x.committed
    d = jax.devices()[0]
    tree = jax.device_put({"a": 1.0, "b": [np.arange(2)]}, d)
    assert tree["a"].committed and tree["a"].weak_type
    assert tree["b"][0].dtype == np.int32 and tree["b"][0].device() == d


def test_device_get_and_block_until_ready():
    out = jax.device_get({"a": jnp.ones(2), "b": 3})
    assert isinstance(out["a"], np.ndarray) and out["b"] == 3
    tree = (jnp.ones(1), {"c": jnp.zeros(2)})
    assert jax.block_until_ready(tree) is tree
