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


def test_linen_cnn_train_state_with_optax() -> None:
    # flax.training.train_state.TrainState with optax's sgd (momentum): a linen CNN trained
    # for five jitted steps of value_and_grad(has_aux=True) and apply_gradients.
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    import optax
    from flax.training import train_state

    class CNN(nn.Module):
        @nn.compact
        def __call__(self, x):  # type: ignore[no-untyped-def]
            x = nn.Conv(features=4, kernel_size=(3, 3))(x)
            x = nn.relu(x)
            x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
            x = x.reshape((x.shape[0], -1))
            x = nn.Dense(features=16)(x)
            x = nn.relu(x)
            return nn.Dense(features=10)(x)

    model = CNN()
    images = jax.random.normal(jax.random.PRNGKey(1), (8, 8, 8, 1))
    labels = jnp.arange(8) % 10
    params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 8, 8, 1)))["params"]
    state = train_state.TrainState.create(apply_fn=model.apply, params=params,
                                          tx=optax.sgd(0.1, momentum=0.9))

    @jax.jit
    def train_step(state, images, labels):  # type: ignore[no-untyped-def]
        def loss_fn(params):  # type: ignore[no-untyped-def]
            logits = state.apply_fn({"params": params}, images)
            loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
            return loss, logits

        (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
        state = state.apply_gradients(grads=grads)
        return state, loss, jnp.mean(jnp.argmax(logits, -1) == labels)

    losses = []
    for _ in range(5):
        state, loss, accuracy = train_step(state, images, labels)
        losses.append(float(loss))
    # JAX 0.4.30's values for the same program.
    np.testing.assert_allclose(losses, [2.3244762420654297, 2.2493784427642822,
                                        2.153938055038452, 2.059936761856079,
                                        1.9685531854629517], rtol=1e-5)
    assert int(state.step) == 5 and state.step.weak_type
    assert float(accuracy) == 0.5
    np.testing.assert_allclose(
        state.params["Dense_1"]["bias"],
        [0.05861668288707733, 0.06090143322944641, 0.031012406572699547, 0.06334037333726883,
         -0.03679051995277405, 0.018374493345618248, 0.03562023118138313,
         0.026093481108546257, -0.12234813719987869, -0.13482044637203217],
        rtol=1e-5, atol=1e-7)
