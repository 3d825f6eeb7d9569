"""Native lowerings (`compiler/native.py`) of `xla_math`'s primitives: XLA's fused multiply-add,
and float32 erf_inv computed as `xla_math` computes it (XLA:CPU's Giles polynomial with fused
multiply-adds, its Cephes log1p and log, denormals flushed), from the same coefficients, so the
native tier's normal draws equal the NumPy tier's bit for bit."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from numjax._src.compiler import native, native_helpers
from numjax._src.random import xla_math


def _fma(ins: list[str], eqn: Any) -> str:
    a, b, c = ins
    if np.dtype(eqn.outvars[0].aval.dtype).itemsize == 4:
        # The float64 product of float32 values is exact: one rounding, as the kernel.
        return f"(np.float64({a}) * np.float64({b}) + np.float64({c}))"
    if np.dtype(eqn.outvars[0].aval.dtype).itemsize > 4:
        raise native.Unsupported("random_fma of float64 (an emulated fused multiply-add)")
    return f"({a} * {b} + {c})"


def _erf_inv(ins: list[str], eqn: Any) -> str:
    if np.dtype(eqn.outvars[0].aval.dtype) != np.float32:
        raise native.Unsupported("random_erf_inv of float64 (xla_math_f64's polynomials)")
    return f"erf_inv_f32({ins[0]})"


def _horner(name: str, coeffs: Iterable[float]) -> str:
    """float32 Horner's rule, each multiply-add rounded once (`xla_math._horner_fma_f32`)."""
    c = [repr(float(np.float32(x))) for x in coeffs]
    lines = ["@numba.njit(cache=True, inline='always')", f"def {name}(w):",
             "    w64 = np.float64(w)"]
    if float(c[0]) == 1.0:
        lines.append(f"    p = np.float32(w64 + {c[1]})")
    else:
        lines.append(f"    p = np.float32(w64 * {c[0]} + {c[1]})")
    for coeff in c[2:]:
        lines.append(f"    p = np.float32(np.float64(p) * w64 + {coeff})")
    lines.append("    return p")
    return "\n".join(lines) + "\n"


def _erf_inv_source() -> str:
    x = xla_math
    polys = [_horner("poly_w_lt_5", x._W_LT_5), _horner("poly_w_ge_5", x._W_GE_5),
             _horner("poly_log1p_num", x._LOG1P_NUM), _horner("poly_log1p_den", x._LOG1P_DEN),
             *(_horner(f"poly_log_{i}", p) for i, p in enumerate(x._LOG_P))]
    q1, q2 = repr(float(x._LOG_Q1)), repr(float(x._LOG_Q2))
    tiny = repr(float(np.finfo(np.float32).tiny))
    return "\n".join(polys) + f"""
@numba.njit(cache=True, inline='always')
def fma_f32(a, b, c):
    return np.float32(np.float64(a) * np.float64(b) + np.float64(c))


@numba.njit(cache=True)
def log_f32(x):
    f32 = np.float32
    m, e_int = math.frexp(np.float64(x))
    m = f32(m)
    e = f32(e_int)
    below = m < f32(0.707106781186547524)
    t = f32(m * f32(2.0)) if below else m
    t = f32(t - f32(1.0))
    if below:
        e = f32(e - f32(1.0))
    x2 = f32(t * t)
    x3 = f32(x2 * t)
    y = poly_log_0(t)
    y1 = poly_log_1(t)
    y2 = poly_log_2(t)
    y = fma_f32(y, x3, y1)
    y = fma_f32(y, x3, y2)
    y = fma_f32(y, x3, f32(f32({q1}) * e))
    t = f32(t - f32(f32(0.5) * x2))
    t = f32(t + y)
    t = f32(t + f32(f32({q2}) * e))
    return t


@numba.njit(cache=True)
def log1p_f32(x):
    f32 = np.float32
    tiny = f32({tiny})
    if abs(x) < f32(0.41421356237309504880):
        x2 = f32(x * x)
        r = f32(poly_log1p_num(x) / poly_log1p_den(x))
        return f32(x + fma_f32(f32(x * x2), r, f32(f32(-0.5) * x2)))
    arg = f32(x + f32(1.0))
    if arg >= tiny and arg < f32(np.inf):
        return log_f32(arg)
    if abs(arg) < tiny:
        arg = f32(0.0)
    return f32(np.log(arg))


@numba.njit(cache=True)
def erf_inv_f32(x):
    f32 = np.float32
    w = f32(-f32(x * x))
    w = f32(-log1p_f32(w))
    if w >= f32(5.0):
        p = poly_w_ge_5(f32(f32(np.sqrt(w)) - f32(3.0)))
    else:
        p = poly_w_lt_5(f32(w - f32(2.5)))
    out = f32(p * x)
    if abs(out) < f32({tiny}):
        out = f32(out * f32(0.0))
    if abs(x) == f32(1.0):
        out = f32(x * f32(np.inf))
    return out
"""


native_helpers.register("erf_inv_f32", _erf_inv_source)
fma_rule = native.Elementwise(_fma)
erf_inv_rule = native.Elementwise(_erf_inv, helper="erf_inv_f32")
