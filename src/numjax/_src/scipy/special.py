"""`jax.scipy.special`'s elementwise functions, built on numjax.lax's special primitives.

Each function promotes its arguments to a floating dtype (`promote_args_inexact`, so a Python
scalar gives a weakly typed float32) and composes lax operations, as JAX does, so values and
derivatives follow from the primitives' rules. Functions with a removable singularity
(`xlogy` at x = 0, `logit`) carry a custom_jvp so their derivatives stay finite where JAX's do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src.api.custom_derivatives import custom_jvp
from numjax._src.core.avals import get_aval
from numjax._src.dtypes import issubdtype, result_type
from numjax._src.interpreters import ad
from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.lax.rules import FLOAT, elementwise_primitive, upcast_kernel
from numjax._src.numpy.creation import arange, zeros_like
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.manipulation import _concrete_or_error
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.shape import expand_dims, ndim
from numjax._src.numpy.ufuncs import maximum, minimum
from numjax._src.numpy.util import promote_args_inexact
from numjax._src.typing import Array

# ---- gamma family --------------------------------------------------------------------------


def gammaln(x: Array) -> Array:
    """log|Gamma(x)|.

    >>> gammaln(4.0)
    Array(1.7917595, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("gammaln", x)
    return lax.lgamma(x)


def gammasgn(x: Array) -> Array:
    """The sign of Gamma(x): -1 on the negative intervals (-2k-1, -2k), else 1.

    >>> gammasgn(-0.5)
    Array(-1., dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("gammasgn", x)
    floor_x = lax.floor(x)
    positive = (x > 0) | (x == floor_x) | (floor_x % 2 == 0)
    return where(positive, 1.0, -1.0)


def gamma(x: Array) -> Array:
    """The gamma function, as sign times exp(gammaln).

    >>> gamma(5.0)
    Array(24., dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("gamma", x)
    return gammasgn(x) * lax.exp(lax.lgamma(x))


# Stirling-series coefficients of log Gamma's correction term, from DiDonato and Morris's
# ALGDIV (ACM TOMS 708), as JAX uses them.
_ALGDIV_COEFFS = (0.0833333333333333, -0.00277777777760991, 0.00079365066682539,
                  -0.00059520293135187, 0.000837308034031215, -0.00165322962780713)


def _log_gamma_ratio(a: Array, b: Array) -> Array:
    """log(Gamma(b) / Gamma(a + b)) for b >= 8, from Stirling's series of each log Gamma, so the
    two large logs never cancel (ALGDIV of TOMS 708)."""
    h = a / b
    c = h / (1 + h)
    x = 1 / (1 + h)  # JAX 0.4.30 has h / (1 + h) here, an error of up to 1e-6 (x64)
    d = b + (a - 0.5)
    # s_n = 1 + x + ... + x^(n-1) for the odd n the series needs
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    c0, c1, c2, c3, c4, c5 = _ALGDIV_COEFFS
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return where(u <= v, w - v - u, w - u - v)


def betaln(a: Array, b: Array) -> Array:
    """log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b); once the larger argument
    reaches 8, gammaln(b) - gammaln(a + b) comes from Stirling's series instead, as in JAX
    (in float32 the difference of two large gammalns would lose most digits).

    >>> betaln(2.0, 3.0)
    Array(-2.4849067, dtype=float32, weak_type=True)
    """
    a, b = promote_args_inexact("betaln", a, b)
    a, b = minimum(a, b), maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _log_gamma_ratio(a, b)
    return where(b < 8, small_b, large_b)


def beta(a: Array, b: Array) -> Array:
    """The beta function B(a, b).

    >>> beta(2.0, 3.0)
    Array(0.08333334, dtype=float32, weak_type=True)
    """
    a, b = promote_args_inexact("beta", a, b)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


def factorial(n: Array, exact: bool = False) -> Array:
    """n! as Gamma(n + 1) (0 for negative n); `exact=True` is not supported, as in JAX.

    >>> factorial(4.0)
    Array(24., dtype=float32, weak_type=True)
    """
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = promote_args_inexact("factorial", n)
    return where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def digamma(x: Array) -> Array:
    """The logarithmic derivative of the gamma function.

    >>> digamma(1.0)
    Array(-0.5772157, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("digamma", x)
    return lax.digamma(x)


def polygamma(n: Array, x: Array) -> Array:
    """The n-th derivative of digamma; `n` must have an integer dtype (JAX asserts it).

    >>> polygamma(1, 1.0)
    Array(1.644934, dtype=float32, weak_type=True)
    """
    if not issubdtype(result_type(n), np.integer):
        raise AssertionError  # JAX's check is a bare assert
    n, x = promote_args_inexact("polygamma", n, x)
    return lax.polygamma(n, x)


def gammainc(a: Array, x: Array) -> Array:
    """The regularized lower incomplete gamma function P(a, x).

    >>> gammainc(2.0, 1.0)
    Array(0.26424113, dtype=float32, weak_type=True)
    """
    a, x = promote_args_inexact("gammainc", a, x)
    return lax.igamma(a, x)


def gammaincc(a: Array, x: Array) -> Array:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).

    >>> gammaincc(2.0, 1.0)
    Array(0.7357589, dtype=float32, weak_type=True)
    """
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax.igammac(a, x)


def betainc(a: Array, b: Array, x: Array) -> Array:
    """The regularized incomplete beta function I_x(a, b) (NaN off a, b > 0, 0 <= x <= 1);
    differentiable in x only, as in JAX.

    >>> betainc(2.0, 3.0, 0.4)
    Array(0.5248, dtype=float32, weak_type=True)
    """
    a, b, x = promote_args_inexact("betainc", a, b, x)
    return lax.betainc(a, b, x)


def multigammaln(a: Array, d: int) -> Array:
    """The log of the multivariate gamma function of dimension `d` (a static int).

    >>> multigammaln(3.0, 2)
    Array(1.550195, dtype=float32)
    """
    d = int(_concrete_or_error(d, "d argument of multigammaln\n"))
    a, d_ = promote_args_inexact("multigammaln", a, d)
    # log Gamma_d(a) = d(d-1)/4 log(pi) + sum_{j<d} gammaln(a - j/2)
    constant = lax.mul(lax.mul(lax.mul(lax_const(a, 0.25), d_), lax.sub(d_, lax_const(a, 1))),
                       lax.log(lax_const(a, np.pi)))
    halves = lax.div(arange(d, dtype=get_aval(d_).dtype), lax_const(a, 2))
    terms = gammaln(expand_dims(a, -1) - expand_dims(halves, tuple(range(ndim(a)))))
    return jnp_sum(terms, axis=-1) + constant


def zeta(x: Array, q: Array | None = None) -> Array:
    """The Hurwitz zeta function sum_n (n + q)^-x (the Riemann form, q=None, is not
    implemented, as in JAX). Differentiable in q only.

    >>> zeta(2.0, 1.0)
    Array(1.644934, dtype=float32, weak_type=True)
    """
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to "
                                  "compute the Hurwitz Zeta function.")
    x, q = promote_args_inexact("zeta", x, q)
    return lax.zeta(x, q)


# ---- error function family -----------------------------------------------------------------


def erf(x: Array) -> Array:
    """The error function.

    >>> erf(0.5)
    Array(0.5204999, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("erf", x)
    return lax.erf(x)


def erfc(x: Array) -> Array:
    """The complementary error function 1 - erf(x).

    >>> erfc(0.5)
    Array(0.47950011, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("erfc", x)
    return lax.erfc(x)


def erfinv(x: Array) -> Array:
    """The inverse of erf on (-1, 1).

    >>> erfinv(0.5)
    Array(0.47693628, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("erfinv", x)
    return lax.erf_inv(x)


# ---- logistic and entropy ------------------------------------------------------------------


def expit(x: Array) -> Array:
    """The logistic sigmoid 1 / (1 + exp(-x)).

    >>> expit(0.0)
    Array(0.5, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("expit", x)
    return lax.logistic(x)


@custom_jvp
def logit(x: Array) -> Array:
    """The inverse of expit, log(x / (1 - x)).

    >>> logit(0.75)
    Array(1.0986123, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(lax_const(x, 1), x)))


# d/dx log(x / (1 - x)) = 1 / (x (1 - x)), finite where the quotient's rule would not be
logit.defjvps(lambda t, ans, x: lax.div(t, lax.mul(x, lax.sub(lax_const(x, 1), x))))


@custom_jvp
def xlogy(x: Array, y: Array) -> Array:
    """x * log(y), defined as 0 where x == 0 (also at y == 0).

    >>> xlogy(0.0, 0.0)
    Array(0., dtype=float32, weak_type=True)
    """
    x, y = promote_args_inexact("xlogy", x, y)
    return where(x != 0.0, lax.mul(x, lax.log(y)), zeros_like(x))


@xlogy.defjvp
def _xlogy_jvp(primals: Any, tangents: Any) -> Any:
    x, y = primals
    x_dot, y_dot = tangents
    out = xlogy(x, y)
    return out, (x_dot * lax.log(y) + y_dot * x / y).astype(out.dtype)


@custom_jvp
def xlog1py(x: Array, y: Array) -> Array:
    """x * log1p(y), defined as 0 where x == 0 (also at y == -1).

    >>> xlog1py(0.0, -1.0)
    Array(0., dtype=float32, weak_type=True)
    """
    x, y = promote_args_inexact("xlog1py", x, y)
    return where(x != 0.0, lax.mul(x, lax.log1p(y)), zeros_like(x))


@xlog1py.defjvp
def _xlog1py_jvp(primals: Any, tangents: Any) -> Any:
    x, y = primals
    x_dot, y_dot = tangents
    out = xlog1py(x, y)
    return out, (x_dot * lax.log1p(y) + y_dot * x / (1 + y)).astype(out.dtype)


@custom_jvp
def _xlogx(x: Array) -> Array:
    return xlogy(x, x)


# d(x log x) = log x + 1; the product rule through xlogy would give 0 * inf at x = 0
_xlogx.defjvp(lambda primals, tangents: (_xlogx(*primals),
                                         tangents[0] * (lax.log(primals[0]) + 1)))


def entr(x: Array) -> Array:
    """The entropy term -x log x (0 at x = 0, -inf for x < 0).

    >>> entr(0.5)
    Array(0.3465736, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("entr", x)
    return lax.select(lax.lt(x, lax_const(x, 0)), lax.full_like(x, -np.inf), lax.neg(_xlogx(x)))


def rel_entr(p: Array, q: Array) -> Array:
    """Elementwise relative entropy p log(p / q) (0 where p == 0 <= q, inf elsewhere off the
    positive quadrant).

    >>> rel_entr(0.5, 0.25)
    Array(0.3465736, dtype=float32, weak_type=True)
    """
    p, q = promote_args_inexact("rel_entr", p, q)
    zero = lax_const(p, 0.0)
    both_positive = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    p_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    # Evaluate the logs only on the positive quadrant so neither value nor gradient is NaN.
    safe_p = where(both_positive, p, 1)
    safe_q = where(both_positive, q, 1)
    value = lax.sub(_xlogx(safe_p), xlogy(safe_p, safe_q))
    return where(both_positive, value, where(p_zero, zero, np.inf))


def kl_div(p: Array, q: Array) -> Array:
    """Elementwise Kullback-Leibler divergence term p log(p / q) - p + q.

    >>> kl_div(0.5, 0.25)
    Array(0.09657359, dtype=float32, weak_type=True)
    """
    p, q = promote_args_inexact("kl_div", p, q)
    return rel_entr(p, q) - p + q


# ---- Bessel functions ----------------------------------------------------------------------


def i0e(x: Array) -> Array:
    """The exponentially scaled modified Bessel function of order 0, exp(-|x|) I0(x).

    >>> i0e(1.0)
    Array(0.4657596, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("i0e", x)
    return lax.bessel_i0e(x)


def i0(x: Array) -> Array:
    """The modified Bessel function of order 0.

    >>> i0(1.0)
    Array(1.266066, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def i1e(x: Array) -> Array:
    """The exponentially scaled modified Bessel function of order 1, exp(-|x|) I1(x).

    >>> i1e(1.0)
    Array(0.20791042, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("i1e", x)
    return lax.bessel_i1e(x)


def i1(x: Array) -> Array:
    """The modified Bessel function of order 1.

    >>> i1(1.0)
    Array(0.56515914, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


# ---- exponential integrals -------------------------------------------------------------------


def _expi_kernel(x: Any) -> Any:
    import scipy.special
    out = np.asarray(scipy.special.expi(x))
    # SciPy gives Ei(0) = -inf; JAX's expi (its series evaluated at 0) gives NaN.
    return np.where(np.asarray(x) == 0, np.nan, out).astype(out.dtype)


def _exp1_kernel(x: Any) -> Any:
    import scipy.special
    out = np.asarray(scipy.special.exp1(x))
    # E1 of a negative real is complex; SciPy's real kernel returns inf there, JAX's NaN.
    return np.where(np.asarray(x) < 0, np.nan, out).astype(out.dtype)


expi_p = elementwise_primitive("expi", upcast_kernel(_expi_kernel), [FLOAT])
exp1_p = elementwise_primitive("exp1", upcast_kernel(_exp1_kernel), [FLOAT])
# d/dx Ei(x) = e^x / x and d/dx E1(x) = -e^-x / x (from their integral definitions).
ad.defjvp(expi_p, lambda t, x: lax.mul(t, lax.div(lax.exp(x), x)))
ad.defjvp(exp1_p, lambda t, x: lax.mul(t, lax.neg(lax.div(lax.exp(lax.neg(x)), x))))


def expi(x: Array) -> Array:
    """The exponential integral Ei(x) (NaN at 0, as in JAX).

    >>> expi(1.0)
    Array(1.8951178, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("expi", x)
    return expi_p.bind(x)


def exp1(x: Array) -> Array:
    """The exponential integral E1(x) for x >= 0 (NaN for x < 0, as in JAX).

    >>> exp1(1.0)
    Array(0.21938394, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("exp1", x)
    return exp1_p.bind(x)
