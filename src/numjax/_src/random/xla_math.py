"""Elementwise primitives that reproduce XLA:CPU's float32 rounding, so samplers match JAX.

XLA:CPU contracts `a * b + c` into a fused multiply-add (one rounding), and computes float32
`erf_inv` with Giles' single-precision polynomial (evaluated with fused multiply-adds) rather
than a correctly rounded inverse error function; the `log1p` inside it is XLA's own Cephes-based
approximation, not libm's, and denormals are flushed to zero. `random.uniform` (scaling to a
range) and `random.normal` (erf_inv of a uniform) inherit those roundings; NumPy's separate
multiply and add, its log1p, or SciPy's accurate erfinv, differ from JAX in the last bits. The
kernels emulate each single rounding by evaluating in float64, where the product of two float32
values is exact; float32 erf_inv then matches XLA:CPU bit for bit (checked on 1.7M inputs).
float64 arguments go to `xla_math_f64` (libm's functions, XLA's float64 formulas, an exact
float64 fused multiply-add).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import blocks
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad, batching
from numjax._src.lax import lax
from numjax._src.random import xla_math_f64
from numjax._src.typing import Array

# ---- fused multiply-add -----------------------------------------------------------------------


def _fma_kernel(a: Any, b: Any, c: Any) -> np.ndarray:
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dtype = np.result_type(a, b, c)
    if dtype.itemsize > 4:
        return xla_math_f64.fma(a, b, c)
    if dtype == np.float16:
        # XLA:CPU computes float16 arithmetic op by op without fusing (its float16 log1p
        # polynomial matches JAX only unfused): a rounded product, then a rounded sum.
        return np.asarray(a * b + c)
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    n = math.prod(shape)
    flat = [blocks.flat_operand(x if x.size in (1, n) else np.broadcast_to(x, shape).copy(), n)
            for x in (a, b, c)]
    out = np.empty(n, dtype)

    def fma_block(lo: int, hi: int) -> None:
        a, b, c = (blocks.block_of(x, lo, hi) for x in flat)
        wide = np.multiply(a, b, dtype=np.float64)
        wide += c
        out[lo:hi] = wide

    blocks.map_blocks(fma_block, n)
    return out.reshape(shape)


fma_p = Primitive("random_fma")


@fma_p.def_abstract_eval
def _fma_abstract_eval(a: ShapedArray, b: ShapedArray, c: ShapedArray) -> ShapedArray:
    if not a.dtype == b.dtype == c.dtype or not dtypes.issubdtype(a.dtype, np.floating):
        raise TypeError(f"random_fma requires operands of one float dtype, got {a.dtype}, "
                        f"{b.dtype}, {c.dtype}")
    if not a.shape == b.shape == c.shape:
        raise TypeError(f"random_fma requires operands of one shape, got {a.shape}, {b.shape}, "
                        f"{c.shape}")
    return ShapedArray(a.shape, a.dtype, a.weak_type and b.weak_type and c.weak_type)


fma_p.def_impl(_fma_kernel)


def _same_shape_batch(prim: Primitive) -> Any:
    """A batching rule for a primitive whose operands share one shape."""
    def batch(args: Sequence[Any], dims: Sequence[int | None]) -> tuple[Any, int]:
        # Unbatched operands broadcast along a new leading axis.
        size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True)
                    if d is not None)
        full = [lax.broadcast(x, (size,)) if d is None else batching.moveaxis(x, d, 0)
                for x, d in zip(args, dims, strict=True)]
        return prim.bind(*full), 0
    return batch


fma_p.def_batch(_same_shape_batch(fma_p))
ad.defjvp(fma_p,
          lambda t, a, b, c: lax.mul(t, b),
          lambda t, a, b, c: lax.mul(t, a),
          lambda t, a, b, c: t)


def fma(a: Array, b: Array, c: Array) -> Array:
    """`a * b + c` with one rounding, as XLA:CPU computes it (operands of one shape and dtype).

    >>> import numpy as np
    >>> fma(np.float32(0.1), np.float32(3.0), np.float32(-0.3))
    Array(-7.450581e-09, dtype=float32)
    """
    return fma_p.bind(a, b, c)


# ---- erf_inv as XLA:CPU computes it -----------------------------------------------------------

# Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011), single precision.
_W_LT_5 = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
           -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_W_GE_5 = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
           -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner_fma_f32(w: np.ndarray, coeffs: Sequence[float],
                    w64: np.ndarray | None = None) -> np.ndarray:
    """Horner's rule in float32 with each multiply-add rounded once (exact in float64).

    `coeffs` lists the leading coefficient first; `w64` is `w` as float64, when already made.
    """
    c = [np.float64(np.float32(coeff)) for coeff in coeffs]
    if w64 is None:
        w64 = w.astype(np.float64)
    # The running value stays in float64, rounded through float32 after each step: a float64
    # multiply is ~2.5x faster than NumPy's mixed float32 x float64 loop. (Evaluating several
    # polynomials as one stacked array measured ~7% slower than separate calls.)
    p64 = w64 + c[1] if c[0] == 1 else w64 * c[0] + c[1]
    p = p64.astype(np.float32)
    for coeff in c[2:]:
        p64[...] = p
        p64 *= w64
        p64 += coeff
        p[...] = p64
    return p


# XLA:CPU's float32 log1p (ElementalIrEmitter::EmitLog1p): Cephes' rational approximation
# x - x^2/2 + x^3 P(x)/Q(x) for |x| < sqrt(2) - 1, else log(1 + x). Its log is not libm's but
# the Cephes/Eigen polynomial XLA:CPU substitutes for `llvm.log` (polynomial_approximations.cc).
# NumPy's correctly rounded log1p differs from it by 1-2 ulp on ~16% of erf_inv's inputs, which
# made normal() up to 3 ulp off JAX. Polynomials list the leading coefficient first.
_LOG1P_NUM = (4.5270000862445199635215e-5, 4.9854102823193375972212e-1,
              6.5787325942061044846969e0, 2.9911919328553073277375e1,
              6.0949667980987787057556e1, 5.7112963590585538103336e1,
              2.0039553499201281259648e1)
_LOG1P_DEN = (1.0, 1.5062909083469192043167e1, 8.3047565967967209469434e1,
              2.2176239823732856465394e2, 3.0909872225312059774938e2,
              2.1642788614495947685003e2, 6.0118660497603843919306e1)
_LOG_P = ((7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1),
          (-1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1),
          (2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_LOG_Q1 = np.float32(-2.12194440e-4)
_LOG_Q2 = np.float32(0.693359375)  # ln 2 - _LOG_Q1, exact in 9 bits so `_LOG_Q2 * e` is exact
_LOG1P_SMALL = np.float32(0.41421356237309504880)  # sqrt(2) - 1: the polynomial's range


def _fma_f32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float32 `a * b + c` rounded once (the float64 product of float32 values is exact)."""
    wide = np.multiply(a, b, dtype=np.float64)
    wide += c
    return wide.astype(np.float32)


def _log_f32(x: np.ndarray) -> np.ndarray:
    """XLA:CPU's float32 log of positive normal `x` (Cephes logf, its multiply-adds fused)."""
    f32 = np.float32
    m, e_int = np.frexp(x)  # x = m * 2**e with m in [0.5, 1)
    e = e_int.astype(f32)
    # Centre the mantissa on [sqrt(1/2) - 1, sqrt(2) - 1): t = 2m - 1 (exact) with e -= 1.
    below = m < f32(0.707106781186547524)
    t = m * (below + f32(1))
    t -= f32(1)
    e -= below
    x2 = t * t
    x3 = x2 * t
    t64 = t.astype(np.float64)
    y, y1, y2 = (_horner_fma_f32(t, coeffs, t64) for coeffs in _LOG_P)
    y = _fma_f32(y, x3, y1)
    y = _fma_f32(y, x3, y2)
    # LLVM fuses `y * x3 + _LOG_Q1 * e` on the first product (measured against XLA:CPU).
    y = _fma_f32(y, x3, _LOG_Q1 * e)
    t -= f32(0.5) * x2  # exact product: fused or not, the same rounding
    t += y
    t += _LOG_Q2 * e
    return t


def _log1p_small_f32(x: np.ndarray) -> np.ndarray:
    x2 = x * x
    x64 = x.astype(np.float64)
    r = _horner_fma_f32(x, _LOG1P_NUM, x64) / _horner_fma_f32(x, _LOG1P_DEN, x64)
    return x + _fma_f32(x * x2, r, np.float32(-0.5) * x2)


def _log_any_f32(x: np.ndarray) -> np.ndarray:
    """XLA:CPU's float32 log of any `x`: -inf at +-0 and (flushed) denormals, NaN below 0."""
    f32 = np.float32
    normal = (x >= f32(np.finfo(f32).tiny)) & (x < f32(np.inf))
    if normal.all():
        return _log_f32(x)
    flushed = np.where(np.abs(x) < f32(np.finfo(f32).tiny), f32(0), x)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.log(flushed)
    normal_at = np.flatnonzero(normal)
    out.reshape(-1)[normal_at] = _log_f32(x.reshape(-1).take(normal_at))
    return out


def _log1p_f32(x: np.ndarray) -> np.ndarray:
    """XLA:CPU's float32 log1p of any `x`: -inf at -1, NaN below, denormals flushed to +-0."""
    f32 = np.float32
    # Gathering and scattering by index measured 2-10x faster than by a (random) boolean mask.
    small = np.abs(x) < _LOG1P_SMALL
    large_at = np.flatnonzero(~small)
    if large_at.size == 0:
        out = _log1p_small_f32(x)
    else:
        small_at = np.flatnonzero(small)
        out = np.empty_like(x)
        flat = out.reshape(-1)
        flat[small_at] = _log1p_small_f32(x.reshape(-1).take(small_at))
        arg = x.reshape(-1).take(large_at)
        arg += f32(1)
        flat[large_at] = _log_any_f32(arg)
    return out


def _flush_denormals(x: np.ndarray) -> np.ndarray:
    """`x` with denormals replaced by zeros of their sign, as XLA:CPU's flush-to-zero mode."""
    tiny = np.abs(x) < np.float32(np.finfo(np.float32).tiny)
    if tiny.any():
        x[tiny] *= np.float32(0)
    return x


def _erf_inv_f32_block(x: np.ndarray, out: np.ndarray) -> None:
    """float32 erf_inv of the float32 block `x`, written into `out`."""
    f32 = np.float32
    w = x * x
    np.negative(w, out=w)
    w = _log1p_f32(w)
    np.negative(w, out=w)
    # w >= 5 only for |x| > 0.9966: evaluate the w < 5 branch everywhere, then redo those few.
    large_at = np.flatnonzero(w >= f32(5))
    p = _horner_fma_f32(w - f32(2.5), _W_LT_5)
    if large_at.size:
        p[large_at] = _horner_fma_f32(np.sqrt(w.take(large_at)) - f32(3), _W_GE_5)
    np.multiply(p, x, out=out)
    # XLA:CPU runs with denormals flushed to zero, so erf_inv(x) of tiny x (~0.886 x) is +-0.
    flush = np.abs(out) < f32(np.finfo(f32).tiny)
    if flush.any():
        out[flush] *= f32(0)
    # erf_inv(+-1) = +-inf; the polynomial is indeterminate there.
    edge = np.abs(x) == f32(1)
    if edge.any():
        out[edge] = x[edge] * f32(np.inf)


def _erf_inv_f32(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float32)
    flat = x.reshape(-1)
    out = np.empty(flat.shape, np.float32)
    blocks.map_blocks(lambda lo, hi: _erf_inv_f32_block(flat[lo:hi], out[lo:hi]), flat.size)
    return out.reshape(x.shape)


def _unary_primitive(name: str, kernel: Any) -> Primitive:
    """An elementwise primitive computed by `kernel`, batched by mapping it over any axis."""
    prim = Primitive(name)
    prim.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype, x.weak_type))
    prim.def_impl(kernel)
    prim.def_batch(batching.vectorized_batch(prim))
    return prim


def _f32_kernel(f32_fn: Any, wide_fn: Any) -> Any:
    """A kernel taking `f32_fn` (a float32 flat block to a float32 block) over float32 and
    narrower inputs in cache-sized blocks, and `wide_fn` over the rest."""
    def kernel(x: Any) -> np.ndarray:
        x = np.asarray(x)
        if x.dtype.kind == "f" and x.dtype.itemsize <= 4:
            return np.asarray(_f32_blocks(f32_fn, x).astype(x.dtype, copy=False))
        return np.asarray(wide_fn(x))
    return kernel


def _erf_inv_kernel(x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.itemsize <= 4:
        return np.asarray(_erf_inv_f32(x).astype(x.dtype, copy=False))
    return xla_math_f64.erf_inv(x, _LOG1P_NUM, _LOG1P_DEN)


erf_inv_p = _unary_primitive("random_erf_inv", _erf_inv_kernel)
ad.defjvp(erf_inv_p, lambda t, x: lax.mul(
    t, lax.mul(lax.full_like(x, np.sqrt(np.pi) / 2), lax.exp(lax.square(erf_inv(x))))))


def erf_inv(x: Array) -> Array:
    """The inverse error function with XLA:CPU's float32 rounding and float64 polynomials.

    >>> import numpy as np
    >>> erf_inv(np.float32(0.5))
    Array(0.47693628, dtype=float32)
    """
    return erf_inv_p.bind(x)


# ---- log and log1p as XLA:CPU computes them ---------------------------------------------------
# The samplers that transform a uniform with log or log1p (exponential, gumbel, logistic,
# laplace, rayleigh, ...) bind these rather than lax.log/lax.log1p, whose NumPy kernels round
# correctly and so differ from JAX by 1 ulp on ~10-15% of samples; lax keeps NumPy's rounding.


def _f32_blocks(fn: Any, x: np.ndarray) -> np.ndarray:
    """`fn` (float32 flat block -> float32 block) over `x` in cache-sized blocks."""
    flat = np.asarray(x, np.float32).reshape(-1)  # a copy when `x` is not contiguous
    out = np.empty(flat.shape, np.float32)

    def block(lo: int, hi: int) -> None:
        out[lo:hi] = fn(flat[lo:hi])

    blocks.map_blocks(block, flat.size)
    return out.reshape(np.shape(x))


log_p = _unary_primitive("random_log", _f32_kernel(_log_any_f32, xla_math_f64.log))
ad.defjvp(log_p, lambda t, x: lax.div(t, x))  # d/dx log x = 1/x


def _log1p_f16(x: np.ndarray) -> np.ndarray:
    """XLA:CPU's float16 log1p: its Cephes formula (`_log1p_small_f32`) evaluated in float16
    arithmetic, every operation rounded to float16 and nothing fused (the log of the other
    branch is float32's, rounded). Matches JAX 0.4.30 on every float16 above -1; computing in
    float32 and rounding once differed on 2604 of them."""
    f16 = np.float16

    def horner(coeffs: Sequence[float]) -> np.ndarray:
        p = np.full(x.shape, f16(coeffs[0]))
        for coeff in coeffs[1:]:
            p = p * x + f16(coeff)
        return p

    with np.errstate(all="ignore"):
        x2 = x * x
        small = x + (f16(-0.5) * x2 + (x * x2) * (horner(_LOG1P_NUM) / horner(_LOG1P_DEN)))
        large = np.log((x + f16(1)).astype(np.float32)).astype(f16)
    return np.asarray(np.where(np.abs(x) < f16(0.41421356237309504880), small, large))


def _log1p_kernel(x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype == np.float16:
        return _log1p_f16(x)
    return _f32_kernel(lambda b: _flush_denormals(_log1p_f32(b)),
                       lambda b: xla_math_f64.log1p(b, _LOG1P_NUM, _LOG1P_DEN))(x)


log1p_p = _unary_primitive("random_log1p", _log1p_kernel)
ad.defjvp(log1p_p, lambda t, x: lax.div(t, lax.add(x, lax.full_like(x, 1))))


def log(x: Array) -> Array:
    """Natural log with XLA:CPU's float32 rounding (libm's for float64).

    >>> import numpy as np
    >>> log(np.float32(2.0))
    Array(0.6931472, dtype=float32)
    """
    return log_p.bind(x)


def log1p(x: Array) -> Array:
    """log(1 + x) with XLA:CPU's float32 rounding (XLA's float64 formula).

    >>> import numpy as np
    >>> log1p(np.float32(-0.5))
    Array(-0.6931472, dtype=float32)
    """
    return log1p_p.bind(x)


# ---- exp as XLA:CPU computes it ---------------------------------------------------------------
# XLA:CPU replaces float32 `llvm.exp` with Cephes' expf (polynomial_approximations.cc), every
# multiply-add fused: x = n ln2 + r with n = floor(x log2(e) + 1/2), e^r by a degree-7
# polynomial, times 2^n built from the exponent bits. NumPy's correctly rounded exp differed
# from it by 1 ulp on ~40% of inputs; this matches it bit for bit on 2.2M inputs over
# [-88, 89] (denormal results flushed to zero, as XLA:CPU runs).
_EXP_P = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
          1.6666665459e-1, 5.0000001201e-1)


def _exp_f32(x: np.ndarray) -> np.ndarray:
    """XLA:CPU's float32 exp of any `x` (NaN stays NaN; clamped to [-87.8, 88.8] first)."""
    f32 = np.float32
    xc = np.clip(x, f32(-87.8), f32(88.8))
    n = np.floor(_fma_f32(xc, np.full_like(xc, 1.44269504088896341), np.full_like(xc, 0.5)))
    np.clip(n, f32(-127), f32(127), out=n)
    # ln 2 = _LOG_Q2 + _LOG_Q1 split so that `_LOG_Q2 * n` is exact; both subtractions fused.
    r = _fma_f32(-n, np.full_like(n, _LOG_Q2), xc)
    r = _fma_f32(-n, np.full_like(n, _LOG_Q1), r)
    p = _horner_fma_f32(r, _EXP_P)
    p = _fma_f32(p, r * r, r)
    p += f32(1)
    # 2^n from its exponent bits; n = -127 gives the bit pattern of 0.0 (so a result of 0).
    pow2 = ((n.astype(np.int32) + 127) << 23).view(f32)
    with np.errstate(over="ignore"):  # e^x past float32's range is inf, as in XLA
        p *= pow2
    return _flush_denormals(p)


exp_p = _unary_primitive("random_exp", _f32_kernel(_exp_f32, xla_math_f64.exp))
ad.defjvp(exp_p, lambda t, x: lax.mul(t, exp(x)))  # d/dx e^x = e^x


def exp(x: Array) -> Array:
    """e^x with XLA:CPU's float32 rounding (libm's for float64).

    >>> import numpy as np
    >>> exp(np.float32(1.0))
    Array(2.7182817, dtype=float32)
    """
    return exp_p.bind(x)


# ---- the C library's float32 log and exp ------------------------------------------------------
# XLA:CPU substitutes its own polynomials for scalar and 4/8/16-lane float32 `llvm.log` and
# `llvm.exp` only. When LLVM's vectorizer pairs two independent scalar chains of a small program
# into 2-lane vectors (a single `f` draw: its two gamma draws side by side), the 2-lane log and
# exp it creates go unreplaced and are lowered to calls of the host's `logf`/`expf`, glibc's on
# Linux (checked in JAX 0.4.30's optimized LLVM IR). These kernels call them the same way.


def _c_library_f32(name: str) -> Any:
    """The C library's float32 function `name`, or None where no C math library loads."""
    try:
        fn = getattr(ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6"), name)
    except (OSError, AttributeError):
        return None
    fn.argtypes, fn.restype = [ctypes.c_float], ctypes.c_float
    return fn


def _libm_kernel(name: str, numpy_fn: Any, wide_fn: Any) -> Any:
    """A float32 kernel calling the C library's `name` value by value (NumPy's `numpy_fn`
    without one), with XLA:CPU's flush of denormal arguments and results to zero."""
    c_fn = _c_library_f32(name)
    per_value = np.frompyfunc(c_fn, 1, 1) if c_fn is not None else None

    def f32_fn(x: np.ndarray) -> np.ndarray:
        x = _flush_denormals(x.copy())
        if per_value is None:
            with np.errstate(all="ignore"):
                return _flush_denormals(np.asarray(numpy_fn(x), np.float32))
        return _flush_denormals(np.asarray(per_value(x), np.float32))

    return _f32_kernel(f32_fn, wide_fn)


libm_log_p = _unary_primitive("random_libm_log", _libm_kernel("logf", np.log, xla_math_f64.log))
ad.defjvp(libm_log_p, lambda t, x: lax.div(t, x))  # d/dx log x = 1/x
libm_exp_p = _unary_primitive("random_libm_exp", _libm_kernel("expf", np.exp, xla_math_f64.exp))
ad.defjvp(libm_exp_p, lambda t, x: lax.mul(t, libm_exp(x)))  # d/dx e^x = e^x


def libm_log(x: Array) -> Array:
    """Natural log by the C library's `logf` (libm's `log` for float64).

    >>> import numpy as np
    >>> libm_log(np.float32(2.0))
    Array(0.6931472, dtype=float32)
    """
    return libm_log_p.bind(x)


def libm_exp(x: Array) -> Array:
    """e^x by the C library's `expf` (libm's `exp` for float64).

    >>> import numpy as np
    >>> libm_exp(np.float32(1.0))
    Array(2.7182817, dtype=float32)
    """
    return libm_exp_p.bind(x)


def libm_log1p(x: Array) -> Array:
    """XLA:CPU's log1p formula with the C library's log in its large-argument branch (the
    2-lane `llvm.log` that LLVM makes of a paired single draw's two `log(1 + x)`).

    >>> import numpy as np
    >>> libm_log1p(np.float32(-0.5))
    Array(-0.6931472, dtype=float32)
    """
    small = lax.lt(lax.abs(x), lax.full_like(x, _LOG1P_SMALL))
    return lax.select(small, log1p(x), libm_log(lax.add(x, lax.full_like(x, 1))))


# ---- tan as XLA:CPU computes it ---------------------------------------------------------------
# XLA:CPU emits tan(x) as sinf(x) / cosf(x): one call of the C library's sincosf, then a float32
# division. glibc's sincosf is not correctly rounded (on ~1% of inputs it is 1 ulp from the
# nearest float): it reduces x by a multiple of pi/2 in double precision and evaluates short
# double polynomials for sine and cosine, rounding each result to float32 once. The kernel below
# takes those steps in float64 with glibc's published coefficients (matched on 150_000 inputs in
# (-120, 120)); beyond |x| >= 120, where glibc switches to a 192-bit reduction, it rounds
# NumPy's float64 sine and cosine instead.
_SINCOS_COEFFS = {  # the cosine coefficients c0..c4 and the sine coefficients s1..s3
    "c": (1.0, float.fromhex("-0x1.ffffffd0c621cp-2"), float.fromhex("0x1.55553e1068f19p-5"),
          float.fromhex("-0x1.6c087e89a359dp-10"), float.fromhex("0x1.99343027bf8c3p-16")),
    "s": (float.fromhex("-0x1.555545995a603p-3"), float.fromhex("0x1.1107605230bc4p-7"),
          float.fromhex("-0x1.994eb3774cf24p-13")),
}
_TWO_OVER_PI_2_24 = float.fromhex("0x1.45F306DC9C883p+23")  # 2 / pi, scaled by 2^24
_HALF_PI = float.fromhex("0x1.921FB54442D18p0")


def _sincos_f32(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc's float32 (sin y, cos y), for float32 `y`."""
    x = y.astype(np.float64)
    top = (y.view(np.uint32) >> 20) & 0x7FF  # exponent and 3 leading mantissa bits of |y|
    # |y| < 0.75 needs no reduction; otherwise n = round(y * 2/pi) via a scaled integer.
    with np.errstate(invalid="ignore", over="ignore"):
        n = (np.clip(x * _TWO_OVER_PI_2_24, -2.0**31, 2.0**31 - 1).astype(np.int32)
             + 0x800000) >> 24
    n[top < 0x3F4] = 0
    r = x - n * _HALF_PI
    # The sine polynomial takes r with sign (+, -, -, +)[n % 4]; quadrants 2 and 3 negate the
    # cosine polynomial; odd quadrants swap the two.
    r_signed = r * np.where(((n + 1) & 2) != 0, -1.0, 1.0)
    flip = np.where((n & 2) != 0, -1.0, 1.0)
    r2 = r * r
    c0, c1, c2, c3, c4 = _SINCOS_COEFFS["c"]
    s1, s2, s3 = _SINCOS_COEFFS["s"]
    r4, r3 = r2 * r2, r2 * r_signed
    sin = (r_signed + r3 * s1) + (r3 * r2) * (s2 + r2 * s3)
    cos = flip * ((c0 + r2 * c1) + r4 * c2 + (r4 * r2) * (c3 + r2 * c4))
    odd = (n & 1) != 0
    sin32, cos32 = np.where(odd, cos, sin).astype(np.float32), np.where(odd, sin, cos).astype(
        np.float32)
    tiny = top < 0x398  # |y| < 2^-12: sin y = y, cos y = 1
    sin32[tiny], cos32[tiny] = y[tiny], 1
    big = ~(top < 0x42F)  # |y| >= 120, inf, NaN
    if big.any():
        sin32[big], cos32[big] = np.sin(x[big]), np.cos(x[big])
    return sin32, cos32


def _tan_f32(x: np.ndarray) -> np.ndarray:
    sin, cos = _sincos_f32(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(sin / cos)


def _tan_kernel(x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype == np.float16:
        # XLA:CPU's float16 tan is sin / cos in float16: each rounded to float16 from float32,
        # then a float16 division (float32 tan rounded once differed on 13_912 float16 inputs;
        # this matches JAX 0.4.30 on all of them).
        sin, cos = _sincos_f32(x.astype(np.float32).reshape(-1))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(sin.astype(np.float16) / cos.astype(np.float16)).reshape(x.shape)
    return _f32_kernel(_tan_f32, lambda v: np.sin(v) / np.cos(v))(x)


tan_p = _unary_primitive("random_tan", _tan_kernel)
# d/dx tan x = 1 + tan(x)^2
ad.defjvp(tan_p, lambda t, x: lax.mul(t, lax.add(lax.full_like(x, 1), lax.square(tan(x)))))


def tan(x: Array) -> Array:
    """tan(x) as XLA:CPU computes it: float32 sin(x) / cos(x) (NumPy's sin/cos for float64).

    >>> import numpy as np
    >>> tan(np.float32(1.0))
    Array(1.5574077, dtype=float32)
    """
    return tan_p.bind(x)


# ---- erf as XLA:CPU computes it ---------------------------------------------------------------
# XLA:CPU's float32 erf (ElementalIrEmitter's rational approximation): x P(x^2) / Q(x^2) with
# both polynomials evaluated by fused multiply-adds, and +-1 once |x| >= 3.8325069. NumPy has no
# erf and SciPy's is correctly rounded; truncated_normal draws its bounds through this one.
_ERF_NUM = (2.2905065e-4, 3.4082910e-3, 5.0955694e-2, 1.8520832e-1, 1.1283791)
_ERF_DEN = (-1.1791603e-7, 2.3547966e-5, 1.0179626e-3, 1.4070470e-2, 1.1098505e-1,
            4.9746925e-1, 1.0)
_ERF_SATURATES = np.float32(3.8325069)


def _erf_f32(x: np.ndarray) -> np.ndarray:
    x2 = x * x
    num = x * _horner_fma_f32(x2, _ERF_NUM)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / _horner_fma_f32(x2, _ERF_DEN)
    saturated = np.abs(x) >= _ERF_SATURATES
    out[saturated] = np.copysign(np.float32(1), x[saturated])
    return out


erf_p = _unary_primitive("random_erf", _f32_kernel(_erf_f32, xla_math_f64.erf))
# d/dx erf x = 2 / sqrt(pi) e^(-x^2)
ad.defjvp(erf_p, lambda t, x: lax.mul(t, lax.mul(lax.full_like(x, 2 / math.sqrt(math.pi)),
                                                 lax.exp(lax.neg(lax.square(x))))))


def erf(x: Array) -> Array:
    """erf(x) with XLA:CPU's float32 rounding (libm's for float64).

    >>> import numpy as np
    >>> erf(np.float32(0.5))
    Array(0.5204999, dtype=float32)
    """
    return erf_p.bind(x)


# ---- pow as XLA:CPU computes it ---------------------------------------------------------------
# XLA:CPU calls the C library's powf. glibc's powf works in double precision: log2(x) from a
# 16-entry table of (1/c, log2 c) and a degree-5 polynomial in r = x/c - 1, times y, then
# 2^(y log2 x) from a 32-entry table of 2^(i/32) and a cubic, rounded to float once. It is not
# correctly rounded (~0.06% of results are 1 ulp from the nearest float), so the kernel takes
# the same steps with glibc's published coefficients for positive x and |y log2 x| < 126
# (everything the samplers need; matched on 200_000 inputs), and rounds NumPy's float64 power
# elsewhere.
def _hex_floats(*texts: str) -> np.ndarray:
    return np.array([float.fromhex(t) for t in texts])


_POWF_INVC = _hex_floats(
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0", "0x1.3c995b0b80385p+0",
    "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0", "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0",
    "0x1.0953f419900a7p+0", "0x1p+0", "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1",
    "0x1.b2036576afce6p-1", "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1",
    "0x1.767dcf5534862p-1")
_POWF_LOGC = _hex_floats(
    "-0x1.efec65b963019p-2", "-0x1.b0b6832d4fca4p-2", "-0x1.7418b0a1fb77bp-2",
    "-0x1.39de91a6dcf7bp-2", "-0x1.01d9bf3f2b631p-2", "-0x1.97c1d1b3b7afp-3",
    "-0x1.2f9e393af3c9fp-3", "-0x1.960cbbf788d5cp-4", "-0x1.a6f9db6475fcep-5", "0x0p+0",
    "0x1.338ca9f24f53dp-4", "0x1.476a9543891bap-3", "0x1.e840b4ac4e4d2p-3",
    "0x1.40645f0c6651cp-2", "0x1.88e9c2c1b9ff8p-2", "0x1.ce0a44eb17bccp-2")
_POWF_LOG2_POLY = _hex_floats("0x1.27616c9496e0bp-2", "-0x1.71969a075c67ap-2",
                              "0x1.ec70a6ca7baddp-2", "-0x1.7154748bef6c8p-1",
                              "0x1.71547652ab82bp0")
_EXP2F_POLY = _hex_floats("0x1.c6af84b912394p-5", "0x1.ebfce50fac4f3p-3",
                          "0x1.62e42ff0c52d6p-1")
_EXP2F_SHIFT = float.fromhex("0x1.8p+52") / 32
# 2^(i/32) as bits, less i << 47 so that adding k << 47 for k = 32 m + i scales it by 2^m.
_EXP2F_TABLE = (np.exp2(np.arange(32) / 32).view(np.uint64)
                - (np.arange(32, dtype=np.uint64) << np.uint64(47)))


def _powf_f32(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """glibc's powf for float32 `x`, `y` of one shape (flat)."""
    ix = x.view(np.uint32)
    # powf rescales a subnormal x by 2^23 first; with XLA:CPU's denormals-are-zero mode that
    # product is 0, whose bits less 23 << 23 make log2 x read as -150.
    subnormal = (ix > 0) & (ix < np.uint32(0x00800000))
    if subnormal.any():
        ix = np.where(subnormal, np.uint32((-(23 << 23)) & 0xFFFFFFFF), ix)
    tmp = ix - np.uint32(0x3F330000)
    i = ((tmp >> np.uint32(19)) & np.uint32(15)).astype(np.intp)
    top = tmp & np.uint32(0xFF800000)
    k = top.view(np.int32) >> 23
    z = (ix - top).view(np.float32).astype(np.float64)
    r = z * _POWF_INVC[i] - 1.0
    a0, a1, a2, a3, a4 = _POWF_LOG2_POLY
    r2 = r * r
    log2x = ((a0 * r + a1) * (r2 * r2)) + ((a2 * r + a3) * r2 + (a4 * r + (_POWF_LOGC[i] + k)))
    ylogx = y.astype(np.float64) * log2x
    kd = ylogx + _EXP2F_SHIFT
    ki = kd.view(np.uint64)
    r = ylogx - (kd - _EXP2F_SHIFT)
    scale = (_EXP2F_TABLE[(ki & np.uint64(31)).astype(np.intp)] + (ki << np.uint64(47))).view(
        np.float64)
    c0, c1, c2 = _EXP2F_POLY
    out = (((c0 * r + c1) * (r * r) + (c2 * r + 1.0)) * scale).astype(np.float32)
    # Outside the table path: x <= 0, subnormal, inf or NaN; y inf or NaN; |y log2 x| >= 126.
    other = (((ix - np.uint32(0x00800000) >= np.uint32(0x7F800000 - 0x00800000)) & ~subnormal)
             | ~np.isfinite(y) | ~(np.abs(ylogx) < 126))
    if other.any():
        with np.errstate(all="ignore"):
            out[other] = np.power(x[other].astype(np.float64), y[other])
    return out


def _pow_kernel(x: Any, y: Any) -> np.ndarray:
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind == "f" and x.dtype.itemsize <= 4:
        shape = np.broadcast_shapes(x.shape, y.shape)
        x32 = np.broadcast_to(x, shape).astype(np.float32).reshape(-1)
        y32 = np.broadcast_to(y, shape).astype(np.float32).reshape(-1)
        with np.errstate(all="ignore"):
            # XLA:CPU flushes denormal results to zero (denormal inputs reach powf as they are).
            out = _flush_denormals(_powf_f32(x32, y32))
        return np.asarray(out.reshape(shape).astype(x.dtype, copy=False))
    return xla_math_f64.pow(x, y)


pow_p = Primitive("random_pow")
pow_p.def_abstract_eval(lambda x, y: ShapedArray(x.shape, x.dtype, x.weak_type and y.weak_type))
pow_p.def_impl(_pow_kernel)
pow_p.def_batch(_same_shape_batch(pow_p))


def _pow_jvp_y(t: Array, x: Array, y: Array) -> Array:
    zero = lax.full_like(x, 0)
    return lax.mul(t, lax.select(lax.eq(x, zero), zero, lax.mul(lax.log(x), pow(x, y))))


ad.defjvp(pow_p,
          lambda t, x, y: lax.mul(t, lax.mul(y, pow(x, lax.sub(y, lax.full_like(y, 1))))),
          _pow_jvp_y)


def pow(x: Array, y: Array) -> Array:
    """x ** y as XLA:CPU's float32 powf rounds it (libm's pow for float64).

    `x` and `y` are arrays of one shape and floating dtype.

    >>> import numpy as np
    >>> pow(np.float32(2.0), np.float32(0.5))
    Array(1.4142135, dtype=float32)
    """
    return pow_p.bind(x, y)


# ---- softmax as XLA:CPU computes it -----------------------------------------------------------
# XLA:CPU (with oneDNN, as on x86 CPUs) replaces max / exp(x - max) / sum / divide over the last
# axis with oneDNN's softmax kernel: exp by a degree-5 polynomial in r = x - n ln 2 (fused),
# scaled by 2^(n-1) * 2; the row sum accumulated in 16-lane vectors and reduced pairwise
# (lanes i + 8, i + 4, i + 2, i + 1); each exp times the reciprocal of the sum. Dirichlet
# samples come from this softmax; NumPy's exp and a plain sum were up to 7 ulp away.
def _f32_bits(bits: int) -> np.float32:
    return np.array([bits], np.uint32).view(np.float32)[0]


_SOFTMAX_EXP_P = tuple(float(_f32_bits(b)) for b in (0x3C07CFCE, 0x3D2B9D0D, 0x3E2AAD40, 0x3EFFFEE3,
                                               0x3F7FFFFB, 0x3F800000))
_SOFTMAX_LOG2E, _SOFTMAX_LN2 = _f32_bits(0x3FB8AA3B), _f32_bits(0x3F317218)
_SOFTMAX_X_MIN, _SOFTMAX_X_MAX = _f32_bits(0xC2AEAC50), _f32_bits(0x42B17218)


def _softmax_exp_f32(x: np.ndarray) -> np.ndarray:
    """oneDNN's float32 exp."""
    f32 = np.float32
    underflow = x < _SOFTMAX_X_MIN
    x = np.clip(x, _SOFTMAX_X_MIN, _SOFTMAX_X_MAX)
    n = np.floor(x * _SOFTMAX_LOG2E + f32(0.5))
    r = _fma_f32(-n, np.full_like(n, _SOFTMAX_LN2), x)
    half_scale = (((n - f32(1)).astype(np.int32) + 127) << 23).view(f32)
    half_scale[underflow] = 0
    return (_horner_fma_f32(r, _SOFTMAX_EXP_P) * half_scale) * f32(2)


def _softmax_f64(x: np.ndarray) -> np.ndarray:
    """float64 softmax as XLA:CPU computes it without oneDNN: libm's exp of x - max, a row of
    up to 4 summed as a 4-lane vector halved twice, (e0 + e2) + (e1 + e3), and a true
    division (NumPy's exp and sum order left 890 of 3003 float64 dirichlet values 1-4 ulp
    off JAX 0.4.30)."""
    e = xla_math_f64.exp(x - x.max(-1, keepdims=True))
    n = x.shape[-1]
    if 2 < n <= 4:
        total = e[..., 0] + e[..., 2]
        total += e[..., 1] if n == 3 else e[..., 1] + e[..., 3]
        total = total[..., None]
    else:
        total = e.sum(-1, keepdims=True)
    return np.asarray(e / total)


def _softmax_kernel(x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype == np.float64 and x.shape[-1]:
        return _softmax_f64(x)
    if not (x.dtype.kind == "f" and x.dtype.itemsize <= 4) or x.shape[-1] == 0:
        e = np.exp(x - x.max(-1, keepdims=True)) if x.shape[-1] else x
        return np.asarray(e / e.sum(-1, keepdims=True) if x.shape[-1] else e)
    x32 = x.astype(np.float32)
    e = _softmax_exp_f32(x32 - x32.max(-1, keepdims=True))
    k = x.shape[-1]
    lanes = -(-k // 16) * 16
    acc = np.zeros((*x.shape[:-1], lanes), np.float32)
    acc[..., :k] = e
    chunks = acc.reshape(*x.shape[:-1], lanes // 16, 16)
    total = chunks[..., 0, :].copy()
    for i in range(1, lanes // 16):
        total += chunks[..., i, :]
    for half in (8, 4, 2, 1):
        total = total[..., :half] + total[..., half:2 * half]
    with np.errstate(divide="ignore"):
        return np.asarray((e * (np.float32(1) / total)).astype(x.dtype, copy=False))


softmax_p = Primitive("random_softmax")
softmax_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype, x.weak_type))
softmax_p.def_impl(_softmax_kernel)


def _softmax_batch(args: Sequence[Any], dims: Sequence[int | None]) -> tuple[Any, int]:
    assert dims[0] is not None
    return softmax_p.bind(batching.moveaxis(args[0], dims[0], 0)), 0


def _softmax_jvp(t: Array, ans: Array, x: Array) -> Array:
    # d softmax = s * t - s * sum(s * t) over the last axis
    st = lax.mul(ans, t)
    shape = get_aval(st).shape
    total = lax.reduce_sum(st, (len(shape) - 1,))
    total = lax.broadcast_in_dim(total, shape, tuple(range(len(shape) - 1)))
    return lax.sub(st, lax.mul(ans, total))


softmax_p.def_batch(_softmax_batch)
ad.defjvp2(softmax_p, _softmax_jvp)


def softmax(x: Array) -> Array:
    """Softmax over the last axis as XLA:CPU's oneDNN kernel rounds it (float32).

    >>> import numpy as np
    >>> softmax(np.zeros(4, np.float32))
    Array([0.25, 0.25, 0.25, 0.25], dtype=float32)
    """
    return softmax_p.bind(x)


# ---- lgamma as XLA:CPU computes it ------------------------------------------------------------
# XLA's float32 lgamma is a Lanczos approximation (g = 7, 8 terms; the leading coefficient
# rounds to 1) on z = x - 1, with log(t) as log(7.5) + log1p(z / 7.5), and Euler's reflection
# through sin(pi x) below 1/2; its log, log1p and sinf are the ones above. SciPy's gammaln is
# correctly rounded and was 1 ulp from it often enough to flip a Poisson acceptance test.
_LANCZOS = (676.520386, -1259.13916, 771.323425, -176.615036, 12.5073433, -0.138571098,
            9.98436917e-06, 1.50563267e-07)


def _lgamma_f32(x: np.ndarray) -> np.ndarray:
    f32 = np.float32
    reflect = x < f32(0.5)
    z = np.where(reflect, -x, x - f32(1))
    total = f32(_LANCZOS[0]) / (z + f32(1)) + f32(1)
    for i, coeff in enumerate(_LANCZOS[1:], start=2):
        total = total + f32(coeff) / (z + f32(i))
    log_t = _log1p_f32(z * f32(0.13333334)) + f32(2.01490307)  # log(7.5 + z)
    r = (z + f32(0.5)) - (z + f32(7.5)) / log_t
    with np.errstate(invalid="ignore", divide="ignore"):
        base = _fma_f32(r, log_t, np.full_like(r, 0.918938518)) + _log_any_f32(total)
    if reflect.any():
        # lgamma(x) = log(pi) - lgamma(1 - x) - log|sin(pi x)|, sin taken on the reduced
        # fractional part of |x|.
        ax = np.abs(x[reflect])
        frac = ax - np.floor(ax)
        frac = np.where(f32(0.5) < frac, f32(1) - frac, frac)
        sin, _ = _sincos_f32(frac * f32(np.pi))
        with np.errstate(invalid="ignore", divide="ignore"):
            log_sin = _log_any_f32(sin)
        reflected = np.where(np.isfinite(log_sin), (f32(1.14472985) - log_sin) - base[reflect],
                             -log_sin)
        base[reflect] = reflected
    base[np.isinf(x)] = np.inf
    return base


lgamma_p = _unary_primitive("random_lgamma", _f32_kernel(_lgamma_f32, lax.lgamma))
ad.defjvp(lgamma_p, lambda t, x: lax.mul(t, lax.digamma(x)))  # d/dx lgamma x = digamma x


def lgamma(x: Array) -> Array:
    """log|Gamma(x)| with XLA:CPU's float32 rounding (lax.lgamma for float64).

    >>> import numpy as np
    >>> lgamma(np.float32(4.0))  # log 6 = 1.7917595
    Array(1.7917603, dtype=float32)
    """
    return lgamma_p.bind(x)


# The native tier's lowerings of these primitives.
from numjax._src.random import xla_math_native as _xla_math_native  # noqa: E402

fma_p.native = _xla_math_native.fma_rule
erf_inv_p.native = _xla_math_native.erf_inv_rule
