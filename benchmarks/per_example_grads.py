"""Per-example gradients (vmap of grad, batch 128), eager: a 1000-feature linear model and a
1000->10 softmax model, against hand-written NumPy and (when installed) JAX. Prints; asserts
nothing.

    python benchmarks/per_example_grads.py
"""

from __future__ import annotations

import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

import numjax
import numjax.numpy as jnp

try:  # JAX is optional: compared against when present.
    import jax
    import jax.numpy as jjnp
except ImportError:
    jax = None

rng = np.random.default_rng(0)
X = rng.normal(size=(128, 1000)).astype(np.float32)
Y = rng.normal(size=128).astype(np.float32)
LABELS = rng.integers(0, 10, 128)
W_LIN = (rng.normal(size=1000) * 0.01).astype(np.float32)
W_SM = (rng.normal(size=(1000, 10)) * 0.01).astype(np.float32)


def best(fn: Callable[[], Any], number: int = 20) -> float:
    fn()
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def linear_loss(m: Any) -> Callable[..., Any]:
    return lambda w, x, y: (m.dot(x, w) - y) ** 2


def softmax_loss(m: Any) -> Callable[..., Any]:
    def loss(w: Any, x: Any, label: Any) -> Any:
        logits = m.dot(x, w)
        logits = logits - logits.max()
        return -(logits[label] - m.log(m.exp(logits).sum()))
    return loss


def numpy_linear() -> Any:
    r = X @ W_LIN - Y
    return 2 * r[:, None] * X


def numpy_softmax() -> Any:
    logits = X @ W_SM
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(128), LABELS] -= 1
    return X[:, :, None] * p[:, None, :]


def main() -> None:
    cases = [("linear 1000 features", linear_loss, W_LIN, Y, numpy_linear),
             ("softmax 1000->10", softmax_loss, W_SM, LABELS, numpy_softmax)]
    for name, make, w, t, by_hand in cases:
        ours = numjax.vmap(numjax.grad(make(jnp)), (None, 0, 0))
        got = np.asarray(ours(w, X, t))
        np.testing.assert_allclose(got, by_hand(), rtol=1e-3, atol=1e-5)
        t_ours = best(lambda f=ours, w=w, t=t: f(w, X, t))
        t_np = best(by_hand)
        line = (f"per-example grads, {name:22} numjax {t_ours * 1e3:8.3f} ms | "
                f"numpy by hand {t_np * 1e3:8.3f} ms ({t_ours / t_np:5.2f}x)")
        if jax is not None:
            theirs = jax.vmap(jax.grad(make(jjnp)), (None, 0, 0))
            t_j = best(lambda f=theirs, w=w, t=t: f(w, X, t).block_until_ready())
            line += f" | jax {t_j * 1e3:8.3f} ms (numjax/jax {t_ours / t_j:5.2f}x)"
        print(line)


if __name__ == "__main__":
    main()
