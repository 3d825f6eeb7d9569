"""The standard normal CDF (`ndtr`), its log (`log_ndtr`) and its inverse (`ndtri`).

ndtr is assembled from erf/erfc so that neither tail cancels; log_ndtr switches to
-ndtr(-x) above `upper` (log(1 - e) ~ -e) and to an asymptotic series below `lower`, where
ndtr underflows; ndtri is Cephes' piecewise rational approximation, as in JAX.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src.api.custom_derivatives import custom_jvp
from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.numpy.creation import asarray, full, zeros_like
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.shape import shape
from numjax._src.typing import Array

# Segment bounds of log_ndtr per dtype: (lower, upper). Below `lower` ndtr is ~0 relative to
# double-precision SciPy; above `upper` log(ndtr(x)) rounds to 0 (both chosen conservatively).
_LOG_NDTR_BOUNDS = {np.dtype(np.float64): (-20.0, 8.0), np.dtype(np.float32): (-10.0, 5.0)}


def _dtype(x: Array) -> np.dtype:
    return np.dtype(get_aval(x).dtype)


def ndtr(x: Array) -> Array:
    """The standard normal CDF, integral of exp(-t^2/2)/sqrt(2 pi) from -inf to x.

    >>> ndtr(1.0)
    Array(0.8413447, dtype=float32)
    """
    x = asarray(x)  # no promotion: integer input is an error, as in JAX
    dt = _dtype(x)
    if dt not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dt} is not supported, see docstring for supported types.")
    return _ndtr(x)


def _c(x: Array, value: Any) -> Array:
    """`value` as a strongly typed constant of x's dtype (JAX writes `dtype(value)`)."""
    return lax._convert_element_type(value, get_aval(x).dtype, False)


def _ndtr(x: Array) -> Array:
    c = lambda v: _c(x, v)
    half_sqrt_2 = c(0.5 * np.sqrt(2.0))
    w = lax.mul(x, half_sqrt_2)
    z = lax.abs(w)
    # Near 0 use 1 + erf(w); in the tails erfc(|w|) keeps the small side exact.
    tails = lax.select(lax.gt(w, c(0.0)), lax.sub(c(2.0), lax.erfc(z)), lax.erfc(z))
    return lax.mul(c(0.5), lax.select(lax.lt(z, half_sqrt_2), lax.add(c(1.0), lax.erf(w)),
                                      tails))


def _horner(x: Array, coeffs: list[float]) -> Array:
    """coeffs[0] + coeffs[1] x + ... evaluated from the highest power down."""
    acc = zeros_like(x)
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


# Cephes ndtri coefficients, lowest power first: (P0, Q0) for |p - 1/2| <= 1/2 - exp(-2),
# (P1, Q1) for exp(-32) < p <= exp(-2), (P2, Q2) for the far tail.
_P0 = [-1.23916583867381258016e0, 1.39312609387279679503e1, -5.66762857469070293439e1,
       9.80010754185999661536e1, -5.99633501014107895267e1]
_Q0 = [-1.18331621121330003142e0, 1.59056225126211695515e1, -8.20372256168333339912e1,
       2.00260212380060660359e2, -2.25462687854119370527e2, 8.63602421390890590575e1,
       4.67627912898881538453e0, 1.95448858338141759834e0, 1.0]
_P1 = [-8.57456785154685413611e-4, -3.50424626827848203418e-2, -1.40256079171354495875e-1,
       2.18663306850790267539e0, 1.46849561928858024014e1, 4.40805073893200834700e1,
       5.71628192246421288162e1, 3.15251094599893866154e1, 4.05544892305962419923e0]
_Q1 = [-9.33259480895457427372e-4, -3.80806407691578277194e-2, -1.42182922854787788574e-1,
       2.50464946208309415979e0, 1.50425385692907503408e1, 4.13172038254672030440e1,
       4.53907635128879210584e1, 1.57799883256466749731e1, 1.0]
_P2 = [6.23974539184983293730e-9, 2.65806974686737550832e-6, 3.01581553508235416007e-4,
       1.23716634817820021358e-2, 2.01485389549179081538e-1, 1.33303460815807542389e0,
       3.93881025292474443415e0, 6.91522889068984211695e0, 3.23774891776946035970e0]
_Q2 = [6.79019408009981274425e-9, 2.89247864745380683936e-6, 3.28014464682127739104e-4,
       1.34204006088543189037e-2, 2.16236993594496635890e-1, 1.37702099489081330271e0,
       3.67983563856160859403e0, 6.02427039364742014255e0, 1.0]


def ndtri(p: Array) -> Array:
    """The inverse of `ndtr`: x with ndtr(x) = p (-inf at 0, inf at 1).

    >>> ndtri(0.975)
    Array(1.9599644, dtype=float32)
    """
    p = asarray(p)
    dt = _dtype(p)
    if dt not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dt} is not supported, see docstring for supported types.")
    return _ndtri(p)


def _ndtri(p: Array) -> Array:
    c = lambda v: _c(p, v)
    upper = p > c(-np.expm1(-2.0))
    small = where(upper, lax.sub(c(1.0), p), p)  # the tail probability, <= 1 - exp(-2)
    # 0 would give NaNs in branches not taken (and in their gradients); 1/2 is harmless.
    small = where(small == c(0.0), c(0.5), small)

    # Central region: x / sqrt(2 pi) = w + w^3 P0(w^2) / Q0(w^2), w = p - 1/2.
    w = small - c(0.5)
    ww = lax.square(w)
    central = (w + w * ww * (_horner(ww, _P0) / _horner(ww, _Q0))) * c(-np.sqrt(2 * np.pi))

    # Tails: x = z - log(z)/z - P(1/z) / (Q(1/z) z), z = sqrt(-2 log p).
    z = lax.sqrt(lax.mul(c(-2.0), lax.log(small)))
    lead = z - lax.log(z) / z
    inv_z = lax.div(c(1.0), z)
    far = lead - _horner(inv_z, _P2) / _horner(inv_z, _Q2) / z
    near = lead - _horner(inv_z, _P1) / _horner(inv_z, _Q1) / z

    x = where(small > c(np.exp(-2.0)), central, where(z >= c(8.0), far, near))
    x = where(p > c(1.0 - np.exp(-2.0)), x, -x)
    inf = full(shape(p), c(np.inf))
    return where(p == c(0.0), -inf, where(p == c(1.0), inf, x))


def log_ndtr(x: Array, series_order: int = 3) -> Array:
    """log(ndtr(x)), accurate in both tails. `series_order` (0..30) terms of the asymptotic
    series are used below the lower segment bound.

    >>> log_ndtr(-12.0)
    Array(-75.410675, dtype=float32)
    """
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    return _log_ndtr(x, series_order)


def _log_ndtr_impl(x: Array, series_order: int) -> Array:
    x = asarray(x)
    dt = _dtype(x)
    if dt not in _LOG_NDTR_BOUNDS:
        raise TypeError(f"x.dtype={dt} is not supported.")
    lower, upper = (_c(x, b) for b in _LOG_NDTR_BOUNDS[dt])
    # The clamps keep the branches not taken finite: a select's gradient multiplies them by 0.
    return where(
        lax.gt(x, upper), -_ndtr(-x),
        where(lax.gt(x, lower), lax.log(_ndtr(lax.max(x, lower))),
                  _log_ndtr_lower(lax.min(x, lower), series_order)))


_log_ndtr = custom_jvp(_log_ndtr_impl, nondiff_argnums=(1,))


@_log_ndtr.defjvp
def _log_ndtr_jvp(series_order: int, primals: Any, tangents: Any) -> Any:
    # d/dx log ndtr(x) = pdf(x) / ndtr(x) = exp(log pdf(x) - log ndtr(x))
    (x,), (t,) = primals, tangents
    out = _log_ndtr(x, series_order)
    return out, lax.mul(t, lax.exp(lax.sub(_norm_logpdf(x), out)))


def _norm_logpdf(x: Array) -> Array:
    aval = get_aval(x)
    half = lax._convert_element_type(-0.5, aval.dtype, aval.weak_type)
    log_norm = lax._convert_element_type(0.5 * np.log(2 * np.pi), aval.dtype, aval.weak_type)
    return lax.sub(lax.mul(half, lax.square(x)), log_norm)


def _log_ndtr_lower(x: Array, series_order: int) -> Array:
    """log ndtr(x) for x << -1: log(pdf(x) / -x) + log(1 + sum_n (-1)^n (2n-1)!! / x^(2n))."""
    c = lambda v: _c(x, v)
    x2 = lax.square(x)
    log_scale = lax.mul(c(-0.5), x2) - lax.log(-x) - c(0.5 * np.log(2.0 * np.pi))
    return log_scale + lax.log(_asymptotic_series(x, series_order))


def _asymptotic_series(x: Array, series_order: int) -> Array:
    dt = _dtype(x).type
    if series_order <= 0:
        return np.array(1, dt)
    x2 = lax.square(x)
    even = zeros_like(x)
    odd = zeros_like(x)
    x2n = x2
    for n in range(1, series_order + 1):
        term = lax.div(_c(x, float(np.prod(np.arange(2 * n - 1, 1, -2)))), x2n)
        if n % 2:
            odd += term
        else:
            even += term
        x2n *= x2
    return lax.add(_c(x, 1.0), even) - odd
