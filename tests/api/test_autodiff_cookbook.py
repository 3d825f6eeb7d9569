"""Autodiff-cookbook-style programs (logistic regression gradients, Hessians, HVPs, per-example
gradients, Jacobians, complex and holomorphic gradients) give JAX 0.4.30's values, recorded as
data in tests/data/autodiff_cookbook_golden.json."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp

GOLDEN = json.loads(
    (pathlib.Path(__file__).parent.parent / "data" / "autodiff_cookbook_golden.json").read_text())


def programs(jax: Any, jnp: Any) -> dict[str, Any]:
    """The programs, written once for any jax-like module pair."""
    key_inputs = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    targets = np.array([True, True, False, True])
    w0 = np.array([0.5, -0.3, 0.8], np.float32)
    b0 = np.float32(0.1)

    def sigmoid(x: Any) -> Any:
        return 0.5 * (jnp.tanh(x / 2) + 1)

    def predict(W: Any, b: Any, inputs: Any) -> Any:
        return sigmoid(jnp.dot(inputs, W) + b)

    def loss(W: Any, b: Any) -> Any:
        preds = predict(W, b, key_inputs)
        label_probs = preds * targets + (1 - preds) * (1 - targets)
        return -jnp.sum(jnp.log(label_probs))

    def hvp(f: Any, x: Any, v: Any) -> Any:
        return jax.jvp(jax.grad(f), (x,), (v,))[1]

    def f_quartic(x: Any) -> Any:
        return jnp.sum(x ** 4 + 3 * x ** 2 * jnp.sin(x))

    x0 = np.array([0.3, -1.2, 2.0], np.float32)
    v0 = np.array([1.0, 0.5, -0.25], np.float32)
    out = {
        "grad_tanh": [float(jax.grad(jnp.tanh)(2.0)), float(jax.grad(jax.grad(jnp.tanh))(2.0)),
                      float(jax.grad(jax.grad(jax.grad(jnp.tanh)))(2.0))],
        "loss_grad_W": np.asarray(jax.grad(loss, argnums=0)(w0, b0)).tolist(),
        "loss_grad_b": float(jax.grad(loss, argnums=1)(w0, b0)),
        "loss_value_and_grad": [float(jax.value_and_grad(loss)(w0, b0)[0])],
        "jacfwd_predict": np.asarray(jax.jacfwd(predict, argnums=0)(w0, b0, key_inputs)).tolist(),
        "jacrev_predict": np.asarray(jax.jacrev(predict, argnums=0)(w0, b0, key_inputs)).tolist(),
        "hessian_loss": np.asarray(jax.hessian(loss)(w0, b0)).tolist(),
        "hvp": np.asarray(hvp(f_quartic, x0, v0)).tolist(),
        "per_example": np.asarray(jax.vmap(jax.grad(lambda W, x, t: -jnp.log(
            predict(W, b0, x) * t + (1 - predict(W, b0, x)) * (1 - t))), (None, 0, 0))(
            w0, key_inputs, targets)).tolist(),
        "jvp_sin": [float(v) for v in jax.jvp(jnp.sin, (0.7,), (2.0,))],
        "vjp_pair": np.asarray(jax.vjp(lambda x: jnp.stack([x.sum(), (x * x).sum()]), x0)[1](
            np.array([1.0, 2.0], np.float32))[0]).tolist(),
        "complex_grad": complex(jax.grad(lambda z: jnp.abs(z) ** 2)(np.complex64(3 + 4j))),
        "holomorphic": complex(jax.grad(lambda z: z ** 3, holomorphic=True)(np.complex64(1 + 1j))),
    }
    return out


RESULTS = programs(jax, jnp)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_matches_jax(name: str) -> None:
    value = RESULTS[name]
    if isinstance(value, complex):
        value = [value.real, value.imag]
    np.testing.assert_allclose(np.asarray(value, np.float64), np.asarray(GOLDEN[name]),
                               rtol=1e-5, atol=1e-6)
