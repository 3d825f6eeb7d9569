"""numpyro 0.15.1 on numjax: the quick start (NUTS on the eight schools model), the model's
initialization and potential, and the sparse CAR distribution (BCOO).

Expected values were recorded from JAX 0.4.30 running the same programs. The initial point,
potential energy and its gradient are deterministic and compared to rounding. A NUTS chain
is chaotic: float32 sums in another order (XLA's reduction order is its own) move a
trajectory by an ulp, and after a few dozen warmup steps the chains are different draws from
the same posterior. The chain is therefore checked statistically: each posterior mean within
four Monte Carlo standard errors (from numpyro's effective sample size) of the mean of JAX's
run of the quick start (500 warmup steps, 1000 samples).
"""

from __future__ import annotations

import numpy as np
import pytest
from ecosystem_import import import_library

numpyro = import_library("numpyro")

J = 8
Y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SIGMA = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])

INIT_Z = {"mu": -1.578524112701416, "tau": -0.8851232528686523,
          "theta": [-0.7985095977783203, 1.4750494956970215, 1.0981354713439941,
                    -1.7122912406921387, -0.611961841583252, 0.18175458908081055,
                    1.976686954498291, 1.5096635818481445]}
INIT_POTENTIAL = 164.18887329101562
INIT_GRAD = {"mu": -92.53262329101562, "tau": -247.40029907226562,
             "theta": [4.452486038208008, 17.86625099182129, 15.734158515930176,
                       -0.8575232028961182, 5.680735111236572, 10.330123901367188,
                       20.717037200927734, 18.10239028930664]}
# Posterior means of JAX's quick-start run (num_warmup=500, num_samples=1000, PRNGKey(0)).
POSTERIOR_MEANS = {"mu": 4.348209, "tau": 4.3389034,
                   "theta": [6.69425106048584, 5.060120105743408, 3.5577504634857178,
                             4.733757019042969, 3.2891228199005127, 3.8981504440307617,
                             6.680039882659912, 4.973924160003662]}


def eight_schools(J, sigma, y=None):  # type: ignore[no-untyped-def]
    import numpyro.distributions as dist

    mu = numpyro.sample("mu", dist.Normal(0, 5))
    tau = numpyro.sample("tau", dist.HalfCauchy(5))
    with numpyro.plate("J", J):
        theta = numpyro.sample("theta", dist.Normal(mu, tau))
        numpyro.sample("obs", dist.Normal(theta, sigma), obs=y)


def test_initialization_and_potential() -> None:
    import jax
    from numpyro.infer.util import initialize_model

    info = initialize_model(jax.random.PRNGKey(0), eight_schools, model_args=(J, SIGMA),
                            model_kwargs={"y": Y})
    z = info.param_info.z
    for name, expected in INIT_Z.items():
        np.testing.assert_allclose(z[name], expected, rtol=1e-6)
    np.testing.assert_allclose(info.potential_fn(z), INIT_POTENTIAL, rtol=1e-6)
    grad = jax.grad(info.potential_fn)(z)
    for name, expected in INIT_GRAD.items():
        np.testing.assert_allclose(grad[name], expected, rtol=1e-5)


@pytest.mark.slow
def test_quick_start_nuts_eight_schools() -> None:
    from jax import random
    from numpyro.diagnostics import effective_sample_size
    from numpyro.infer import MCMC, NUTS

    # The quick start with a shorter chain (JAX's own run uses 500 + 1000 steps).
    mcmc = MCMC(NUTS(eight_schools), num_warmup=100, num_samples=200, progress_bar=False)
    mcmc.run(random.PRNGKey(0), J, SIGMA, y=Y, extra_fields=("potential_energy",))
    samples = mcmc.get_samples()
    assert samples["theta"].shape == (200, 8) and samples["mu"].dtype == np.float32
    for name, expected in POSTERIOR_MEANS.items():
        draws = np.asarray(samples[name])
        ess = effective_sample_size(draws[None])
        stderr = draws.std(axis=0) / np.sqrt(ess)
        assert np.all(np.abs(draws.mean(axis=0) - expected) < 4 * stderr), name
    assert np.isfinite(np.asarray(mcmc.get_extra_fields()["potential_energy"])).all()


@pytest.mark.parametrize("is_sparse", [False, True])
def test_car_distribution(is_sparse: bool) -> None:
    import jax
    import jax.numpy as jnp
    import numpyro.distributions as dist

    adj = np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]], np.float32)
    x = jnp.array([0.3, -0.2, 0.5, 0.1])
    car = dist.CAR(loc=0.0, correlation=0.4, conditional_precision=2.0, adj_matrix=adj,
                   is_sparse=is_sparse)
    np.testing.assert_allclose(car.log_prob(x), -1.8343420028686523, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(car.log_prob)(x), [-1.28, 1.44, -2.08, 0.24], rtol=1e-6)
    np.testing.assert_allclose(
        car.sample(jax.random.PRNGKey(0)),
        [0.9503000378608704, -0.17897357046604156, 0.17575858533382416, -0.04220592975616455],
        rtol=1e-5)
