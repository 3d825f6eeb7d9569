"""`odeint`: adaptive Dormand-Prince (RK45) integration with adjoint-method gradients.

The forward solve steps from each output time to the next with a `while_loop` of trial steps
(accepted when the scaled error estimate is at most 1, the step size adapted either way), and
reads the solution at the output time off the accepted step's 4th-order interpolant. The
reverse pass integrates the adjoint system backwards between consecutive output times with
`odeint` itself, accumulating the cotangents of the state, the times and the extra arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src.api.custom_derivatives import closure_convert, custom_vjp
from numjax._src.api.jit import jit
from numjax._src.api.transformations import vjp, vmap
from numjax._src.control_flow.loops import fori_loop, scan, while_loop
from numjax._src.core.avals import check_arg
from numjax._src.core.trace import Tracer
from numjax._src.dtypes import issubdtype
from numjax._src.flatten_util import ravel_pytree
from numjax._src.numpy.complex_fns import iscomplexobj
from numjax._src.numpy.creation import arange, array, asarray, zeros, zeros_like
from numjax._src.numpy.lax_numpy import clip, dot, where
from numjax._src.numpy.linalg import norm
from numjax._src.numpy.polynomial import polyval
from numjax._src.numpy.reductions import mean
from numjax._src.numpy.shape import concatenate
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import maximum, minimum, sqrt
from numjax._src.numpy.util import promote_dtypes_inexact
from numjax._src.tree_util import tree_leaves, tree_map
from numjax._src.typing import Array

# The Dormand-Prince 5(4) tableau: nodes, stage coefficients, the 5th-order weights, and the
# difference between the 5th- and the embedded 4th-order weights (the error estimate).
_NODES = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0, 0.0]
_STAGES = [
    [1 / 5, 0, 0, 0, 0, 0, 0],
    [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
    [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
]
_WEIGHTS = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_ERROR_WEIGHTS = [35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085,
                  125 / 192 - 451 / 720, -2187 / 6784 - -12231 / 42400, 11 / 84 - 649 / 6300,
                  -1 / 60]
# Weights giving the solution at the step's midpoint (Shampine's dense output, halved).
_MIDPOINT = [6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2,
             -2691868925 / 45128329728 / 2, 187940372067 / 1594534317056 / 2,
             -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2]


def _quartic_through(y0: Array, y1: Array, y_mid: Array, dy0: Array, dy1: Array, dt: Array
                     ) -> Array:
    """Coefficients (highest power first, in the step's relative time s in [0, 1]) of the
    quartic with values y0, y_mid, y1 at s = 0, 1/2, 1 and slopes dt*dy0, dt*dy1 at the ends."""
    dt = dt.astype(y0.dtype)
    a = -2. * dt * dy0 + 2. * dt * dy1 - 8. * y0 - 8. * y1 + 16. * y_mid
    b = 5. * dt * dy0 - 3. * dt * dy1 + 18. * y0 + 14. * y1 - 32. * y_mid
    c = -4. * dt * dy0 + dt * dy1 - 11. * y0 - 5. * y1 + 16. * y_mid
    return asarray((a, b, c, dt * dy0, y0))


def _dense_output(y0: Array, y1: Array, k: Array, dt: Array) -> Array:
    y_mid = y0 + dt.astype(y0.dtype) * dot(array(_MIDPOINT, dtype=y0.dtype), k)
    return _quartic_through(y0, y1, y_mid, k[0], k[-1], dt)


def _first_step(fun: Callable[[Array, Array], Array], t0: Array, y0: Array, order: int,
                rtol: float, atol: float, f0: Array) -> Array:
    """A starting step size from the scaled sizes of y0, f(y0) and f's change over a probe
    step (Hairer, Norsett & Wanner's heuristic)."""
    y0, f0 = promote_dtypes_inexact(y0, f0)
    dtype = y0.dtype
    scale = (atol + jnp_abs(y0) * rtol).astype(dtype)
    d0 = norm(y0 / scale)
    d1 = norm(f0 / scale)
    h0 = where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = fun(y0 + h0.astype(dtype) * f0, t0 + h0)
    d2 = norm((f1 - f0) / scale) / h0
    h1 = where((d1 <= 1e-15) & (d2 <= 1e-15), maximum(1e-6, h0 * 1e-3),
                   (0.01 / maximum(d1, d2)) ** (1. / (order + 1.)))
    return minimum(100. * h0, h1)


def _dopri_step(fun: Callable[[Array, Array], Array], y0: Array, f0: Array, t0: Array,
                dt: Array) -> tuple[Array, Array, Array, Array]:
    """One Dormand-Prince step: (y1, f(y1), error estimate, the seven stage derivatives)."""
    nodes = array(_NODES, dtype=dt.dtype)
    stages = array(_STAGES, dtype=f0.dtype)
    h = dt.astype(f0.dtype)

    def stage(i: Array, k: Array) -> Array:
        y = y0 + h * dot(stages[i - 1, :], k)
        return k.at[i, :].set(fun(y, t0 + dt * nodes[i - 1]))

    k = zeros((7, f0.shape[0]), f0.dtype).at[0, :].set(f0)
    k = fori_loop(1, 7, stage, k)
    y1 = h * dot(array(_WEIGHTS, dtype=f0.dtype), k) + y0
    error = h * dot(array(_ERROR_WEIGHTS, dtype=f0.dtype), k)
    return y1, k[-1], error, k


def _error_ratio(error: Array, rtol: float, atol: float, y0: Array, y1: Array) -> Array:
    tolerance = atol + rtol * maximum(jnp_abs(y0), jnp_abs(y1))
    ratio = error / tolerance.astype(error.dtype)
    squared = (ratio.real ** 2 + ratio.imag ** 2) if iscomplexobj(ratio) else ratio ** 2
    return sqrt(mean(squared))


def _next_step_size(dt: Array, ratio: Array, safety: float = 0.9, grow: float = 10.0,
                    shrink: float = 0.2, order: float = 5.0) -> Array:
    """The step size after a trial with this error ratio: grow at most 10x; after a rejected
    trial shrink at most 5x (after an accepted one, never below the current size)."""
    floor = where(ratio < 1, 1.0, shrink)
    factor = minimum(grow, maximum(ratio ** (-1.0 / order) * safety, floor))
    return where(ratio == 0, dt * grow, dt * factor)


def _is_array_like(x: Any) -> bool:
    try:
        check_arg(x)
    except TypeError:
        return False
    return True


def odeint(func: Callable[..., Any], y0: Any, t: Array, *args: Any, rtol: float = 1.4e-8,
           atol: float = 1.4e-8, mxstep: float = float("inf"), hmax: float = float("inf")
           ) -> Any:
    """Solve dy/dt = func(y, t, *args) from y(t[0]) = y0, returning y at every time in `t`
    (increasing floats) stacked on a new leading axis; `y0` may be a pytree. Differentiable
    with respect to y0, t and args (by the adjoint method).

    >>> import numjax.numpy as jnp
    >>> ys = odeint(lambda y, t, k: -k * y, 1.0, jnp.array([0.0, 1.0]), 2.0)
    >>> [round(float(v), 5) for v in ys]
    [1.0, 0.13534]
    """
    for arg in tree_leaves(args):
        if not isinstance(arg, Tracer) and not _is_array_like(arg):
            raise TypeError(
                f"The contents of odeint *args must be arrays or scalars, but got {arg}.")
    t = asarray(t)
    if not issubdtype(t.dtype, np.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    converted, consts = closure_convert(func, y0, t[0], *args)
    return _solve_pytree(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)


@functools.partial(jit, static_argnums=(0, 1, 2, 3, 4))
def _solve_pytree(func: Callable[..., Any], rtol: float, atol: float, mxstep: float,
                  hmax: float, y0: Any, ts: Array, *args: Any) -> Any:
    flat_y0, unravel = ravel_pytree(y0)

    def flat_func(y: Array, t: Array, *args: Any) -> Array:
        return ravel_pytree(func(unravel(y), t, *args))[0]

    ys = _solve(flat_func, rtol, atol, mxstep, hmax, flat_y0, ts, *args)
    return vmap(unravel)(ys)


def _solve_impl(func: Callable[..., Any], rtol: float, atol: float, mxstep: float,
                hmax: float, y0: Array, ts: Array, *args: Any) -> Array:
    def f(y: Array, t: Array) -> Array:
        return func(y, t, *args)

    def advance(carry: list[Any], target: Array) -> tuple[list[Any], Array]:
        def more(state: Sequence[Any]) -> Array:
            steps, _, _, t, dt, _, _ = state
            return (t < target) & (steps < mxstep) & (dt > 0)

        def trial(state: Sequence[Any]) -> list[Any]:
            steps, y, fy, t, dt, t_prev, poly = state
            y_new, f_new, error, k = _dopri_step(f, y, fy, t, dt)
            ratio = _error_ratio(error, rtol, atol, y, y_new)
            poly_new = _dense_output(y, y_new, k, dt)
            dt_next = clip(_next_step_size(dt, ratio), min=0., max=hmax)
            accepted = [steps + 1, y_new, f_new, t + dt, dt_next, t, poly_new]
            rejected = [steps + 1, y, fy, t, dt_next, t_prev, poly]
            accept = ratio <= 1.
            return [where(accept, a, r) for a, r in zip(accepted, rejected, strict=True)]

        _, *carry = while_loop(more, trial, [0, *carry])
        _, _, t, _, t_prev, poly = carry
        s = (target - t_prev) / (t - t_prev)
        return carry, polyval(poly, s.astype(poly.dtype))

    f0 = f(y0, ts[0])
    dt = clip(_first_step(f, ts[0], y0, 4, rtol, atol, f0), min=0., max=hmax)
    poly = array([y0] * 5)
    _, ys = scan(advance, [y0, f0, ts[0], dt, ts[0], poly], ts[1:])
    return concatenate((y0[None], ys))


_solve = custom_vjp(_solve_impl, nondiff_argnums=(0, 1, 2, 3, 4))


def _solve_fwd(func: Callable[..., Any], rtol: float, atol: float, mxstep: float, hmax: float,
               y0: Array, ts: Array, *args: Any) -> tuple[Array, Any]:
    ys = _solve(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _solve_bwd(func: Callable[..., Any], rtol: float, atol: float, mxstep: float, hmax: float,
               residuals: Any, g: Array) -> tuple[Any, ...]:
    ys, ts, args = residuals

    def adjoint(state: Any, t: Array, *args: Any) -> Any:
        # Integrated in reversed time s = -t: the state runs backwards and the cotangents of
        # y, t and args accumulate the vector-Jacobian products along the way.
        y, y_bar, *_ = state
        dy, pullback = vjp(func, y, -t, *args)
        return (-dy, *pullback(y_bar))

    def back_one_interval(carry: Any, i: Array) -> tuple[Any, Array]:
        y_bar, t0_bar, args_bar = carry
        t_bar = dot(func(ys[i], ts[i], *args), g[i]).real
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(
            adjoint, (ys[i], y_bar, t0_bar, args_bar), array([-ts[i], -ts[i - 1]]),
            *args, rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax)
        y_bar, t0_bar, args_bar = tree_map(lambda v: v[1], (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    init = (g[-1], 0., tree_map(zeros_like, args))
    (y_bar, t0_bar, args_bar), ts_bar_reversed = scan(
        back_one_interval, init, arange(len(ts) - 1, 0, -1))
    ts_bar = concatenate([array([t0_bar]), ts_bar_reversed[::-1]])
    return (y_bar, ts_bar, *args_bar)


_solve.defvjp(_solve_fwd, _solve_bwd)
