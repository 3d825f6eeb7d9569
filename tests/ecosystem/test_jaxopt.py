"""jaxopt 0.8.3 on numjax: the quick start (ridge regression with LBFGS), gradient descent,
and the solution's Jacobian in the regularization strength by implicit differentiation.

Expected values were recorded from JAX 0.4.30 running the same program. Gradient descent's
line search reads float32 decreases near rounding, so its path after 500 steps agrees with
JAX's to 1e-3 (relative) only.
"""

from __future__ import annotations

import numpy as np
from ecosystem_import import import_library

jaxopt = import_library("jaxopt")

SOLUTION = [-0.13535922765731812, 0.2936447858810425, 0.09847451746463776]


def test_ridge_regression() -> None:
    import jax
    import jax.numpy as jnp

    rng = np.random.RandomState(0)
    x = jnp.asarray(rng.randn(20, 3).astype(np.float32))
    y = jnp.asarray(rng.randn(20).astype(np.float32))

    def ridge_reg_objective(params, l2reg, x, y):  # type: ignore[no-untyped-def]
        residuals = jnp.dot(x, params) - y
        return jnp.mean(residuals**2) + 0.5 * l2reg * jnp.dot(params, params)

    solver = jaxopt.LBFGS(fun=ridge_reg_objective, maxiter=100, tol=1e-6)
    res = solver.run(jnp.zeros(3), l2reg=0.1, x=x, y=y)
    np.testing.assert_allclose(res.params, SOLUTION, rtol=1e-5)
    assert int(res.state.iter_num) == 5
    gd = jaxopt.GradientDescent(fun=ridge_reg_objective, maxiter=500, tol=1e-5)
    res = gd.run(jnp.zeros(3), l2reg=0.1, x=x, y=y)
    np.testing.assert_allclose(
        res.params, [-0.13550859689712524, 0.2936022877693176, 0.09846853464841843], rtol=1e-3)
    jacobian = jax.jacobian(lambda l2reg: solver.run(jnp.zeros(3), l2reg=l2reg, x=x, y=y).params)
    np.testing.assert_allclose(
        jacobian(0.1), [0.05659424513578415, -0.13534750044345856, -0.03399582579731941],
        rtol=1e-5)
