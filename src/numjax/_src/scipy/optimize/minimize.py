"""`jax.scipy.optimize.minimize` and its `OptimizeResults`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from numjax._src.numpy.creation import asarray
from numjax._src.scipy.optimize.bfgs import minimize_bfgs
from numjax._src.scipy.optimize.lbfgs import _minimize_lbfgs
from numjax._src.typing import Array


class OptimizeResults(NamedTuple):
    """What `minimize` returns.

    x: the solution found. success: converged without a failed line search. status: the
    method's code, 0 meaning converged (BFGS: 1 maxiter reached, 3 a zoom failed, 5 the line
    search's maxiter reached, -1 undefined). fun, jac: the objective and its gradient at x.
    hess_inv: BFGS's inverse Hessian estimate (None for L-BFGS). nfev, njev: evaluations of the
    objective and of its gradient. nit: iterations.
    """

    x: Array
    success: bool | Array
    status: int | Array
    fun: Array
    jac: Array
    hess_inv: Array | None
    nfev: int | Array
    njev: int | Array
    nit: int | Array


def minimize(fun: Callable[..., Array], x0: Array, args: tuple[Any, ...] = (), *, method: str,
             tol: float | None = None, options: Mapping[str, Any] | None = None
             ) -> OptimizeResults:
    """Minimize the scalar function `fun(x, *args)` of a 1-D array x, starting from `x0`.

    `method` is required: "BFGS", or "l-bfgs-experimental-do-not-rely-on-this" (case does not
    matter). Gradients come from autodiff. `options` go to the method (both take `maxiter`,
    `norm` and `gtol`); `tol` is accepted and, as in JAX, ignored. Runs under jit, vmap and
    jvp; reverse-mode differentiation fails on its while_loop, as in JAX.

    >>> import numjax.numpy as jnp
    >>> res = minimize(lambda x: jnp.sum((x - 3.0) ** 2), jnp.zeros(2), method="BFGS")
    >>> print(res.x.round(5), res.success, res.nit)
    [3. 3.] True 3
    """
    if options is None:
        options = {}
    if not isinstance(args, tuple):
        raise TypeError(
            f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")

    def objective(x: Array) -> Array:
        return fun(x, *args)

    kind = method.lower()
    if kind == "bfgs":
        bfgs = minimize_bfgs(objective, x0, **options)
        return OptimizeResults(
            x=bfgs.x_k, success=bfgs.converged & ~asarray(bfgs.failed), status=bfgs.status,
            fun=bfgs.f_k, jac=bfgs.g_k, hess_inv=bfgs.H_k, nfev=bfgs.nfev, njev=bfgs.ngev,
            nit=bfgs.k)
    if kind == "l-bfgs-experimental-do-not-rely-on-this":
        lbfgs = _minimize_lbfgs(objective, x0, **options)
        return OptimizeResults(
            x=lbfgs.x_k, success=lbfgs.converged & ~asarray(lbfgs.failed),
            status=lbfgs.status, fun=lbfgs.f_k, jac=lbfgs.g_k, hess_inv=None, nfev=lbfgs.nfev,
            njev=lbfgs.ngev, nit=lbfgs.k)
    raise ValueError(f"Method {method} not recognized")
