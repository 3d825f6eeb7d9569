"""optimistix 0.0.7 on numjax: the quick start (a Newton root find) and a minimisation, a
least-squares fit and a fixed point.

Expected values were recorded from JAX 0.4.30 running the same programs. BFGS's path on the
Rosenbrock valley depends on float32 rounding in its updates, so its step count is not
compared, only the minimum it reaches.
"""

from __future__ import annotations

import numpy as np
import pytest
from ecosystem_import import import_library

optx = import_library("optimistix")

pytestmark = pytest.mark.filterwarnings("ignore:jax.core.pp_:DeprecationWarning")


def test_quick_start_root_find() -> None:
    import jax.numpy as jnp

    def fn(y, args):  # type: ignore[no-untyped-def]
        a, b = y
        c = jnp.tanh(jnp.sum(b)) - a
        d = a**2 - jnp.sinh(b + 1)
        return c, d

    solver = optx.Newton(rtol=1e-5, atol=1e-5)
    sol = optx.root_find(fn, solver, (jnp.array(0.0), jnp.zeros((2, 2))))
    np.testing.assert_allclose(sol.value[0], -0.8565071821212769, rtol=1e-5)
    np.testing.assert_allclose(sol.value[1], np.full((2, 2), -0.3200208246707916), rtol=1e-5)
    assert int(sol.stats["num_steps"]) == 10
    assert sol.result == optx.RESULTS.successful


def test_minimise_least_squares_and_fixed_point() -> None:
    import jax.numpy as jnp

    def rosenbrock(y, args):  # type: ignore[no-untyped-def]
        return jnp.sum(100 * (y[1:] - y[:-1] ** 2) ** 2 + (1 - y[:-1]) ** 2)

    sol = optx.minimise(rosenbrock, optx.BFGS(rtol=1e-6, atol=1e-6), jnp.array([-1.2, 1.0, 0.5]))
    np.testing.assert_allclose(sol.value, [1.0, 1.0, 1.0], atol=1e-5)  # JAX: 74 steps
    sol = optx.least_squares(lambda y, a: y**2 - a,
                             optx.LevenbergMarquardt(rtol=1e-6, atol=1e-6),
                             jnp.array([1.0, 1.0]), args=jnp.array([2.0, 3.0]))
    np.testing.assert_allclose(sol.value, [1.4142135381698608, 1.7320507764816284], rtol=1e-6)
    assert int(sol.stats["num_steps"]) == 6
    sol = optx.fixed_point(lambda y, a: jnp.cos(y),
                           optx.FixedPointIteration(rtol=1e-6, atol=1e-6), jnp.array(1.0))
    np.testing.assert_allclose(sol.value, 0.7390845417976379, rtol=1e-6)
    assert int(sol.stats["num_steps"]) == 33
