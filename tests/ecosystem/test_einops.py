"""einops 0.8.0 on numjax arrays: einops finds numjax through its `jax` backend.

Expected values were recorded from JAX 0.4.30 running the same calls.
"""

from __future__ import annotations

import numpy as np
from ecosystem_import import import_library

einops = import_library("einops")


def _x():  # type: ignore[no-untyped-def]
    import jax.numpy as jnp

    return jnp.arange(24.0).reshape(2, 3, 4)


def test_rearrange_reduce_repeat() -> None:
    import jax.numpy as jnp

    x = _x()
    r = einops.rearrange(x, "a b c -> c (a b)")
    assert r.shape == (4, 6) and r.dtype == jnp.float32
    np.testing.assert_array_equal(r[1], [1.0, 5.0, 9.0, 13.0, 17.0, 21.0])
    np.testing.assert_array_equal(einops.reduce(x, "a b c -> a c", "max"),
                                  [[8.0, 9.0, 10.0, 11.0], [20.0, 21.0, 22.0, 23.0]])
    np.testing.assert_array_equal(einops.reduce(x, "a (b1 b2) c -> a c", "mean", b1=3),
                                  [[4.0, 5.0, 6.0, 7.0], [16.0, 17.0, 18.0, 19.0]])
    rep = einops.repeat(jnp.arange(3), "n -> n k", k=2)
    np.testing.assert_array_equal(rep, [[0, 0], [1, 1], [2, 2]])
    assert rep.dtype == jnp.int32
    np.testing.assert_array_equal(einops.einsum(x, x, "a b c, a b c -> a"), [506.0, 3818.0])
    packed, shapes = einops.pack([jnp.ones((2, 3)), jnp.zeros((2,))], "b *")
    assert packed.shape == (2, 4) and shapes == [(3,), ()]


def test_under_transformations() -> None:
    import jax

    x = _x()
    jitted = jax.jit(lambda v: einops.rearrange(v, "a b c -> (a c) b"))(x)
    np.testing.assert_array_equal(jitted[5], [13.0, 17.0, 21.0])
    grad = jax.grad(lambda v: einops.reduce(v**2, "a b c -> ", "sum"))(x)
    np.testing.assert_array_equal(grad[1, 2], [40.0, 42.0, 44.0, 46.0])
    assert jax.vmap(lambda v: einops.rearrange(v, "b c -> c b"))(x).shape == (2, 4, 3)
