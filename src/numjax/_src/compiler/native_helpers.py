"""Source of the helper functions native programs call (threefry-2x32 on one counter pair here;
primitives defined above the compiler register theirs, as `random/xla_math.py` does for
erf_inv). Each helper is written out only into the modules that use it."""

from __future__ import annotations

from collections.abc import Callable, Iterable

_THREEFRY = """
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
"""


# float32 tanh as a rational function of the clamped argument, arithmetic and selects only, so
# the compiler vectorizes the loops calling it (libm's scalar tanhf dominated a 64-wide RNN
# step). x * P(u^2) / Q(u^2) with u = clamp(x, -9, 9) / 9 (tanh is 1 in float32 beyond 9);
# coefficients fitted for relative error on [0, 9]: at most 6 ulp from the correctly rounded
# value over [-10, 10] (0.8 on average), exact at 0, -0, +-inf; NaN stays NaN.
_TANH_F32 = """
@numba.njit(cache=True, inline='always')
def tanh_f32(x):
    c = np.float32(9.0) if x > np.float32(9.0) else (
        np.float32(-9.0) if x < np.float32(-9.0) else x)
    u = c * np.float32(0.1111111111111111)
    s = u * u
    p = np.float32(-0.2157808244228363)
    p = p * s + np.float32(1.6563246250152588)
    p = p * s + np.float32(-7.8358025550842285)
    p = p * s + np.float32(53.35115432739258)
    p = p * s + np.float32(183.2860565185547)
    p = p * s + np.float32(95.38249206542969)
    p = p * s + np.float32(9.0)
    q = np.float32(135.31329345703125)
    q = q * s + np.float32(160.71310424804688)
    q = q * s + np.float32(37.59804916381836)
    q = q * s + np.float32(1.0)
    return np.float32(u * p / q)
"""


_SOURCES: dict[str, Callable[[], str]] = {"threefry_pair": lambda: _THREEFRY,
                                          "tanh_f32": lambda: _TANH_F32}


def register(name: str, source: Callable[[], str]) -> None:
    """Register the source of helper `name` (defining a function of that name), for
    primitives defined above the compiler (their rules live with them)."""
    _SOURCES[name] = source


def source(names: Iterable[str]) -> list[str]:
    """The source lines defining the helpers `names` (in a stable order)."""
    out = ["import math"]
    for name in sorted(names):
        out.append(_SOURCES[name]())
    return out


# Scalar bit casts: the register reinterpreted (an array view would cost an allocation).
def _bitcast_source(dtype: str) -> Callable[[], str]:
    return lambda: f"""
import numba.extending


@numba.extending.intrinsic
def bitcast_{dtype}(typingctx, x):
    target = numba.from_dtype(np.dtype("{dtype}"))

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(target))
    return target(x), codegen
"""


for _dtype in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float32", "float64"):
    register(f"bitcast_{_dtype}", _bitcast_source(_dtype))
