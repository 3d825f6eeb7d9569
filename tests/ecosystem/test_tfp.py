"""TensorFlow Probability 0.25's JAX substrate on numjax: distributions (sampling with JAX
keys, densities, moments), a bijector, gradients and tfp.math.

TFP registers its own variable type in `jax.core.pytype_aval_mappings` and
`jax.interpreters.xla.canonicalize_dtype_handlers` at import: numjax reads those tables.
Expected values were recorded from JAX 0.4.30 running the same program.
"""

from __future__ import annotations

import numpy as np
from ecosystem_import import import_library

tfp = import_library("tensorflow_probability.substrates.jax")


def test_distributions() -> None:
    import jax
    import jax.numpy as jnp

    tfd = tfp.distributions
    normal = tfd.Normal(loc=0.0, scale=1.0)
    np.testing.assert_allclose(normal.log_prob(0.5), -1.0439385175704956, rtol=1e-6)
    np.testing.assert_allclose(normal.cdf(0.3), 0.6179113984107971, rtol=1e-6)
    np.testing.assert_allclose(normal.sample(3, seed=jax.random.PRNGKey(0)),
                               [1.8160862922668457, -0.4826231598854065, 0.3398890793323517],
                               rtol=1e-6)
    mvn = tfd.MultivariateNormalDiag(loc=[1.0, -1.0], scale_diag=[1.0, 2.0])
    np.testing.assert_allclose(mvn.log_prob([0.0, 0.0]), -3.156024217605591, rtol=1e-6)
    np.testing.assert_allclose(mvn.sample(seed=jax.random.PRNGKey(1)),
                               [0.8838295936584473, 3.4250125885009766], rtol=1e-6)
    gamma = tfd.Gamma(concentration=2.0, rate=3.0)
    np.testing.assert_allclose(gamma.log_prob(1.0), -0.8027753829956055, rtol=1e-6)
    np.testing.assert_allclose(gamma.mean(), 0.6666666865348816, rtol=1e-6)
    np.testing.assert_allclose(gamma.sample(2, seed=jax.random.PRNGKey(2)),
                               [2.2541048526763916, 0.9866374135017395], rtol=1e-5)
    np.testing.assert_allclose(tfd.Categorical(logits=[0.0, 1.0, 2.0]).entropy(),
                               0.8323955535888672, rtol=1e-6)
    exp = tfp.bijectors.Exp()
    np.testing.assert_allclose(exp.forward(1.0), 2.7182817459106445, rtol=1e-6)
    np.testing.assert_allclose(exp.inverse_log_det_jacobian(2.0, event_ndims=0),
                               -0.6931471824645996, rtol=1e-6)
    grad = jax.grad(lambda s: tfd.Normal(0.0, s).log_prob(1.0))(2.0)
    np.testing.assert_allclose(grad, -0.375, rtol=1e-6)
    np.testing.assert_allclose(tfp.math.reduce_logmeanexp(jnp.array([1.0, 2.0, 3.0])),
                               2.3089938163757324, rtol=1e-6)
