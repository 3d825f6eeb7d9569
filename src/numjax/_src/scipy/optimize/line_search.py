"""The inexact line search under `minimize`: JAX's strong-Wolfe search (Nocedal & Wright,
Numerical Optimization, Algorithms 3.5 and 3.6).

Everything is one `while_loop` (the bracketing phase) holding two more (the zoom phases), with
branches written as `jnp.where` selects, so the search runs under jit and vmap. The numerics
follow JAX 0.4.30 step for step, quirks included, because `minimize`'s iterates must be JAX's:

- the first trial step is 1, or 1.01 * 2 * (f_k - f_{k-1}) / phi'(0) when it is smaller and the
  previous value is known;
- a zoom whose bracket is given high end first (a_hi < a_lo) fails at once, since it tests the
  signed width a_hi - a_lo against 1e-5 (1e-10 in float64);
- a zoom gives up after 30 trial steps; the bracketing phase after `maxiter`;
- below 64 bits, a step smaller than 1e-8 is raised to +-1e-8.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from numjax._src.api.transformations import value_and_grad
from numjax._src.control_flow.loops import while_loop
from numjax._src.dtypes import finfo, result_type
from numjax._src.lax.dot import Precision
from numjax._src.numpy.complex_fns import real
from numjax._src.numpy.creation import array, asarray
from numjax._src.numpy.lax_numpy import dot, where
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import maximum, minimum, sign, sqrt
from numjax._src.numpy.util import promote_dtypes_inexact
from numjax._src.typing import Array

_ZOOM_MAXITER = 30  # JAX allows more than SciPy's 10: float32 needs them.


def _dot(a: Array, b: Array) -> Array:
    return dot(a, b, precision=Precision.HIGHEST)


def _select(pred: Array, new: dict[str, Array], old: NamedTuple) -> dict[str, Array]:
    """The fields `new` names, taken from `new` where `pred` holds and from `old` elsewhere."""
    return {name: where(pred, value, getattr(old, name)) for name, value in new.items()}


def _cubic_minimizer(a: Array, fa: Array, fpa: Array, b: Array, fb: Array, c: Array,
                     fc: Array) -> Array:
    """The minimizer of the cubic through (a, fa) with slope fpa at a, (b, fb) and (c, fc)."""
    dtype = result_type(a, fa, fpa, b, fb, c, fc)
    db, dc = b - a, c - a
    # p(x) = fa + fpa (x - a) + B (x - a)^2 + A (x - a)^3; A and B solve a 2x2 system.
    rb = asarray(fb - fa - fpa * db, dtype)
    rc = asarray(fc - fa - fpa * dc, dtype)
    denom = (db * dc) ** 2 * (db - dc)
    cubic = (asarray(dc**2, dtype) * rb + asarray(-(db**2), dtype) * rc) / denom
    quad = (asarray(-(dc**3), dtype) * rb + asarray(db**3, dtype) * rc) / denom
    return a + (-quad + sqrt(quad * quad - 3.0 * cubic * fpa)) / (3.0 * cubic)


def _quadratic_minimizer(a: Array, fa: Array, fpa: Array, b: Array, fb: Array) -> Array:
    """The minimizer of the parabola through (a, fa) with slope fpa at a, and (b, fb)."""
    db = b - a
    curvature = (fb - fa - fpa * db) / (db**2)
    return a - fpa / (2.0 * curvature)


class _ZoomState(NamedTuple):
    done: Array
    failed: Array
    j: Array
    a_lo: Array
    phi_lo: Array
    dphi_lo: Array
    a_hi: Array
    phi_hi: Array
    dphi_hi: Array
    a_rec: Array  # the previous a_lo or a_hi, the cubic's third point
    phi_rec: Array
    a_star: Array
    phi_star: Array
    dphi_star: Array
    g_star: Array
    nfev: Array
    ngev: Array


Phi = Callable[[Array], tuple[Array, Array, Array]]


def _zoom(phi: Phi, too_high: Callable[[Array, Array], Array],
          curvature_ok: Callable[[Array], Array], lo: tuple[Array, Array, Array],
          hi: tuple[Array, Array, Array], g_0: Array, skip: Array) -> _ZoomState:
    """Shrink the bracket [lo, hi] to a step satisfying both Wolfe conditions (Algorithm 3.6),
    trying the cubic, then the quadratic interpolant, then bisection. Does nothing if `skip`."""
    (a_lo, phi_lo, dphi_lo), (a_hi, phi_hi, dphi_hi) = lo, hi
    init = _ZoomState(
        done=False, failed=False, j=0,
        a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo,
        a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi,
        a_rec=(a_lo + a_hi) / 2.0, phi_rec=(phi_lo + phi_hi) / 2.0,
        a_star=1.0, phi_star=phi_lo, dphi_star=dphi_lo, g_star=g_0,
        nfev=0, ngev=0,
    )

    def body(s: _ZoomState) -> _ZoomState:
        width = s.a_hi - s.a_lo
        left, right = minimum(s.a_hi, s.a_lo), maximum(s.a_hi, s.a_lo)
        tiny = 1e-5 if finfo(width.dtype).bits < 64 else 1e-10
        failed = s.failed | (width <= tiny)

        # A NaN cubic step (no real minimizer) fails the bounds test and is not used.
        cubic = _cubic_minimizer(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec,
                                 s.phi_rec)
        use_cubic = (s.j > 0) & (cubic > left + 0.2 * width) & (cubic < right - 0.2 * width)
        quad = _quadratic_minimizer(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quad = ~use_cubic & (quad > left + 0.1 * width) & (quad < right - 0.1 * width)
        a_j = where(use_cubic, cubic, s.a_rec)
        a_j = where(use_quad, quad, a_j)
        a_j = where(~use_cubic & ~use_quad, (s.a_lo + s.a_hi) / 2.0, a_j)

        phi_j, dphi_j, g_j = phi(a_j)
        phi_j = phi_j.astype(s.phi_lo.dtype)
        dphi_j = dphi_j.astype(s.dphi_lo.dtype)
        g_j = g_j.astype(s.g_star.dtype)

        # Exactly one of: a_j becomes the high end; a_j is the answer; a_j becomes the low end
        # (the old low end moving to the high end first when the slope points back at it).
        to_hi = too_high(a_j, phi_j) | (phi_j >= s.phi_lo)
        found = curvature_ok(dphi_j) & ~to_hi
        to_lo = ~to_hi & ~found
        flip = to_lo & (dphi_j * (s.a_hi - s.a_lo) >= 0.0)
        j = s.j + 1
        s = s._replace(**_select(to_hi, dict(a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j,
                                              a_rec=s.a_hi, phi_rec=s.phi_hi), s))
        s = s._replace(**_select(found, dict(a_star=a_j, phi_star=phi_j, dphi_star=dphi_j,
                                             g_star=g_j), s))
        s = s._replace(**_select(flip, dict(a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo,
                                            a_rec=s.a_hi, phi_rec=s.phi_hi), s))
        s = s._replace(**_select(to_lo, dict(a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j,
                                             a_rec=s.a_lo, phi_rec=s.phi_lo), s))
        return s._replace(done=s.done | found, failed=failed | (j >= _ZOOM_MAXITER), j=j,
                          nfev=s.nfev + 1, ngev=s.ngev + 1)

    return while_loop(lambda s: ~s.done & ~skip & ~s.failed, body, init)


class _SearchState(NamedTuple):
    done: Array
    failed: Array
    i: Array
    a_prev: Array
    phi_prev: Array
    dphi_prev: Array
    nfev: Array
    ngev: Array
    a_star: Array
    phi_star: Array
    dphi_star: Array
    g_star: Array


class LineSearchResults(NamedTuple):
    """The outcome of `line_search`.

    failed: no step satisfying the strong Wolfe conditions was found. nit: bracketing
    iterations. nfev, ngev: evaluations of f and of its gradient. k: nit + 1. a_k: the step.
    f_k, g_k: f and its gradient at xk + a_k pk. status: 0 found, 1 a zoom failed,
    3 `maxiter` reached.
    """

    failed: Array
    nit: Array
    nfev: Array
    ngev: Array
    k: Array
    a_k: Array
    f_k: Array
    g_k: Array
    status: Array


def line_search(f: Callable[[Array], Array], xk: Array, pk: Array, old_fval: Array | None = None,
                old_old_fval: Array | None = None, gfk: Array | None = None, c1: float = 1e-4,
                c2: float = 0.9, maxiter: int = 20) -> LineSearchResults:
    """A step a > 0 along the descent direction `pk` from `xk` satisfying the strong Wolfe
    conditions f(xk + a pk) <= f(xk) + c1 a f'(xk).pk and |f'(xk + a pk).pk| <= c2 |f'(xk).pk|.

    `old_fval` and `gfk` are f and its gradient at xk (computed when not given);
    `old_old_fval`, f at the previous iterate, picks the first trial step.

    >>> import numjax.numpy as jnp
    >>> f = lambda x: jnp.sum((x - 1.0) ** 2)
    >>> res = line_search(f, jnp.zeros(2), jnp.ones(2))
    >>> res.a_k, res.f_k, res.failed
    (Array(1., dtype=float32), Array(0., dtype=float32), Array(False, dtype=bool))
    """
    xk, pk = promote_dtypes_inexact(xk, pk)

    def phi(t: Array) -> tuple[Array, Array, Array]:
        """f, its slope along pk and its gradient at xk + t pk."""
        value, grad = value_and_grad(f)(xk + array(t, dtype=pk.dtype) * pk)
        return value, real(_dot(grad, pk)), grad

    evaluated_here = old_fval is None or gfk is None
    if evaluated_here:
        phi_0, dphi_0, gfk = phi(0)
    else:
        phi_0, dphi_0 = old_fval, real(_dot(gfk, pk))
    if old_old_fval is None:
        first_step: Array = 1
    else:
        guess = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        first_step = where(guess > 1, 1.0, guess)

    def too_high(a: Array, phi_a: Array) -> Array:  # sufficient decrease fails
        return phi_a > phi_0 + c1 * a * dphi_0

    def curvature_ok(dphi_a: Array) -> Array:  # the strong curvature condition holds
        return jnp_abs(dphi_a) <= -c2 * dphi_0

    init = _SearchState(
        done=False, failed=False, i=1,
        a_prev=0.0, phi_prev=phi_0, dphi_prev=dphi_0,
        nfev=int(evaluated_here), ngev=int(evaluated_here),
        a_star=0.0, phi_star=phi_0, dphi_star=dphi_0, g_star=gfk,
    )

    def body(s: _SearchState) -> _SearchState:
        # Each iteration tries the next step (doubling, as SciPy does; no upper bound).
        a_i = where(s.i == 1, first_step, s.a_prev * 2.0)
        phi_i, dphi_i, g_i = phi(a_i)
        prev, here = (s.a_prev, s.phi_prev, s.dphi_prev), (a_i, phi_i, dphi_i)

        # a_i overshoots: the answer lies in [a_prev, a_i]. a_i is the answer. The slope turned
        # up: the answer lies in [a_i, a_prev]. Both zooms run; the one not chosen does nothing.
        zoom_up = too_high(a_i, phi_i) | ((phi_i >= s.phi_prev) & (s.i > 1))
        found = curvature_ok(dphi_i) & ~zoom_up
        zoom_down = (dphi_i >= 0.0) & ~zoom_up & ~found
        up = _zoom(phi, too_high, curvature_ok, prev, here, gfk, ~zoom_up)
        down = _zoom(phi, too_high, curvature_ok, here, prev, gfk, ~zoom_down)

        star = ("a_star", "phi_star", "dphi_star", "g_star")
        s = s._replace(**_select(zoom_up, {k: getattr(up, k) for k in star}, s))
        s = s._replace(**_select(found, dict(a_star=a_i, phi_star=phi_i, dphi_star=dphi_i,
                                             g_star=g_i), s))
        s = s._replace(**_select(zoom_down, {k: getattr(down, k) for k in star}, s))
        return s._replace(
            done=s.done | zoom_up | found | zoom_down,
            failed=s.failed | (zoom_up & up.failed) | (zoom_down & down.failed),
            i=s.i + 1, a_prev=a_i, phi_prev=phi_i, dphi_prev=dphi_i,
            nfev=s.nfev + 1 + up.nfev + down.nfev, ngev=s.ngev + 1 + up.ngev + down.ngev,
        )

    s = while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, init)

    status = where(s.failed, array(1), where(s.i > maxiter, array(3),
                                                          array(0)))
    a_k = asarray(s.a_star)
    if finfo(a_k.dtype).bits != 64:
        # A vanishing step would leave a float32 minimizer stuck at the same point.
        a_k = where(jnp_abs(a_k) < 1e-8, sign(a_k) * 1e-8, a_k)
    return LineSearchResults(failed=s.failed | ~s.done, nit=s.i - 1, nfev=s.nfev, ngev=s.ngev,
                             k=s.i, a_k=a_k, f_k=s.phi_star, g_k=s.g_star, status=status)
