"""float64 kernels that round as XLA:CPU does, for the samplers under x64.

XLA:CPU computes float64 `log`, `exp`, `pow` and `erf` by calling the C library (the host's
libm, so JAX's bits are libm's on the same machine); NumPy's float64 `log`/`exp` have their own
SIMD kernels on AVX-512 machines, 1 ulp off libm on ~20% of inputs. Python's `math` module
calls libm, so the kernels here call it element by element (about 0.1 us a value, ~100x NumPy's
kernels: the price of JAX's bits). XLA contracts every `a * b + c` into a fused multiply-add,
emulated exactly below, and expands `log1p` and `erf_inv` into polynomials of its own
(checked against JAX 0.4.30 on 200_000 inputs each, 0 mismatches).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_VELTKAMP = float(2**27 + 1)  # splits a float64 into two halves of 26 and 27 bits


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, e) with p = fl(a * b) and p + e = a * b exactly (Dekker)."""
    p = a * b
    t = _VELTKAMP * a
    ah = t - (t - a)
    al = a - ah
    t = _VELTKAMP * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, e) with s = fl(a + b) and s + e = a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """float64 `a * b + c` rounded once.

    Boldo and Melquiond's emulation: the exact product and sum as pairs of floats, their low
    parts added with rounding to odd, then one rounding to nearest, which is then correct.
    """
    a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
    with np.errstate(all="ignore"):
        uh, ul = _two_prod(a, b)
        th, tl = _two_sum(c, uh)
        v, v_err = _two_sum(tl, ul)
        bits = v.view(np.int64).copy()
        # Round to odd: an inexact sum with an even last bit steps one ulp toward the exact.
        even = (v_err != 0) & ((bits & 1) == 0)
        bits += np.where(even, np.where((v_err > 0) == (v > 0), 1, -1), 0)
        out = th + bits.view(np.float64)
        # A zero result takes its sign from the plain expression (exact there); so do
        # non-finite and overflowing cases.
        bad = ~np.isfinite(out) | ~np.isfinite(uh) | (out == 0)
        if bad.any():
            out = np.where(bad, a * b + c, out)
    return np.asarray(out)


def horner(w: np.ndarray, coeffs: Sequence[float]) -> np.ndarray:
    """Horner's rule with a fused multiply-add per step; `coeffs` leading first."""
    p = np.full(w.shape, coeffs[0])
    for coeff in coeffs[1:]:
        p = fma(p, w, coeff)
    return p


def _libm(fn: Callable[[float], float], numpy_fn: Callable[[np.ndarray], np.ndarray],
          domain: Callable[[np.ndarray], np.ndarray]) -> Callable[[Any], np.ndarray]:
    """libm's `fn` where `x` is in `domain` and `numpy_fn` is finite (where `math` raises no
    error); elsewhere `numpy_fn` gives the special values (inf, NaN, poles) as libm does."""
    per_value = np.frompyfunc(fn, 1, 1)

    def kernel(x: Any) -> np.ndarray:
        x = np.asarray(x, np.float64)
        with np.errstate(all="ignore"):
            out = np.array(numpy_fn(x), np.float64)
            inside = domain(x) & np.isfinite(out)
        if inside.any():
            out[inside] = per_value(x[inside]).astype(np.float64)
        return out
    return kernel


log = _libm(math.log, np.log, lambda x: x > 0)
_exp = _libm(math.exp, np.exp, np.isfinite)


def exp(x: Any) -> np.ndarray:
    """libm's exp with denormal results flushed to zero, as XLA:CPU runs."""
    return flush_denormals(_exp(x))


erf = _libm(math.erf, np.sign, np.isfinite)  # sign: +-1 at +-inf


def pow(x: Any, y: Any) -> np.ndarray:
    """libm's pow for positive finite `x` and finite `y` with a finite non-zero result."""
    x, y = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
    with np.errstate(all="ignore"):
        out = np.array(np.power(x, y), np.float64)
        inside = (x > 0) & np.isfinite(x) & np.isfinite(y) & np.isfinite(out) & (out != 0)
    if inside.any():
        out[inside] = np.fromiter(map(math.pow, x[inside].tolist(), y[inside].tolist()),
                                  np.float64, int(inside.sum()))
    return out


def flush_denormals(x: np.ndarray) -> np.ndarray:
    """`x` with float64 denormals replaced by zeros of their sign (XLA:CPU's flush mode)."""
    tiny = np.abs(x) < np.finfo(np.float64).tiny
    if tiny.any():
        x = np.where(tiny, x * 0.0, x)
    return x


# XLA's log1p for |x| < sqrt(2) - 1: x - x^2/2 + x^3 P(x) / Q(x) (Cephes' coefficients, which
# `xla_math` rounds to float32 for the float32 kernel), else libm's log(1 + x).
def log1p(x: Any, num: Sequence[float], den: Sequence[float]) -> np.ndarray:
    """XLA:CPU's float64 log1p, given the rational approximation's coefficients."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        x2 = x * x
        small = x + fma(x * x2, horner(x, num) / horner(x, den), -0.5 * x2)
        out = np.where(np.abs(x) < 0.41421356237309504880, small, log(x + 1.0))
    return flush_denormals(np.asarray(out))


# Giles' double-precision erf_inv ("Approximating the erfinv function", 2011): w = -log1p(-x^2),
# a polynomial in w - 3.125 below 6.25, in sqrt(w) - 3.25 below 16, else in sqrt(w) - 5; times x.
_ERF_INV_CENTRAL = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
    1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
    6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693, 1.6536545626831027356)
_ERF_INV_TAIL = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
    3.0838856104922207635)
_ERF_INV_FAR = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
    2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977, 4.8499064014085844221)


def erf_inv(x: Any, num: Sequence[float], den: Sequence[float]) -> np.ndarray:
    """XLA:CPU's float64 erf_inv (`num`, `den`: log1p's coefficients)."""
    x = flush_denormals(np.asarray(x, np.float64))
    w = -log1p(x * -x, num, den)
    p = np.empty_like(w)
    with np.errstate(invalid="ignore"):
        central, tail = w < 6.25, (w >= 6.25) & (w < 16)
        far = ~(central | tail)
        root = np.sqrt(w)
    p[central] = horner(w[central] - 3.125, _ERF_INV_CENTRAL)
    p[tail] = horner(root[tail] - 3.25, _ERF_INV_TAIL)
    p[far] = horner(root[far] - 5.0, _ERF_INV_FAR)
    with np.errstate(invalid="ignore"):
        out = np.where(np.abs(x) == 1, x * np.inf, p * x)
    return flush_denormals(np.asarray(out))
