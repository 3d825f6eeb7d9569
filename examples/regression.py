"""Fit a small linear model by gradient descent, with per-example losses from vmap.

Runs on numjax exactly as written for JAX (`import numjax as jax`):

    python examples/regression.py
"""

import numpy as np

import numjax as jax
import numjax.numpy as jnp


def predict(params, x):
    w, b = params
    return jnp.dot(x, w) + b


def example_loss(params, x, y):
    return (predict(params, x) - y) ** 2


def loss(params, xs, ys):
    return jnp.mean(jax.vmap(example_loss, in_axes=(None, 0, 0))(params, xs, ys))


def main() -> None:
    rng = np.random.default_rng(0)
    true_w = np.array([2.0, -3.0, 0.5], np.float32)
    xs = rng.normal(size=(256, 3)).astype(np.float32)
    ys = xs @ true_w + 1.0 + 0.01 * rng.normal(size=256).astype(np.float32)
    params = (jnp.zeros(3), jnp.zeros(()))
    grad_loss = jax.value_and_grad(loss)
    for step in range(201):
        value, grads = grad_loss(params, xs, ys)
        params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
        if step % 50 == 0:
            print(f"step {step:3d}  loss {float(value):.5f}")
    w, b = params
    print("learned w:", np.round(np.asarray(w), 3), " b:", round(float(b), 3))
    print("true    w:", true_w, " b: 1.0")


if __name__ == "__main__":
    main()
