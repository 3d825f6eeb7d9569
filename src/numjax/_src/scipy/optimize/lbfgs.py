"""Limited-memory BFGS (Nocedal & Wright, Numerical Optimization, Algorithm 7.5), extended to
real functions of complex variables (Sorber, Van Barel & De Lathauwer, SIAM J. Optim. 22(3),
2012) as JAX 0.4.30 runs it under `method="l-bfgs-experimental-do-not-rely-on-this"`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from numjax._src.api.transformations import value_and_grad
from numjax._src.control_flow.loops import fori_loop, while_loop
from numjax._src.lax.dot import Precision
from numjax._src.numpy.complex_fns import conj, real
from numjax._src.numpy.creation import array, zeros, zeros_like
from numjax._src.numpy.lax_numpy import dot, where
from numjax._src.numpy.linalg import norm as jnp_linalg_norm
from numjax._src.numpy.manipulation import roll
from numjax._src.numpy.ufuncs import reciprocal
from numjax._src.scipy.optimize.line_search import line_search
from numjax._src.typing import Array


def _dot(a: Array, b: Array) -> Array:
    return dot(a, b, precision=Precision.HIGHEST)


class LBFGSResults(NamedTuple):
    """The state of an L-BFGS run, final once the loop stops.

    converged: the gradient norm fell below gtol. failed: stopped without converging.
    k: iterations. nfev, ngev: evaluations of f and of its gradient. x_k, f_k, g_k: the last
    point, f and the gradient there. s_history, y_history, rho_history: the last `maxcor` steps,
    gradient changes and 1 / (y.s), oldest first. gamma: the initial inverse Hessian scale.
    status: 0 converged, 1 maxiter, 2 maxfun, 3 maxgrad reached, 4 f decreased by less than
    ftol, 5 line search failed. ls_status: the last line search's status.
    """

    converged: Array
    failed: Array
    k: Array
    nfev: Array
    ngev: Array
    x_k: Array
    f_k: Array
    g_k: Array
    s_history: Array
    y_history: Array
    rho_history: Array
    gamma: Array
    status: Array
    ls_status: Array


# Named as JAX's: the name shows in the TypeError an unknown option raises.
def _minimize_lbfgs(fun: Callable[[Array], Array], x0: Array, maxiter: float | None = None,
                   norm: Any = np.inf, maxcor: int = 10, ftol: float = 2.220446049250313e-09,
                   gtol: float = 1e-05, maxfun: float | None = None,
                   maxgrad: float | None = None, maxls: int = 20) -> LBFGSResults:
    """Minimize `fun` from `x0` (a 1-D array) with L-BFGS keeping `maxcor` corrections.

    Stops when the `norm`-norm of the gradient drops below `gtol` (converged), or, failing,
    after `maxiter` iterations, `maxfun` / `maxgrad` evaluations, an iteration decreasing f by
    less than `ftol` or a failed line search (at most `maxls` steps). With no limit given,
    maxiter is 200 * len(x0).

    >>> import numjax.numpy as jnp
    >>> res = _minimize_lbfgs(lambda x: jnp.sum((x - 2.0) ** 2), jnp.zeros(2))
    >>> res.x_k, res.converged, res.k
    (Array([2., 2.], dtype=float32), Array(True, dtype=bool), Array(1, dtype=int32, weak_type=True))
    """
    n = len(x0)
    dtype = np.dtype(x0)
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = n * 200
    # An absent limit is infinite, so the comparisons below need no special case.
    maxiter = np.inf if maxiter is None else maxiter
    maxfun = np.inf if maxfun is None else maxfun
    maxgrad = np.inf if maxgrad is None else maxgrad

    f_0, g_0 = value_and_grad(fun)(x0)
    init = LBFGSResults(
        converged=False, failed=False, k=0, nfev=1, ngev=1, x_k=x0, f_k=f_0, g_k=g_0,
        s_history=zeros((maxcor, n), dtype=dtype),
        y_history=zeros((maxcor, n), dtype=dtype),
        rho_history=zeros((maxcor,), dtype=dtype),
        gamma=1.0, status=0, ls_status=0,
    )

    def step(s: LBFGSResults) -> LBFGSResults:
        p_k = _search_direction(s)
        ls = line_search(f=fun, xk=s.x_k, pk=p_k, old_fval=s.f_k, gfk=s.g_k, maxiter=maxls)
        s_k = ls.a_k.astype(p_k.dtype) * p_k
        y_k = ls.g_k - s.g_k
        ys = real(_dot(y_k, s_k))
        gamma = ys / real(_dot(conj(y_k), y_k))

        # The limits are checked against the counts before this iteration; the most serious
        # reason wins.
        status = array(0)
        status = where(s.f_k - ls.f_k < ftol, 4, status)
        status = where(s.ngev >= maxgrad, 3, status)
        status = where(s.nfev >= maxfun, 2, status)
        status = where(s.k >= maxiter, 1, status)
        status = where(ls.failed, 5, status)
        converged = jnp_linalg_norm(ls.g_k, ord=norm) < gtol
        return LBFGSResults(
            converged=converged, failed=(status > 0) & ~converged, k=s.k + 1,
            nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev,
            x_k=(s.x_k + s_k).astype(s.x_k.dtype), f_k=ls.f_k.astype(s.f_k.dtype),
            g_k=ls.g_k.astype(s.g_k.dtype),
            s_history=_push(s.s_history, s_k), y_history=_push(s.y_history, y_k),
            rho_history=_push(s.rho_history, reciprocal(ys).astype(y_k.dtype)),
            gamma=gamma.astype(s.g_k.dtype), status=where(converged, 0, status),
            ls_status=ls.status,
        )

    return while_loop(lambda s: ~s.converged & ~s.failed, step, init)


def _search_direction(s: LBFGSResults) -> Array:
    """-H g by the two-loop recursion (Algorithm 7.4) over the stored corrections, with
    H_0 = gamma I."""
    dtype = s.rho_history.dtype
    size = len(s.rho_history)
    used = where(s.k < size, s.k, size)  # the newest `used` rows hold corrections

    def newest_first(j: Array, carry: tuple[Array, Array]) -> tuple[Array, Array]:
        q, alphas = carry
        i = size - 1 - j
        alpha = s.rho_history[i] * _dot(conj(s.s_history[i]), q).real.astype(dtype)
        return q - alpha * conj(s.y_history[i]), alphas.at[i].set(alpha)

    q, alphas = fori_loop(0, used, newest_first, (-conj(s.g_k), zeros_like(s.rho_history)))

    def oldest_first(j: Array, r: Array) -> Array:
        i = size - used + j
        beta = s.rho_history[i] * _dot(s.y_history[i], r).real.astype(dtype)
        return r + (alphas[i] - beta) * s.s_history[i]

    return fori_loop(0, used, oldest_first, s.gamma * q)


def _push(history: Array, new: Array) -> Array:
    """Drop the oldest row of `history` and append `new` as the newest."""
    return roll(history, -1, axis=0).at[-1].set(new)
