"""blackjax 1.2.1 on numjax: the quick start (NUTS on a normal model's location and scale,
100 steps in a scanned, jitted loop).

Expected values were recorded from JAX 0.4.30 running the same program: the same PRNG stream
drives the same trajectories, so the chain matches JAX's to float32 rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
from ecosystem_import import import_library

blackjax = import_library("blackjax")

LOC_FIRST = [1.0121395587921143, 1.012402892112732, 1.0139507055282593, 1.0146970748901367,
             1.023098111152649]
SCALE_FIRST = [2.0065042972564697, 2.0067508220672607, 2.007821798324585, 2.0104386806488037,
               2.014650344848633]
STEPS_FIRST = [15, 3, 7, 7, 7, 1, 3, 1, 3, 1]


@pytest.mark.slow
def test_quick_start_nuts() -> None:
    import jax
    import jax.numpy as jnp
    import jax.scipy.stats as stats

    observed = np.random.RandomState(0).normal(10, 20, size=1_000)

    def logdensity_fn(x):  # type: ignore[no-untyped-def]
        return jnp.sum(stats.norm.logpdf(observed, x["loc"], x["scale"]))

    nuts = blackjax.nuts(logdensity_fn, 1e-3, np.array([0.5, 0.01]))
    initial_state = nuts.init({"loc": 1.0, "scale": 2.0})
    np.testing.assert_allclose(initial_state.logdensity, -58514.6640625, rtol=1e-6)
    np.testing.assert_allclose(list(initial_state.logdensity_grad.values()),
                               [2023.7164306640625, 56402.578125], rtol=1e-5)

    @jax.jit
    def one_step(state, key):  # type: ignore[no-untyped-def]
        state, info = nuts.step(key, state)
        return state, (state, info)

    keys = jax.random.split(jax.random.key(1000), 100)
    _, (states, infos) = jax.lax.scan(one_step, initial_state, keys)
    np.testing.assert_allclose(states.position["loc"][:5], LOC_FIRST, rtol=1e-5)
    np.testing.assert_allclose(states.position["scale"][:5], SCALE_FIRST, rtol=1e-5)
    np.testing.assert_array_equal(infos.num_integration_steps[:10], STEPS_FIRST)
    np.testing.assert_allclose(states.position["loc"][-50:].mean(), 7.8923974, rtol=1e-4)
    np.testing.assert_allclose(states.position["scale"][-50:].mean(), 5.926294, rtol=1e-4)
