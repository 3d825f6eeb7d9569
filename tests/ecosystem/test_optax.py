"""optax 0.2.3 on numjax: the quick start (adam on a small MLP), schedules and losses.

Expected values were recorded from JAX 0.4.30 running the same programs.
"""

from __future__ import annotations

import numpy as np
import pytest
from ecosystem_import import import_library

optax = import_library("optax")

# Losses after steps 1, 10 and 50 of adam(1e-2) behind clip_by_global_norm(1.0), and the final
# loss (JAX 0.4.30).
ADAM_LOSSES = [1.3209664821624756, 0.43201977014541626, 0.03803481534123421]
ADAM_FINAL_LOSS = 0.037103258073329926
ADAM_FINAL_B2 = [-0.07723808288574219]


def _mlp_problem():  # type: ignore[no-untyped-def]
    import jax
    import jax.numpy as jnp

    k1, k2, k3, _ = jax.random.split(jax.random.PRNGKey(0), 4)
    params = {"w1": jax.random.normal(k1, (3, 8)) * 0.5, "b1": jnp.zeros(8),
              "w2": jax.random.normal(k2, (8, 1)) * 0.5, "b2": jnp.zeros(1)}
    x = jax.random.normal(k3, (16, 3))
    y = jnp.sin(x.sum(axis=1, keepdims=True))

    def loss(p, x, y):  # type: ignore[no-untyped-def]
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)

    return params, x, y, loss


@pytest.mark.parametrize("jit", [True, False])
def test_adam_trains_a_small_mlp(jit: bool) -> None:
    import jax

    params, x, y, loss = _mlp_problem()
    opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(1e-2))
    state = opt.init(params)

    def step(p, s, x, y):  # type: ignore[no-untyped-def]
        value, grads = jax.value_and_grad(loss)(p, x, y)
        updates, s = opt.update(grads, s, p)
        return optax.apply_updates(p, updates), s, value

    step = jax.jit(step) if jit else step
    losses = []
    for _ in range(50):
        params, state, value = step(params, state, x, y)
        losses.append(float(value))
    np.testing.assert_allclose([losses[0], losses[9], losses[49]], ADAM_LOSSES, rtol=2e-5)
    np.testing.assert_allclose(float(loss(params, x, y)), ADAM_FINAL_LOSS, rtol=2e-5)
    np.testing.assert_allclose(params["b2"], ADAM_FINAL_B2, rtol=2e-5)
    adam_state = state[1][0]
    assert int(adam_state.count) == 50 and adam_state.count.dtype == np.int32
    assert adam_state.mu["w1"].dtype == np.float32


def test_schedule_and_sgd_momentum() -> None:
    import jax.numpy as jnp

    schedule = optax.cosine_decay_schedule(0.1, 100)
    np.testing.assert_allclose([float(schedule(s)) for s in (0, 50, 100, 150)],
                               [0.10000000149011612, 0.04999999701976776, 0.0, 0.0], rtol=1e-6)
    sgd = optax.sgd(0.1, momentum=0.9)
    updates, _ = sgd.update({"a": jnp.array([1.0, -2.0])}, sgd.init({"a": jnp.zeros(2)}))
    np.testing.assert_allclose(updates["a"], [-0.1, 0.2], rtol=1e-6)
    assert updates["a"].dtype == jnp.float32


def test_losses() -> None:
    import jax.numpy as jnp

    xent = optax.softmax_cross_entropy(jnp.array([[1.0, 2.0, 3.0]]), jnp.array([[0.0, 0.0, 1.0]]))
    np.testing.assert_allclose(xent, [0.4076060354709625], rtol=1e-6)
    l2 = optax.l2_loss(jnp.array([1.0, 2.0]), jnp.array([0.0, 0.0]))
    np.testing.assert_array_equal(l2, [0.5, 2.0])
