"""diffrax 0.6.0 on numjax: the quick start (dy/dt = -y with Dopri5), an adaptive Tsit5 solve
saving at given times, Lotka-Volterra, gradients through the solve and vmap over it.

Expected values were recorded from JAX 0.4.30 running the same programs. An adaptive solver's
accept/reject decisions read error estimates of ~1e-9 that are pure float32 rounding (their
sums' order is the machine's), so step counts of adaptive solves are not compared; the
solutions agree to the tolerance asked for.
"""

from __future__ import annotations

import numpy as np
import pytest
from ecosystem_import import import_library

diffrax = import_library("diffrax")

pytestmark = [
    pytest.mark.filterwarnings("ignore:jax.core.pp_:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:In a future release of:DeprecationWarning"),
]


def _decay(t, y, args):  # type: ignore[no-untyped-def]
    return -y


def test_quick_start() -> None:
    import jax.numpy as jnp

    term = diffrax.ODETerm(_decay)
    solution = diffrax.diffeqsolve(term, diffrax.Dopri5(), t0=0, t1=1, dt0=0.1,
                                   y0=jnp.array([2.0, 3.0]))
    np.testing.assert_allclose(solution.ts, [1.0])
    np.testing.assert_allclose(solution.ys, [[0.7357586622238159, 1.1036385297775269]],
                               rtol=2e-6)
    assert int(solution.stats["num_steps"]) == 10
    assert int(solution.stats["num_rejected_steps"]) == 0
    # JAX 0.4.30: the counters are weakly typed int32 (they start as Python 0 and pass through
    # equinox's error checks, a cond whose first branch returns them unchanged)
    for name in ("num_steps", "num_accepted_steps", "num_rejected_steps"):
        counter = solution.stats[name]
        assert (counter.dtype, counter.weak_type) == (np.int32, True), name
    assert solution.result == diffrax.RESULTS.successful


def test_adaptive_solves() -> None:
    import jax.numpy as jnp

    sol = diffrax.diffeqsolve(diffrax.ODETerm(_decay), diffrax.Tsit5(), t0=0, t1=3, dt0=0.1,
                              y0=1.0, saveat=diffrax.SaveAt(ts=jnp.linspace(0, 3, 4)),
                              stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-5))
    np.testing.assert_allclose(sol.ts, [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(
        sol.ys, [1.0, 0.3678808808326721, 0.13533657789230347, 0.04978831112384796], rtol=1e-5)

    def lotka_volterra(t, y, args):  # type: ignore[no-untyped-def]
        a, b, c, d = args
        x, z = y
        return jnp.stack([a * x - b * x * z, -c * z + d * x * z])

    sol = diffrax.diffeqsolve(
        diffrax.ODETerm(lotka_volterra), diffrax.Tsit5(), 0.0, 5.0, 0.1, jnp.array([10.0, 10.0]),
        args=(0.1, 0.02, 0.4, 0.02), saveat=diffrax.SaveAt(ts=jnp.linspace(0, 5, 3)),
        stepsize_controller=diffrax.PIDController(rtol=1e-6, atol=1e-6))
    np.testing.assert_allclose(sol.ys, [[10.0, 10.0], [8.709118843078613, 5.821192741394043],
                                        [8.95343017578125, 3.3150722980499268]], rtol=2e-6)


def test_gradient_and_vmap_through_the_solve() -> None:
    import jax
    import jax.numpy as jnp

    term = diffrax.ODETerm(_decay)

    def final(y0):  # type: ignore[no-untyped-def]
        return diffrax.diffeqsolve(term, diffrax.Dopri5(), 0.0, 1.0, 0.1, y0).ys

    # d y(1) / d y0 = e^-1 (the adjoint through diffrax's checkpointed while loop).
    np.testing.assert_allclose(jax.grad(lambda y0: final(y0).sum())(jnp.array([2.0, 3.0])),
                               [0.3678794205188751] * 2, rtol=2e-6)
    np.testing.assert_allclose(jax.vmap(final)(jnp.array([1.0, 2.0])),
                               [[0.36787948], [0.73575896]], rtol=2e-6)
    euler = diffrax.diffeqsolve(term, diffrax.Euler(), 0.0, 1.0, 0.1, jnp.array([2.0, 3.0]))
    np.testing.assert_allclose(euler.ys, [[0.6973568797111511, 1.0460354089736938]], rtol=2e-6)
