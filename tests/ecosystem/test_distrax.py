"""distrax 0.1.5 (on TFP's JAX substrate) on numjax: the quick start (a diagonal normal's
sample and log-probability), sample_and_log_prob, KL divergences, transformed distributions
through a bijector chain, and discrete distributions.

Expected values were recorded from JAX 0.4.30 running the same programs: the same PRNG keys
give the same samples.
"""

from __future__ import annotations

import numpy as np
from ecosystem_import import import_library

distrax = import_library("distrax")


def test_quick_start() -> None:
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(1234)
    dist = distrax.MultivariateNormalDiag(jnp.array([-1.0, 0.0, 1.0]), jnp.array([0.1, 0.2, 0.3]))
    samples = dist.sample(seed=key)
    np.testing.assert_allclose(
        samples, [-1.0019781589508057, -0.014619468711316586, 0.6765263080596924], rtol=1e-6)
    np.testing.assert_allclose(dist.log_prob(samples), 1.7750062942504883, rtol=1e-6)


def test_distributions_and_bijectors() -> None:
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(1234)
    x, lp = distrax.Normal(0.0, 1.0).sample_and_log_prob(seed=key, sample_shape=(3,))
    np.testing.assert_allclose(
        x, [-0.019781164824962616, -0.0730973407626152, -1.0782456398010254], rtol=1e-6)
    np.testing.assert_allclose(
        lp, [-0.9191341400146484, -0.9216101169586182, -1.5002453327178955], rtol=1e-6)
    np.testing.assert_allclose(
        distrax.Normal(0.0, 1.0).kl_divergence(distrax.Normal(1.0, 2.0)), 0.4431471824645996,
        rtol=1e-6)
    bijector = distrax.Chain([distrax.ScalarAffine(shift=1.0, scale=2.0), distrax.Tanh()])
    y, lpy = distrax.Transformed(distrax.Normal(0.0, 1.0), bijector).sample_and_log_prob(
        seed=key, sample_shape=(2,))
    np.testing.assert_allclose(y, [1.8265855312347412, 0.4808810353279114], rtol=1e-6)
    np.testing.assert_allclose(lpy, [-1.5213921070098877, -1.5776188373565674], rtol=1e-6)
    cat = distrax.Categorical(logits=jnp.array([0.0, 1.0, 2.0]))
    np.testing.assert_allclose(cat.entropy(), 0.8323955535888672, rtol=1e-6)
    np.testing.assert_array_equal(cat.sample(seed=key, sample_shape=(5,)), [0, 2, 2, 0, 2])
    np.testing.assert_allclose(cat.log_prob(2), -0.4076060354709625, rtol=1e-6)
    bern = distrax.Bernoulli(probs=0.3)
    np.testing.assert_allclose(bern.log_prob(1), -1.2039728164672852, rtol=1e-6)
    np.testing.assert_allclose(bern.entropy(), 0.6108643412590027, rtol=1e-6)
    grad = jax.grad(lambda s: distrax.Normal(0.0, s).log_prob(1.0))(2.0)
    np.testing.assert_allclose(grad, -0.375, rtol=1e-6)
