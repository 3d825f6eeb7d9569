"""BFGS (Nocedal & Wright, Numerical Optimization, Algorithm 6.1) as JAX 0.4.30 runs it: a
`while_loop` over quasi-Newton steps, each taking its step length from `line_search`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from numjax._src.api.transformations import value_and_grad
from numjax._src.control_flow.loops import while_loop
from numjax._src.lax.dot import Precision
from numjax._src.numpy.creation import eye
from numjax._src.numpy.einsum import einsum
from numjax._src.numpy.lax_numpy import dot, outer, where
from numjax._src.numpy.linalg import norm as jnp_linalg_norm
from numjax._src.numpy.shape import size
from numjax._src.numpy.ufuncs import isfinite, reciprocal
from numjax._src.scipy.optimize.line_search import line_search
from numjax._src.typing import Array


class BFGSResults(NamedTuple):
    """The state of a BFGS run, final once the loop stops.

    converged: the gradient norm fell below gtol. failed: the last line search failed.
    k: iterations. nfev, ngev, nhev: evaluations of f, its gradient and its Hessian (always 0).
    x_k, f_k, g_k: the last point, f and the gradient there. H_k: the inverse Hessian estimate.
    old_old_fval: f at the previous point. status: 0 converged, 1 maxiter reached,
    2 + line_search_status when the line search failed, -1 otherwise.
    """

    converged: Array
    failed: Array
    k: Array
    nfev: Array
    ngev: Array
    nhev: Array
    x_k: Array
    f_k: Array
    g_k: Array
    H_k: Array
    old_old_fval: Array
    status: Array
    line_search_status: Array


def minimize_bfgs(fun: Callable[[Array], Array], x0: Array, maxiter: int | None = None,
                  norm: Any = np.inf, gtol: float = 1e-5,
                  line_search_maxiter: int = 10) -> BFGSResults:
    """Minimize `fun` from `x0` (a 1-D array) with BFGS, stopping when the `norm`-norm of the
    gradient drops below `gtol`, after `maxiter` iterations (default 200 * x0.size) or when a
    line search fails.

    >>> import numjax.numpy as jnp
    >>> res = minimize_bfgs(lambda x: jnp.sum((x - 2.0) ** 2), jnp.zeros(2))
    >>> res.x_k, res.converged, res.k
    (Array([2., 2.], dtype=float32), Array(True, dtype=bool), Array(2, dtype=int32, weak_type=True))
    """
    if maxiter is None:
        maxiter = size(x0) * 200
    n = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    init = BFGSResults(
        converged=jnp_linalg_norm(g_0, ord=norm) < gtol, failed=False,
        k=0, nfev=1, ngev=1, nhev=0,
        x_k=x0, f_k=f_0, g_k=g_0, H_k=eye(n, dtype=x0.dtype),
        # SciPy's choice: the first line search then tries min(1, 1.01 / |g_0|) first.
        old_old_fval=f_0 + jnp_linalg_norm(g_0) / 2,
        status=0, line_search_status=0,
    )

    def keep_going(s: BFGSResults) -> Array:
        return ~s.converged & ~s.failed & (s.k < maxiter)

    def step(s: BFGSResults) -> BFGSResults:
        p_k = -dot(s.H_k, s.g_k, precision=Precision.HIGHEST)
        ls = line_search(fun, s.x_k, p_k, old_fval=s.f_k, old_old_fval=s.old_old_fval,
                         gfk=s.g_k, maxiter=line_search_maxiter)
        s_k = ls.a_k * p_k
        y_k = ls.g_k - s.g_k
        rho = reciprocal(dot(y_k, s_k, precision=Precision.HIGHEST))
        # H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T; kept when y.s = 0 makes rho inf.
        w = eye(n, dtype=rho.dtype) - rho * outer(s_k, y_k)
        H_next = (einsum("ij,jk,lk", w, s.H_k, w, precision=Precision.HIGHEST)
                  + rho * outer(s_k, s_k))
        return s._replace(
            converged=jnp_linalg_norm(ls.g_k, ord=norm) < gtol, failed=ls.failed,
            k=s.k + 1, nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev,
            x_k=s.x_k + s_k, f_k=ls.f_k, g_k=ls.g_k,
            H_k=where(isfinite(rho), H_next, s.H_k),
            old_old_fval=s.f_k, line_search_status=ls.status,
        )

    s = while_loop(keep_going, step, init)
    status = where(s.converged, 0,
                       where(s.k == maxiter, 1,
                                 where(s.failed, 2 + s.line_search_status, -1)))
    return s._replace(status=status)
