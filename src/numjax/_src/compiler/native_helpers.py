"""Source of the helper functions native programs call: threefry-2x32 on one counter pair,
and float32 erf_inv as `random/xla_math.py` computes it (XLA:CPU's Giles polynomial with fused
multiply-adds, its Cephes log1p and log, denormals flushed). Each helper is written out only
into the modules that use it; the numbers come from `xla_math` so both tiers share them."""

from __future__ import annotations

from collections.abc import Iterable

from numjax._src.random import xla_math

_THREEFRY = '''
@numba.njit(cache=True, inline='always')
def threefry_pair(k1, k2, x1, x2):
    m = np.uint64(0xFFFFFFFF)
    k1 = np.uint64(k1)
    k2 = np.uint64(k2)
    k3 = k1 ^ k2 ^ np.uint64(0x1BD11BDA)
    a = (np.uint64(x1) + k1) & m
    b = (np.uint64(x2) + k2) & m
    for i in range(5):
        if i % 2 == 0:
            r0, r1, r2, r3 = 13, 15, 26, 6
        else:
            r0, r1, r2, r3 = 17, 29, 16, 24
        for r in (r0, r1, r2, r3):
            a = (a + b) & m
            b = (((b << np.uint64(r)) & m) | (b >> np.uint64(32 - r))) ^ a
        j = (i + 1) % 3
        a = (a + (k1 if j == 0 else (k2 if j == 1 else k3))) & m
        j = (i + 2) % 3
        b = (b + (k1 if j == 0 else (k2 if j == 1 else k3)) + np.uint64(i + 1)) & m
    return np.uint32(a), np.uint32(b)
'''


def _horner(name: str, coeffs: Iterable[float]) -> str:
    """A float32 Horner evaluation with each multiply-add rounded once (as
    `xla_math._horner_fma_f32`)."""
    c = [repr(float(__import__("numpy").float32(x))) for x in coeffs]
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
    return "\n".join(polys) + f'''
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
    tiny = f32(1.1754943508222875e-38)
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
    if abs(out) < f32(1.1754943508222875e-38):
        out = f32(out * f32(0.0))
    if abs(x) == f32(1.0):
        out = f32(x * f32(np.inf))
    return out
'''


_SOURCES = {"threefry_pair": lambda: _THREEFRY, "erf_inv_f32": _erf_inv_source}


def source(names: Iterable[str]) -> list[str]:
    """The source lines defining the helpers `names` (in a stable order)."""
    out = ["import math"]
    for name in sorted(names):
        out.append(_SOURCES[name]())
    return out
