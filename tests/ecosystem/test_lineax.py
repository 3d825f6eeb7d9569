"""lineax 0.0.5 on numjax: the quick start (a linear solve) with each solver, under jit and
grad.

Expected values were recorded from JAX 0.4.30 running the same programs; float32 solves agree
to rounding (LAPACK's order of operations is the machine's).
"""

from __future__ import annotations

import numpy as np
import pytest
from ecosystem_import import import_library

lx = import_library("lineax")

pytestmark = [
    pytest.mark.filterwarnings("ignore:jax.core.pp_:DeprecationWarning"),
    # lineax's transpose rule flattens up to a None prefix: JAX 0.4.30 warns the same way.
    pytest.mark.filterwarnings("ignore:In a future release of:DeprecationWarning"),
]

SOLUTION = [-2.7321298122406006, -8.528779983520508, -7.722687244415283]
SPD_SOLUTION = [0.08147209882736206, -0.18995505571365356, 0.2880047559738159]
GRAD_VECTOR = [-29.884843826293945, 16.211374282836914, -2.717472553253174]
GRAD_MATRIX = [[-81.6492691040039, -254.88125610351562, -230.7913055419922],
               [44.29158020019531, 138.26324462890625, 125.19537353515625],
               [-7.424487590789795, -23.176725387573242, -20.986190795898438]]
DIAGONAL_SOLUTION = [0.17269018292427063, -0.3238278329372406, 0.3057428002357483]


def _problem():  # type: ignore[no-untyped-def]
    import jax.random as jr

    return jr.normal(jr.PRNGKey(0), (3, 3)), jr.normal(jr.PRNGKey(1), (3,))


def test_quick_start_solve() -> None:
    matrix, vector = _problem()
    operator = lx.MatrixLinearOperator(matrix)
    solution = lx.linear_solve(operator, vector)
    np.testing.assert_allclose(solution.value, SOLUTION, rtol=1e-5)
    assert solution.result == lx.RESULTS.successful


@pytest.mark.parametrize("solver", ["LU", "QR", "SVD", "AutoLinearSolver"])
def test_dense_solvers(solver: str) -> None:
    matrix, vector = _problem()
    kwargs = {"well_posed": None} if solver == "AutoLinearSolver" else {}
    out = lx.linear_solve(lx.MatrixLinearOperator(matrix), vector,
                          solver=getattr(lx, solver)(**kwargs))
    np.testing.assert_allclose(out.value, SOLUTION, rtol=1e-5)


def test_positive_definite_solvers() -> None:
    import jax.numpy as jnp

    matrix, vector = _problem()
    op = lx.MatrixLinearOperator(matrix @ matrix.T + 3 * jnp.eye(3), lx.positive_semidefinite_tag)
    np.testing.assert_allclose(lx.linear_solve(op, vector, solver=lx.Cholesky()).value,
                               SPD_SOLUTION, rtol=1e-5)
    np.testing.assert_allclose(
        lx.linear_solve(op, vector, solver=lx.CG(rtol=1e-6, atol=1e-6)).value, SPD_SOLUTION,
        rtol=1e-5)
    diag = lx.DiagonalLinearOperator(jnp.array([1.0, 2.0, 4.0]))
    np.testing.assert_allclose(lx.linear_solve(diag, vector).value, DIAGONAL_SOLUTION,
                               rtol=1e-6)


def test_jit_and_gradients_through_the_solve() -> None:
    import jax

    matrix, vector = _problem()
    f = jax.jit(lambda m, v: lx.linear_solve(lx.MatrixLinearOperator(m), v).value)
    np.testing.assert_allclose(f(matrix, vector), SOLUTION, rtol=1e-5)
    np.testing.assert_allclose(jax.grad(lambda v: f(matrix, v).sum())(vector), GRAD_VECTOR,
                               rtol=1e-5)
    np.testing.assert_allclose(jax.grad(lambda m: f(m, vector).sum())(matrix), GRAD_MATRIX,
                               rtol=1e-5)
