"""A JAX program training a small classifier with jax.nn, jax.scipy.special, jax.flatten_util
and jax.ops, run unmodified by JAX 0.4.30 (to record tests/data/nn_golden.txt) and by numjax
(tests/test_programs.py). It prints values rounded to 4 decimals, one check per line.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.flatten_util import ravel_pytree
from jax.nn import initializers
from jax.scipy.special import logsumexp

key = jax.random.PRNGKey(0)
k1, k2, k3, k4 = jax.random.split(key, 4)
n, d, h, c = 64, 5, 16, 3
x = jax.random.normal(k1, (n, d))
labels = jnp.argmax(x[:, :c] + 0.1 * jax.random.normal(k2, (n, c)), axis=1)

params = {
    "w1": initializers.glorot_normal()(k3, (d, h)), "b1": jnp.zeros(h),
    "w2": initializers.lecun_uniform()(k4, (h, c)), "b2": initializers.constant(0.1)(k4, (c,)),
}


def r(v):
    return np.round(np.asarray(v, np.float64), 4).tolist()


def logits(p, xi):
    hidden = jax.nn.gelu(xi @ p["w1"] + p["b1"])
    return jax.nn.relu(hidden) @ p["w2"] + p["b2"]


def loss(p, xs, ys):
    lg = jax.vmap(logits, (None, 0))(p, xs)
    logp = jax.nn.log_softmax(lg)
    return -jnp.mean(jnp.sum(logp * jax.nn.one_hot(ys, c), axis=1))


flat, unravel = ravel_pytree(params)
print("n params", flat.shape[0])


@jax.jit
def step(flat, xs, ys):
    value, g = jax.value_and_grad(lambda f: loss(unravel(f), xs, ys))(flat)
    return flat - 0.5 * g, value


for i in range(20):
    flat, value = step(flat, x, labels)
    if i % 5 == 0:
        print("step", i, "loss", r(value))

p = unravel(flat)
lg = jax.vmap(logits, (None, 0))(p, x)
print("accuracy", r(jnp.mean(jnp.argmax(lg, 1) == labels)))
print("logsumexp", r(logsumexp(lg[:3], axis=1)))
print("softmax", r(jax.nn.softmax(lg[0])))
print("segment_sum", r(jax.ops.segment_sum(jnp.ones(n), labels, num_segments=c)))
print("sigmoid tails", r(jax.nn.sigmoid(jnp.array([-20.0, 0.0, 20.0])) * 1e9))
carry, ys = lax.scan(lambda s, xi: (s + jax.nn.softplus(xi).sum(), s), 0.0, x[:4])
print("scan", r(carry), r(ys))
print("per-example grad norms", r(jax.vmap(jax.grad(lambda f, xi, yi: loss(
    unravel(f), xi[None], yi[None])), (None, 0, 0))(flat, x[:3], labels[:3]).sum(1)))
