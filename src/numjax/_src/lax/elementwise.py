"""Elementwise primitives: arithmetic, comparisons, logic, transcendental functions.

Each primitive is declared with its NumPy kernel, accepted dtypes, result dtype and jvp.
Batching (vectorized) and lowering (a fusable ufunc) come from the standard helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import cost, native_rules, passes
from numjax._src.compiler.lowering import ufunc_lowering
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.jaxpr import Literal
from numjax._src.core.trace import Primitive, Tracer
from numjax._src.interpreters import ad, batching
from numjax._src.lax import complex_trig, rules
from numjax._src.lax.constants import const_like
from numjax._src.lax.rules import (
    ANY,
    ANY_NOT_COMPLEX,
    FLOAT,
    FLOAT_OR_COMPLEX,
    INT,
    INT_OR_BOOL,
    NUMBER_NOT_COMPLEX,
    NUMERIC,
    SIGNED_OR_FLOAT_OR_COMPLEX,
    binary,
    to_bool,
    to_real,
    unary,
)
from numjax._src.lax.structural import (
    _convert_element_type,
    broadcast_in_dim_p,
    broadcast_to_operands,
    convert_element_type_p,
    full_like,
    select_n,
    select_n_p,
    unbroadcast_to,
)
from numjax._src.runtime.array import ArrayImpl
from numjax._src.typing import Array

# ---- kernels whose NumPy spelling differs from lax's semantics -----------------------------


def _nonzero_divisor(y: Any) -> Any:
    """`y` with zeros replaced by ones, in `y`'s dtype: NumPy 1.26's value-based promotion
    makes np.where(y == 0, 1, y) float64 for a 0-d uint64 `y`, which rounded 64-bit
    remainders (randint's int64 draws of shape () were off by up to 2**11)."""
    return np.where(y == 0, np.ones((), y.dtype), y)


def _div_kernel(x: Any, y: Any) -> Any:
    """lax.div: true division for inexact types, truncation toward zero for integers."""
    if x.dtype.kind in "iu":
        y_safe = _nonzero_divisor(y)
        q = np.floor_divide(x, y_safe)
        fix = (np.remainder(x, y_safe) != 0) & ((x < 0) != (y_safe < 0))
        return np.where(y == 0, -1 if x.dtype.kind == "i" else np.iinfo(x.dtype).max,
                        q + fix).astype(x.dtype)
    if x.dtype == np.complex64:
        return _complex_div_special(x, y, _complex64_div(x, y))
    if x.dtype.kind == "c":
        return _complex_div_special(x, y, np.true_divide(x, y))
    return np.true_divide(x, y)


def _complex_div_special(x: Any, y: Any, out: Any) -> Any:
    """`out` (x / y) with XLA's results where an operand has an infinite or NaN part or y is
    0: Smith's algorithm, and where both its parts are NaN, XLA's recovery: x / 0 is
    x * copysign(inf, y.real); an infinite x over a finite y is inf times the signs of x's
    infinite parts divided conjugately by y; a finite x over an infinite y is 0 times the
    same. So (1 + 1j) / (inf + inf j) is 0j and (inf + nan j) / 2 is inf + nan j, where
    NumPy's C division gives nan + nan j."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    finite = np.isfinite(x) & np.isfinite(y)
    special = ~finite | (y == 0)
    if not special.any():
        return out
    out = np.array(out, x.dtype, ndmin=0)
    ar, ai, br, bi = (v[special] for v in (x.real, x.imag, y.real, y.imag))
    zero, one = np.zeros((), ar.dtype), np.ones((), ar.dtype)
    inf = np.asarray(np.inf, ar.dtype)
    with np.errstate(all="ignore"):
        lt = np.abs(br) < np.abs(bi)
        r = np.where(lt, br / bi, bi / br)
        denom = np.where(lt, bi + r * br, br + r * bi)
        cr = np.where(lt, (r * ar + ai) / denom, (r * ai + ar) / denom)
        ci = np.where(lt, (r * ai - ar) / denom, (ai - r * ar) / denom)
        a_inf, b_inf = np.isinf(ar) | np.isinf(ai), np.isinf(br) | np.isinf(bi)
        a_fin = np.isfinite(ar) & np.isfinite(ai)
        b_fin = np.isfinite(br) & np.isfinite(bi)
        zero_den = (br == 0) & (bi == 0) & ~(np.isnan(ar) & np.isnan(ai))
        sr, si = np.copysign(inf, br), np.copysign(inf, br)
        ur = np.copysign(np.where(np.isinf(ar), one, zero), ar)
        ui = np.copysign(np.where(np.isinf(ai), one, zero), ai)
        vr = np.copysign(np.where(np.isinf(br), one, zero), br)
        vi = np.copysign(np.where(np.isinf(bi), one, zero), bi)
        cases = [
            (zero_den, sr * ar, si * ai),
            (a_inf & b_fin, inf * (ur * br + ui * bi), inf * (ui * br - ur * bi)),
            (b_inf & a_fin, zero * (ar * vr + ai * vi), zero * (ai * vr - ar * vi)),
        ]
        both_nan = np.isnan(cr) & np.isnan(ci)
        conds = [both_nan & m for m, _, _ in cases]
        result = np.empty(ar.shape, x.dtype)
        result.real = np.select(conds, [re for _, re, _ in cases], cr)
        result.imag = np.select(conds, [im for _, _, im in cases], ci)
    out[special] = result
    return out


def _fma32(a: Any, b: Any, c: Any) -> Any:
    """float32 a * b + c rounded once (the float64 product of float32 values is exact)."""
    return (a.astype(np.float64) * b + c).astype(np.float32)


def _complex64_div(x: Any, y: Any) -> Any:
    """complex64 x / y as XLA:CPU computes it: Smith's algorithm with its multiply-adds fused,
    so x / x can be 1 + 1e-8j where NumPy's (unfused, scaled by a reciprocal) gives 1 (they
    differ in the last bit for about 60% of operands). Zeros, infinities, NaNs and subnormals
    keep NumPy's C99 results."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    with np.errstate(all="ignore"):
        out = np.asarray(np.true_divide(x, y))  # 0-d operands give a NumPy scalar
        ar, ai, br, bi = x.real, x.imag, y.real, y.imag
        tiny = np.finfo(np.float32).tiny
        normal = ((np.abs(br) >= tiny) | (np.abs(bi) >= tiny)) & (x != 0) & \
            np.isfinite(ar) & np.isfinite(ai) & np.isfinite(br) & np.isfinite(bi)
        if not normal.any():
            return out
        ar, ai, br, bi = ar[normal], ai[normal], br[normal], bi[normal]
        lt = np.abs(br) < np.abs(bi)
        # |br| < |bi|: scale by br / bi; otherwise by bi / br.
        r = np.where(lt, br / bi, bi / br)
        denom = np.where(lt, _fma32(br, r, bi), _fma32(bi, r, br))
        re = np.where(lt, _fma32(ar, r, ai), _fma32(ai, r, ar)) / denom
        im = np.where(lt, _fma32(ai, r, -ar), _fma32(-ar, r, ai)) / denom
        fused = np.empty(re.shape, np.complex64)
        fused.real, fused.imag = re, im
        out[normal] = np.where(np.isfinite(fused), fused, out[normal])
    return out


def _complex_as_xla(real_kernel: Any, complex_kernel: Any) -> Callable[[Any], Any]:
    """`real_kernel` (a ufunc) for real operands, `complex_kernel` (XLA's special values,
    lax/complex_trig.py) for complex ones."""
    def kernel(x: Any) -> Any:
        return complex_kernel(x) if x.dtype.kind == "c" else real_kernel(x)
    kernel.__name__ = real_kernel.__name__
    return kernel


def _abs_kernel(x: Any) -> Any:
    """|x|; a complex number with a NaN part has NaN magnitude, as XLA computes it, even when
    the other part is infinite (NumPy's hypot gives inf there)."""
    out = np.abs(x)
    if x.dtype.kind == "c" and out.size:
        nan_part = np.isnan(x.real) | np.isnan(x.imag)
        if nan_part.any():
            out = np.where(nan_part, np.array(np.nan, out.dtype), out)
    return out


def _exp_kernel(x: Any) -> Any:
    """e**x; complex as XLA computes it, exp(re) * (cos(im) + i sin(im)) with no special cases,
    where that differs from NumPy's C99 exp: exp(inf + 0j) is inf + nan j (C99: inf + 0j) and
    exp(89 + 0.1j) in complex64 overflows to inf + inf j (NumPy scales it: inf + 4.5e37j)."""
    x = np.asarray(x)
    out = np.exp(x)
    if x.dtype.kind != "c" or not out.size:
        return out
    out = np.asarray(out)  # of a 0-d x, np.exp gives a scalar, whose parts cannot be set
    with np.errstate(all="ignore"):
        magnitude = np.exp(x.real)
        # Where exp(re) and im are finite both formulas agree; NumPy's rounding is kept there.
        special = ~(np.isfinite(magnitude) & np.isfinite(x.imag))
        if special.any():
            m, im = magnitude[special], x.imag[special]
            out.real[special] = m * np.cos(im)
            out.imag[special] = m * np.sin(im)
    return out


def _exp2_kernel(x: Any) -> Any:
    """2**x; complex as XLA: exp(ln2 * x) with ln2 a complex constant, so the product's
    0 * inf terms make exp2(inf + 1j) nan + nan j."""
    x = np.asarray(x)
    if x.dtype.kind != "c":
        return np.exp2(x)
    ln2 = np.asarray(np.log(2), x.real.dtype)
    zero = np.zeros((), x.real.dtype)
    scaled = np.empty(x.shape, x.dtype)
    with np.errstate(all="ignore"):
        scaled.real = ln2 * x.real - zero * x.imag
        scaled.imag = ln2 * x.imag + zero * x.real
    return _exp_kernel(scaled)


def _rem_kernel(x: Any, y: Any) -> Any:
    """lax.rem: the remainder has the sign of the dividend (C fmod)."""
    if x.dtype.kind in "iu":
        y_safe = _nonzero_divisor(y)
        return np.where(y == 0, x, np.fmod(x, y_safe)).astype(x.dtype)
    return np.fmod(x, y)


def _sign_kernel(x: Any) -> Any:
    if x.dtype.kind == "c":
        # As XLA: each part divided by the magnitude, so sign(inf + 1j) is nan + 0j and
        # sign(0 + inf j) is 0 + nan j (NumPy's complex division by mag + 0j gives nan + nan j).
        x = np.asarray(x)
        mag = _abs_kernel(x)
        safe = np.where(mag == 0, np.ones((), mag.dtype), mag)
        out = np.empty(x.shape, x.dtype)
        with np.errstate(invalid="ignore"):  # NaN in, NaN out, without NumPy's warning
            out.real = np.where(mag == 0, 0, x.real / safe)
            out.imag = np.where(mag == 0, 0, x.imag / safe)
        return out
    if x.dtype.kind == "u":
        return (x > 0).astype(x.dtype)
    if x.dtype.kind in "iu":
        return np.sign(x)
    # XLA's sign keeps the zero's sign (sign(-0.0) is -0.0); NumPy's gives +0.0.
    return np.where(x == 0, x, np.sign(x))


def _round_half_away(x: Any) -> Any:
    return np.copysign(np.floor(np.abs(x) + np.asarray(0.5, x.dtype)), x).astype(x.dtype)


def _rsqrt(x: Any) -> Any:
    return np.reciprocal(np.sqrt(x))


def _logistic(x: Any) -> Any:
    # 1 / (1 + exp(-x)) as XLA computes it: within 4 ulp of JAX's float32 results, tiny values
    # in the left tail included (0.5 * tanh(x / 2) + 0.5 rounds everything below about -17 to
    # 0). exp(-x) overflowing to inf gives 0, as it should.
    one = np.asarray(1, x.dtype)
    t = np.negative(x)
    if type(t) is not np.ndarray:
        return one / (one + np.exp(t))
    np.exp(t, out=t)
    np.add(t, one, out=t)
    return np.divide(one, t, out=t)


def _shift_right_logical(x: Any, y: Any) -> Any:
    bits = x.dtype.itemsize * 8
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    ux = x.view(unsigned) if isinstance(x, np.ndarray) else np.asarray(x).view(unsigned)
    out = np.right_shift(ux, np.clip(y, 0, bits - 1).astype(unsigned))
    # A zero of the result's type: NumPy 1.26 promotes a Python 0 with a 0-d uint64 to
    # float64, which rounds 2**63 - 2 up to 2**63 (shift_right_logical(int64(-3), 1) was
    # -2**63; XLA gives 2**63 - 2).
    out = np.where((y < 0) | (y >= bits), np.zeros((), unsigned), out).astype(unsigned)
    return out.view(x.dtype)


def _shift_left(x: Any, y: Any) -> Any:
    bits = x.dtype.itemsize * 8
    out = np.left_shift(x, np.clip(y, 0, bits - 1).astype(x.dtype))
    return np.where((y < 0) | (y >= bits), np.zeros((), x.dtype), out).astype(x.dtype)


def _shift_right_arithmetic(x: Any, y: Any) -> Any:
    """XLA's arithmetic shift: the bits as a signed integer (uint8 200 >> 2 is 242), and a
    shift amount out of [0, bits) -- negative ones included, read as unsigned -- fills with the
    sign bit."""
    x = np.asarray(x)
    bits = x.dtype.itemsize * 8
    signed = np.dtype(f"i{x.dtype.itemsize}")
    amount = np.where((y < 0) | (y >= bits), bits - 1, y).astype(signed)
    return np.right_shift(x.view(signed), amount).astype(signed).view(x.dtype)


def _nextafter(x: Any, y: Any) -> Any:
    return np.nextafter(x, y)


def _pick_lexicographic(x: Any, y: Any, greater: bool) -> Any:
    """XLA's complex max/min: x where (real, imag) compares greater (less) than y's, else y;
    NaNs compare false, so they do not propagate (lax.max(nan+0j, 0j) is 0j)."""
    compare = np.greater if greater else np.less
    rx, ry = np.real(x), np.real(y)
    pick_x = np.where(rx == ry, compare(np.imag(x), np.imag(y)), compare(rx, ry))
    return np.where(pick_x, x, y)


def max_kernel(x: Any, y: Any) -> Any:
    return _pick_lexicographic(x, y, True) if x.dtype.kind == "c" else np.maximum(x, y)


def min_kernel(x: Any, y: Any) -> Any:
    return _pick_lexicographic(x, y, False) if x.dtype.kind == "c" else np.minimum(x, y)


def _atan2_kernel(x: Any, y: Any) -> Any:
    """atan2(x, y) (x the numerator); for complex operands XLA's analytic continuation
    -i log((y + i x) / sqrt(x**2 + y**2))."""
    if x.dtype.kind != "c":
        return np.arctan2(x, y)
    i = np.asarray(1j, x.dtype)
    with np.errstate(all="ignore"):
        return -i * np.log((y + i * x) / np.sqrt(x * x + y * y))


def _acosh_kernel(x: Any) -> Any:
    """Complex acosh as XLA computes it, log(x + sqrt((x + 1)(x - 1))): its branch gives a
    negative real part left of the imaginary axis (lax.acosh(-2+0.5j) is -1.36-2.86j) where
    NumPy's principal value has a positive one; jnp.arccosh flips those back."""
    if x.dtype.kind != "c":
        return np.arccosh(x)
    one = np.asarray(1, x.dtype)
    with np.errstate(all="ignore"):
        return np.log(x + np.sqrt((x + one) * (x - one)))


def _pow_kernel(x: Any, y: Any) -> Any:
    # An integer exponent is computed in x's dtype (NumPy would promote float32 ** int32 to
    # float64).
    if y.dtype.kind in "iu":
        y = y.astype(x.dtype)
    if x.dtype.kind == "c":
        return _complex_pow(x, y)
    out = np.power(x, y)
    if y.size == 1 and y.item() == 0.5:
        # NumPy 2 computes x ** 0.5 by a scalar 0.5 as sqrt(x), whose -0.0 and -inf results
        # (-0.0, nan) are not pow's (+0.0, +inf; XLA's and NumPy 1's).
        out = np.where(x == -np.inf, np.inf, out) + np.zeros((), out.dtype)
    return out


def _complex_pow(x: Any, y: Any) -> Any:
    """(a+bi) ** (c+di) where XLA's formula differs from NumPy's C library: at zero, infinite
    and NaN operands and results. XLA computes |z|**c * exp(-d arg z) * (cos q + i sin q) with
    q = c arg z + d ln|z|, then sets z**0 = 1, 1**w = 1, 0**c = 0 (c > 0, d = 0), and
    inf**c = inf (c > 0) or 0 (c < 0) for a real inf and real c. So (-inf + 0j) ** 2 is
    nan + nan j (the formula's 0 * inf) where NumPy gives inf + nan j. Elsewhere NumPy's
    result is kept: both formulas agree there to rounding."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    with np.errstate(all="ignore"):
        out = np.array(np.power(x, y), x.dtype, ndmin=0)
        a, b, c, d = x.real, x.imag, y.real, y.imag
        mag = _abs_kernel(x)
        zero, one = np.zeros((), a.dtype), np.ones((), a.dtype)
        special = ~(np.isfinite(out) & np.isfinite(x) & np.isfinite(y)) | (mag == 0)
        if not special.any():
            return out
        arg = np.arctan2(b, a)
        coeff = np.power(mag, c) * np.exp(-d * arg)
        q = c * arg + d * np.log(mag)
        formula = np.empty(x.shape, x.dtype)
        formula.real, formula.imag = coeff * np.cos(q), coeff * np.sin(q)
        real_d = d == 0
        inf_base = (a == np.inf) & (b == 0) & real_d
        cases = [
            (inf_base & (c < 0), zero),
            (inf_base & (c > 0), np.asarray(np.inf, a.dtype)),
            ((a == 1) & (b == 0), one),
            ((c == 0) & real_d, one),
            ((mag == 0) & real_d & (c >= 0), np.where(c == 0, one, zero)),
        ]
        # The first case that holds wins, as XLA's chain of selects.
        real = np.select([m for m, _ in cases], [v for _, v in cases], formula.real)
        imag = np.where(np.any([m for m, _ in cases], axis=0), zero, formula.imag)
        result = np.empty(x.shape, x.dtype)
        result.real, result.imag = real, imag
        out[special] = result[special]
    return out


# ---- helpers of the jvp rules --------------------------------------------------------------
# Each differentiable primitive below is declared with its jvp: one rule per operand giving
# that operand's share of the output tangent, rule(t, *primals), or rule(t, ans, *primals)
# with `uses_output` (the rule reuses the primal output, as JAX's rules for exp and tanh do).


def _bcast(t: Array, *operands: Array) -> Array:
    """`t` broadcast to the shape lax's broadcasting gives `operands`."""
    return broadcast_to_operands(t, *operands)


def _balanced_eq(x: Array, z: Array, y: Array) -> Array:
    """With z = max(x, y) (or min): 1 where z is x alone, 1/2 where it is both (a tie splits
    the gradient), else 0; written as JAX's rule, (x == z ? 1 : 0) / (y == z ? 2 : 1)."""
    # Operands are made in JAX's order, so the jaxprs read alike.
    is_x = eq(x, z)
    one, zero = full_like(z, 1), full_like(z, 0)
    numerator = select_n(is_x, zero, one)
    is_y = eq(y, z)
    two, one = full_like(z, 2), full_like(z, 1)
    return div(numerator, select_n(is_y, one, two))


def _round_toward_zero(x: Array) -> Array:
    return select_n(lt(x, const_like(x, 0)), floor(x), ceil(x))


def _abs_jvp(t: Array, ans: Array, x: Array) -> Array:
    """JAX's rule: the tangent where x >= 0 (so at +-0 too), its negation elsewhere (NaN
    included); for complex x, Re(t * conj(x) / |x|) with |x| = 0 read as 1 (so 0 at 0)."""
    if get_aval(x).dtype.kind == "c":
        from numjax._src.lax import complex_ops
        mag = _convert_element_type(ans, get_aval(x).dtype)
        mag = select_n(eq(mag, full_like(mag, 0)), mag, full_like(mag, 1))
        return complex_ops.real(mul(t, div(complex_ops.conj(x), mag)))
    return select_n(ge(x, full_like(x, 0)), neg(t), t)


def _pow_jvp_x(t: Array, x: Array, y: Array) -> Array:
    # d/dx x**y = y * x**(y-1). As JAX, an integer exponent has gradient 0 where y == 0, and
    # an inexact one has none of that: at x = 0, y = 0.0 the gradient is 0 * 0**-1 = nan.
    x, y = _bcast(x, x, y), _bcast(y, x, y)
    x_aval = get_aval(x)
    if get_aval(y).dtype.kind not in "iu":
        return mul(t, mul(y, pow(x, sub(y, const_like(y, 1)))))
    # An integer exponent enters the product in x's dtype.
    y_as_x = _convert_element_type(y, x_aval.dtype, get_aval(y).weak_type)
    zero = full_like(y_as_x, 0)
    jac = select_n(eq(y, const_like(y, 0)), mul(y_as_x, pow(x, sub(y, const_like(y, 1)))), zero)
    return mul(t, jac)


def _pow_jvp_y(t: Array, x: Array, y: Array) -> Array:
    # d/dy x**y = log(x) * x**y, with log(x) replaced by 0 where x == 0.
    z = pow(x, y)
    safe = select_n(eq(x, const_like(x, 0)), x, full_like(x, 1))
    return mul(t, mul(log(safe), z))


# ---- arithmetic ----------------------------------------------------------------------------

neg_p = unary("neg", np.negative, NUMERIC)
ad.linear_jvp(neg_p)
sign_p = unary("sign", _sign_kernel, NUMERIC)
floor_p = unary("floor", np.floor, FLOAT)
ceil_p = unary("ceil", np.ceil, FLOAT)
is_finite_p = unary("is_finite", np.isfinite, FLOAT, to_bool)
abs_p = unary("abs", _abs_kernel, SIGNED_OR_FLOAT_OR_COMPLEX, to_real, jvp=_abs_jvp,
              uses_output=True)
add_p = binary("add", np.add, NUMERIC,
               jvp=(lambda t, x, y: _bcast(t, x, y), lambda t, x, y: _bcast(t, x, y)))
sub_p = binary("sub", np.subtract, NUMERIC,
               jvp=(lambda t, x, y: _bcast(t, x, y), lambda t, x, y: neg(_bcast(t, x, y))))
mul_p = binary("mul", np.multiply, NUMERIC,
               jvp=(lambda t, x, y: mul(t, y), lambda t, x, y: mul(x, t)))
# d(x/y)/dy = -x * y**-2, multiplied in JAX's order: where the two terms of a quotient's
# derivative cancel (sinc near 0), the rounding decides the result.
div_p = binary("div", _div_kernel, NUMERIC,
               jvp=(lambda t, x, y: div(t, y),
                    lambda t, x, y: mul(mul(neg(t), x), integer_pow(y, -2))))
rem_p = binary("rem", _rem_kernel, NUMBER_NOT_COMPLEX,
               jvp=(lambda t, x, y: _bcast(t, x, y),
                    lambda t, x, y: mul(neg(t), _round_toward_zero(div(x, y)))))
max_p = binary("max", max_kernel, ANY, uses_output=True,
               jvp=(lambda t, ans, x, y: mul(_bcast(t, x, y), _balanced_eq(x, ans, y)),
                    lambda t, ans, x, y: mul(_bcast(t, x, y), _balanced_eq(y, ans, x))))
min_p = binary("min", min_kernel, ANY, uses_output=True,
               jvp=(lambda t, ans, x, y: mul(_bcast(t, x, y), _balanced_eq(x, ans, y)),
                    lambda t, ans, x, y: mul(_bcast(t, x, y), _balanced_eq(y, ans, x))))
pow_p = binary("pow", _pow_kernel, FLOAT_OR_COMPLEX, jvp=(_pow_jvp_x, _pow_jvp_y))


@pow_p.def_abstract_eval
def _pow_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    # As in JAX: an inexact base, and an exponent of the same dtype or of any integer dtype.
    rules.check_dtype("pow", x.dtype, FLOAT_OR_COMPLEX, 0)
    if x.dtype != y.dtype and not dtypes.issubdtype(y.dtype, np.integer):
        raise TypeError(
            "the first argument to pow must have an inexact dtype (float or complex), and the "
            "second argument must have an inexact or integer dtype, and two inexact dtypes "
            f"must match, but got {x.dtype.name} and {y.dtype.name}.")
    shape = rules.broadcast_shapes("pow", [x.shape, y.shape])
    return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


nextafter_p = binary("nextafter", _nextafter, FLOAT)
atan2_p = binary("atan2", _atan2_kernel, FLOAT_OR_COMPLEX,
                 jvp=(lambda t, x, y: mul(t, div(y, add(square(x), square(y)))),
                      lambda t, x, y: mul(t, div(neg(x), add(square(x), square(y))))))

# ---- transcendental ------------------------------------------------------------------------

exp_p = unary("exp", _exp_kernel, FLOAT_OR_COMPLEX, uses_output=True,
              jvp=lambda t, ans, x: mul(t, ans))
exp2_p = unary("exp2", _exp2_kernel, FLOAT_OR_COMPLEX,
               jvp=lambda t, x: mul(t, mul(exp2(x), const_like(x, np.log(2)))))
log_p = unary("log", np.log, FLOAT_OR_COMPLEX, jvp=lambda t, x: div(t, x))
log1p_p = unary("log1p", _complex_as_xla(np.log1p, complex_trig.log1p), FLOAT_OR_COMPLEX,
                jvp=lambda t, x: div(t, add(x, const_like(x, 1))))
expm1_p = unary("expm1", np.expm1, FLOAT_OR_COMPLEX,
                jvp=lambda t, x: mul(t, add(expm1(x), const_like(x, 1))))
# d tanh = (1 + ans)(1 - ans): reuses the output, as JAX's rule does.
tanh_p = unary("tanh", _complex_as_xla(np.tanh, complex_trig.tanh), FLOAT_OR_COMPLEX,
               uses_output=True,
               jvp=lambda t, ans, x: mul(add(t, mul(t, ans)), sub(const_like(x, 1), ans)))
logistic_p = unary("logistic", _logistic, FLOAT_OR_COMPLEX, uses_output=True,
                   jvp=lambda t, ans, x: mul(t, mul(ans, sub(const_like(x, 1), ans))))
sin_p = unary("sin", _complex_as_xla(np.sin, complex_trig.sin), FLOAT_OR_COMPLEX,
              jvp=lambda t, x: mul(t, cos(x)))
cos_p = unary("cos", _complex_as_xla(np.cos, complex_trig.cos), FLOAT_OR_COMPLEX,
              jvp=lambda t, x: neg(mul(t, sin(x))))
# d/dx tan x = 1 + tan(x)**2, from the primal's output (tan is not computed again).
tan_p = unary("tan", _complex_as_xla(np.tan, complex_trig.tan), FLOAT_OR_COMPLEX,
              jvp=lambda t, ans, x: mul(t, add(const_like(x, 1), square(ans))),
              uses_output=True)
asin_p = unary("asin", np.arcsin, FLOAT_OR_COMPLEX,
               jvp=lambda t, x: mul(t, rsqrt(sub(const_like(x, 1), square(x)))))
acos_p = unary("acos", np.arccos, FLOAT_OR_COMPLEX,
               jvp=lambda t, x: neg(mul(t, rsqrt(sub(const_like(x, 1), square(x))))))
atan_p = unary("atan", np.arctan, FLOAT_OR_COMPLEX,
               jvp=lambda t, x: div(t, add(const_like(x, 1), square(x))))
sinh_p = unary("sinh", _complex_as_xla(np.sinh, complex_trig.sinh), FLOAT_OR_COMPLEX,
               jvp=lambda t, x: mul(t, cosh(x)))
cosh_p = unary("cosh", _complex_as_xla(np.cosh, complex_trig.cosh), FLOAT_OR_COMPLEX,
               jvp=lambda t, x: mul(t, sinh(x)))
asinh_p = unary("asinh", np.arcsinh, FLOAT_OR_COMPLEX,
                jvp=lambda t, x: mul(t, rsqrt(add(square(x), const_like(x, 1)))))
acosh_p = unary("acosh", _acosh_kernel, FLOAT_OR_COMPLEX,
                jvp=lambda t, x: mul(t, rsqrt(mul(sub(x, const_like(x, 1)),
                                                  add(x, const_like(x, 1))))))
atanh_p = unary("atanh", np.arctanh, FLOAT_OR_COMPLEX,
                jvp=lambda t, x: div(t, sub(const_like(x, 1), square(x))))
sqrt_p = unary("sqrt", np.sqrt, FLOAT_OR_COMPLEX, uses_output=True,
               jvp=lambda t, ans, x: div(t, mul(const_like(x, 2), ans)))
rsqrt_p = unary("rsqrt", _rsqrt, FLOAT_OR_COMPLEX,
                jvp=lambda t, x: mul(t, mul(const_like(x, -0.5), div(rsqrt(x), x))))
cbrt_p = unary("cbrt", np.cbrt, FLOAT,
               jvp=lambda t, x: mul(t, div(const_like(x, 1 / 3), square(cbrt(x)))))

# Kernels that are not plain ufuncs, but are the given ufunc when every operand's dtype kind
# is among the listed ones (lax.div truncates integers and divides complex64 as XLA does;
# complex abs/exp/exp2/max/min/atan2/acosh follow XLA, not NumPy): fusable there.
for _p, _ufunc, _kinds in [
        (div_p, np.true_divide, "f"), (rem_p, np.fmod, "f"), (max_p, np.maximum, "biuf"),
        (min_p, np.minimum, "biuf"), (atan2_p, np.arctan2, "f"), (acosh_p, np.arccosh, "f"),
        (abs_p, np.absolute, "iuf"), (exp_p, np.exp, "f"), (exp2_p, np.exp2, "f"),
        (sin_p, np.sin, "f"), (cos_p, np.cos, "f"), (tan_p, np.tan, "f"),
        (sinh_p, np.sinh, "f"), (cosh_p, np.cosh, "f"), (tanh_p, np.tanh, "f")]:
    _p.lowering.fusable_as = (_ufunc, _kinds)

# XLA's cost analysis counts these as transcendentals, not flops.
for _p in (exp_p, exp2_p, log_p, log1p_p, expm1_p, tanh_p, logistic_p, sin_p, cos_p, tan_p,
           sqrt_p, rsqrt_p, cbrt_p, pow_p, atan2_p):
    _p.cost = cost.transcendental

# ---- comparisons and logic -----------------------------------------------------------------

eq_p = binary("eq", np.equal, ANY, to_bool)
ne_p = binary("ne", np.not_equal, ANY, to_bool)
lt_p = binary("lt", np.less, ANY_NOT_COMPLEX, to_bool)
le_p = binary("le", np.less_equal, ANY_NOT_COMPLEX, to_bool)
gt_p = binary("gt", np.greater, ANY_NOT_COMPLEX, to_bool)
ge_p = binary("ge", np.greater_equal, ANY_NOT_COMPLEX, to_bool)
not_p = unary("not", np.invert, INT_OR_BOOL)
and_p = binary("and", np.bitwise_and, INT_OR_BOOL)
or_p = binary("or", np.bitwise_or, INT_OR_BOOL)
xor_p = binary("xor", np.bitwise_xor, INT_OR_BOOL)
shift_left_p = binary("shift_left", _shift_left, INT)
shift_right_arithmetic_p = binary("shift_right_arithmetic", _shift_right_arithmetic, INT)
shift_right_logical_p = binary("shift_right_logical", _shift_right_logical, INT)

# The native tier's rules (compiler/native_rules.py): scalar expressions, looped over arrays.
for _p, _fn in [(exp_p, "np.exp"), (exp2_p, "np.exp2"), (log_p, "np.log"),
                (log1p_p, "np.log1p"), (expm1_p, "np.expm1"), (sin_p, "np.sin"),
                (cos_p, "np.cos"), (tan_p, "np.tan"), (asin_p, "np.arcsin"),
                (acos_p, "np.arccos"), (atan_p, "np.arctan"), (sinh_p, "np.sinh"),
                (cosh_p, "np.cosh"), (asinh_p, "np.arcsinh"), (acosh_p, "np.arccosh"),
                (atanh_p, "np.arctanh"), (sqrt_p, "np.sqrt"), (floor_p, "np.floor"),
                (ceil_p, "np.ceil"), (is_finite_p, "np.isfinite"), (atan2_p, "np.arctan2"),
                (nextafter_p, "np.nextafter")]:
    _p.native = native_rules.float_function(_fn)
for _p, _op in [(add_p, "+"), (sub_p, "-"), (mul_p, "*"), (eq_p, "=="), (ne_p, "!="),
                (lt_p, "<"), (le_p, "<="), (gt_p, ">"), (ge_p, ">="), (and_p, "&"),
                (or_p, "|"), (xor_p, "^")]:
    _p.native = native_rules.operator(_op)
tanh_p.native = native_rules.tanh_rule
neg_p.native = native_rules.neg_rule
abs_p.native = native_rules.abs_rule
not_p.native = native_rules.not_rule
rsqrt_p.native = native_rules.rsqrt_rule
div_p.native = native_rules.div_rule
rem_p.native = native_rules.rem_rule
max_p.native = native_rules.max_rule
min_p.native = native_rules.min_rule
sign_p.native = native_rules.sign_rule
pow_p.native = native_rules.pow_rule
logistic_p.native = native_rules.logistic_rule
shift_left_p.native = native_rules.shift_left_rule
shift_right_logical_p.native = native_rules.shift_right_logical_rule
shift_right_arithmetic_p.native = native_rules.shift_right_arithmetic_rule

# Piecewise-constant functions: their derivative is zero wherever it exists.
for _p in (floor_p, ceil_p, is_finite_p, eq_p, ne_p, lt_p, le_p, gt_p, ge_p, not_p, and_p,
           or_p, xor_p, shift_left_p, shift_right_arithmetic_p, shift_right_logical_p, sign_p):
    ad.defjvp_zero(_p)
del _p


def _nextafter_jvp(primals: Any, tangents: Any) -> Any:
    # JAX 0.4.30 defines no derivative for nextafter (a tangent reaching it is an error).
    raise NotImplementedError("Differentiation rule for 'nextafter' not implemented")


nextafter_p.def_jvp(_nextafter_jvp)

# integer_pow: x ** y for a static integer y (what `x ** 2` lowers to).
integer_pow_p = Primitive("integer_pow")


def _integer_pow_kernel(x: Any, *, y: int) -> Any:
    # By squaring, one rounded product at a time, as XLA computes it (x**3 is x * (x*x), not
    # a correctly rounded power): results equal JAX's bit for bit, and products are faster
    # than np.power. A negative power is the reciprocal of the positive one.
    x = np.asarray(x)
    if y == 0:
        return np.ones_like(x)
    if x.dtype == dtypes.bfloat16 and y not in (1, -1):
        # XLA:CPU computes bfloat16 arithmetic in float32 and keeps no rounding in between:
        # the float32 power, rounded once (integer_pow(bfloat16 0.828125, 3) is 0.56640625;
        # rounding each product gave 0.5703125). float16 rounds each product, as here.
        return _integer_pow_kernel(x.astype(np.float32), y=y).astype(x.dtype)
    # (`abs` here is this module's lax.abs: a Python int's magnitude is taken by hand.)
    n, base = -y if y < 0 else y, x
    acc: Any = None
    while n:
        if n & 1:
            acc = base if acc is None else np.multiply(acc, base)
        n >>= 1
        if n:
            base = np.multiply(base, base)
    if y < 0:
        # XLA divides 1 by the power: for complex values its division, whose infinities
        # differ from NumPy's reciprocal (integer_pow(inf + 0j, -2) is 0j, not nan + nan j).
        if x.dtype.kind == "c":
            return _div_kernel(np.ones_like(acc), acc)
        return np.reciprocal(acc)
    return acc.copy() if acc is x else acc


_integer_pow_elementwise = rules.elementwise_abstract_eval("integer_pow", [NUMERIC])


@integer_pow_p.def_abstract_eval
def _integer_pow_abstract_eval(x: ShapedArray, *, y: int) -> ShapedArray:
    if y < 0 and dtypes.issubdtype(x.dtype, np.integer):
        raise TypeError(f"Integers cannot be raised to negative powers, got "
                        f"integer_pow({x!r}, {y})")
    return _integer_pow_elementwise(x)


integer_pow_p.def_impl(_integer_pow_kernel)
integer_pow_p.operand_check = rules.refuse_extended_operands("integer_pow", [NUMERIC])
integer_pow_p.def_batch(batching.vectorized_batch(integer_pow_p))
integer_pow_p.def_lowering(ufunc_lowering(_integer_pow_kernel))
integer_pow_p.native = native_rules.integer_pow_rule


def integer_pow(x: Array, y: int) -> Array:
    """`x ** y` for a static Python integer `y`."""
    if not isinstance(y, int | np.integer) or isinstance(y, bool):
        raise TypeError(f"integer_pow requires a static integer exponent y, got {y!r} of type "
                        f"{type(y).__name__}; use lax.pow for non-integer exponents.")
    return integer_pow_p.bind(x, y=int(y))


def reciprocal(x: Array) -> Array:
    """Elementwise `1 / x` (as `integer_pow(x, -1)`, so integers are refused)."""
    return integer_pow(x, -1)


def _integer_pow_jvp(t: Array, x: Array, *, y: int) -> Array:
    if y == 0:
        return full_like(t, 0)
    d = mul(const_like(x, y), integer_pow(x, y - 1))
    return mul(t, d)


ad.defjvp(integer_pow_p, _integer_pow_jvp)


# ---- wrappers ------------------------------------------------------------------------------


def neg(x: Array) -> Array:
    r"""Elementwise negation: :math:`-x`."""
    return neg_p.bind(x)


def sign(x: Array) -> Array:
    """Elementwise sign: -1, 0 or 1 (x / |x| for a nonzero complex x)."""
    return sign_p.bind(x)


def floor(x: Array) -> Array:
    """Elementwise largest integer value not above x, in x's float dtype."""
    return floor_p.bind(x)


def ceil(x: Array) -> Array:
    """Elementwise smallest integer value not below x, in x's float dtype."""
    return ceil_p.bind(x)


def is_finite(x: Array) -> Array:
    """Elementwise test of a float for being neither infinite nor NaN."""
    return is_finite_p.bind(x)


def abs(x: Array) -> Array:
    """Elementwise absolute value (the modulus, a real number, for complex x)."""
    return abs_p.bind(x)


def add(x: Array, y: Array) -> Array:
    r"""Elementwise addition: :math:`x + y`.

    >>> import numjax.numpy as jnp
    >>> add(jnp.float32(1), jnp.float32(2))
    Array(3., dtype=float32)
    """
    return add_p.bind(x, y)


def sub(x: Array, y: Array) -> Array:
    """Elementwise difference x - y."""
    return sub_p.bind(x, y)


def mul(x: Array, y: Array) -> Array:
    """Elementwise product x * y."""
    return mul_p.bind(x, y)


def div(x: Array, y: Array) -> Array:
    """Elementwise quotient x / y; integer division rounds toward zero."""
    return div_p.bind(x, y)


def rem(x: Array, y: Array) -> Array:
    """Elementwise remainder of x / y with the sign of x (C's fmod)."""
    return rem_p.bind(x, y)


def max(x: Array, y: Array) -> Array:
    """Elementwise maximum of x and y; a NaN operand gives NaN."""
    return max_p.bind(x, y)


def min(x: Array, y: Array) -> Array:
    """Elementwise minimum of x and y; a NaN operand gives NaN."""
    return min_p.bind(x, y)


def pow(x: Array, y: Array) -> Array:
    """Elementwise power x ** y (a float or complex x; y of x's dtype or an integer)."""
    return pow_p.bind(x, y)


def nextafter(x1: Array, x2: Array) -> Array:
    """Elementwise next float after x1 in the direction of x2."""
    return nextafter_p.bind(x1, x2)


def atan2(x: Array, y: Array) -> Array:
    """Elementwise angle of the point (y, x): arctan(x / y) in the quadrant of the signs."""
    return atan2_p.bind(x, y)


def exp(x: Array) -> Array:
    """Elementwise exponential, e ** x."""
    return exp_p.bind(x)


def exp2(x: Array) -> Array:
    """Elementwise base-2 exponential, 2 ** x."""
    return exp2_p.bind(x)


def log(x: Array) -> Array:
    """Elementwise natural logarithm."""
    return log_p.bind(x)


def log1p(x: Array) -> Array:
    """Elementwise log(1 + x), accurate for x near zero."""
    return log1p_p.bind(x)


def expm1(x: Array) -> Array:
    """Elementwise exp(x) - 1, accurate for x near zero."""
    return expm1_p.bind(x)


def tanh(x: Array) -> Array:
    """Elementwise hyperbolic tangent."""
    return tanh_p.bind(x)


def logistic(x: Array) -> Array:
    """Elementwise logistic sigmoid, 1 / (1 + exp(-x))."""
    return logistic_p.bind(x)


def sin(x: Array) -> Array:
    """Elementwise sine.

    >>> import numjax.numpy as jnp
    >>> sin(jnp.float32(0))
    Array(0., dtype=float32)
    """
    return sin_p.bind(x)


def cos(x: Array) -> Array:
    """Elementwise cosine."""
    return cos_p.bind(x)


def tan(x: Array) -> Array:
    """Elementwise tangent."""
    return tan_p.bind(x)


def asin(x: Array) -> Array:
    """Elementwise inverse sine, in radians."""
    return asin_p.bind(x)


def acos(x: Array) -> Array:
    """Elementwise inverse cosine, in radians."""
    return acos_p.bind(x)


def atan(x: Array) -> Array:
    """Elementwise inverse tangent, in radians."""
    return atan_p.bind(x)


def sinh(x: Array) -> Array:
    """Elementwise hyperbolic sine."""
    return sinh_p.bind(x)


def cosh(x: Array) -> Array:
    """Elementwise hyperbolic cosine."""
    return cosh_p.bind(x)


def asinh(x: Array) -> Array:
    """Elementwise inverse hyperbolic sine."""
    return asinh_p.bind(x)


def acosh(x: Array) -> Array:
    """Elementwise inverse hyperbolic cosine."""
    return acosh_p.bind(x)


def atanh(x: Array) -> Array:
    """Elementwise inverse hyperbolic tangent."""
    return atanh_p.bind(x)


def sqrt(x: Array) -> Array:
    """Elementwise square root."""
    return sqrt_p.bind(x)


def rsqrt(x: Array) -> Array:
    """Elementwise reciprocal square root, 1 / sqrt(x)."""
    return rsqrt_p.bind(x)


def cbrt(x: Array) -> Array:
    """Elementwise real cube root."""
    return cbrt_p.bind(x)


def square(x: Array) -> Array:
    """`x * x`: `integer_pow(x, 2)`, as JAX 0.4.30 stages it (a `square` primitive came later;
    libraries that walk jaxprs, such as distrax's bijector inversion, know `integer_pow`)."""
    return integer_pow(x, 2)


def eq(x: Array, y: Array) -> Array:
    """Elementwise x == y, as booleans (typed PRNG keys compare too)."""
    if _is_key(x) or _is_key(y):
        return _compare_keys("eq", x, y)
    return eq_p.bind(x, y)


def ne(x: Array, y: Array) -> Array:
    """Elementwise x != y, as booleans (typed PRNG keys compare too)."""
    if _is_key(x) or _is_key(y):
        return _compare_keys("ne", x, y)
    return ne_p.bind(x, y)


def _is_key(x: Any) -> bool:
    """A typed PRNG key array: its own type (defined above lax), of an extended dtype."""
    return (type(x) is not ArrayImpl and not isinstance(x, Tracer)
            and isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType))


def _compare_keys(name: str, x: Any, y: Any) -> Any:
    """JAX compares keys of one implementation by their data (the whole key equal or not);
    a key and a value of another dtype fail when XLA verifies the program."""
    if not (_is_key(x) and _is_key(y) and x.dtype == y.dtype):
        a, b = (getattr(v, "dtype", type(v).__name__) for v in (x, y))
        raise ValueError(f"Cannot lower jaxpr with verifier errors:\n\t'{name}' compares "
                         f"{a} with {b}: keys compare only with keys of their implementation")
    return x == y if name == "eq" else x != y


def lt(x: Array, y: Array) -> Array:
    """Elementwise x < y, as booleans."""
    return lt_p.bind(x, y)


def le(x: Array, y: Array) -> Array:
    """Elementwise x <= y, as booleans."""
    return le_p.bind(x, y)


def gt(x: Array, y: Array) -> Array:
    """Elementwise x > y, as booleans."""
    return gt_p.bind(x, y)


def ge(x: Array, y: Array) -> Array:
    """Elementwise x >= y, as booleans."""
    return ge_p.bind(x, y)


def bitwise_not(x: Array) -> Array:
    """Elementwise bitwise NOT of integers (logical NOT of booleans)."""
    return not_p.bind(x)


def bitwise_and(x: Array, y: Array) -> Array:
    """Elementwise bitwise AND of integers (logical AND of booleans)."""
    return and_p.bind(x, y)


def bitwise_or(x: Array, y: Array) -> Array:
    """Elementwise bitwise OR of integers (logical OR of booleans)."""
    return or_p.bind(x, y)


def bitwise_xor(x: Array, y: Array) -> Array:
    """Elementwise bitwise XOR of integers (logical XOR of booleans)."""
    return xor_p.bind(x, y)


def shift_left(x: Array, y: Array) -> Array:
    """Elementwise left shift of integer x by y bits."""
    return shift_left_p.bind(x, y)


def shift_right_arithmetic(x: Array, y: Array) -> Array:
    """Elementwise right shift of integer x by y bits, copying the sign bit in."""
    return shift_right_arithmetic_p.bind(x, y)


def shift_right_logical(x: Array, y: Array) -> Array:
    """Elementwise right shift of integer x by y bits, shifting zeros in."""
    return shift_right_logical_p.bind(x, y)


# ---- transpose rules of the linear ones ----------------------------------------------------


def _unbroadcast(ct: Any, x: Any) -> Any:
    if type(ct) is ad.Zero:
        return ad.Zero(x.aval)
    return unbroadcast_to(ct, x.aval)


def _add_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    return [_unbroadcast(ct, x) if ad.is_undefined_primal(x) else None,
            _unbroadcast(ct, y) if ad.is_undefined_primal(y) else None]


def _sub_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    neg_ct = ct if type(ct) is ad.Zero else neg(ct)
    return [_unbroadcast(ct, x) if ad.is_undefined_primal(x) else None,
            _unbroadcast(neg_ct, y) if ad.is_undefined_primal(y) else None]


def _mul_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    if ad.is_undefined_primal(x) and ad.is_undefined_primal(y):
        raise ValueError("mul is bilinear, not linear: cannot transpose with both operands "
                         "linear")
    if ad.is_undefined_primal(x):
        return [_unbroadcast(ct if type(ct) is ad.Zero else mul(ct, y), x), None]
    return [None, _unbroadcast(ct if type(ct) is ad.Zero else mul(x, ct), y)]


def _div_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    if ad.is_undefined_primal(y):
        raise ValueError("div is not linear in its divisor")
    return [_unbroadcast(ct if type(ct) is ad.Zero else div(ct, y), x), None]


add_p.def_transpose(_add_transpose)
sub_p.def_transpose(_sub_transpose)
mul_p.def_transpose(_mul_transpose)
div_p.def_transpose(_div_transpose)
neg_p.def_transpose(lambda ct, x: [ct if type(ct) is ad.Zero else neg(ct)])


# ---- compile-time rewrites of log ----------------------------------------------------------
# XLA's algebraic simplifier rewrites the log of exp, sqrt, rsqrt and pow, so jit can change
# results (JAX's FAQ, "jit changes the exact numerics of outputs"): under jit
# jnp.log(jnp.exp(100.)) is 100. rather than inf, and jnp.log(jnp.sqrt(jnp.pi)) is 0.5 * log(pi),
# 0.5723649 rather than 0.572365. Eager operations keep the plain composition.


def _log_rewrite(eqn: Any, producer: passes.Producer) -> Any:
    src = producer(eqn.invars[0])
    if src is None:
        return None
    out = eqn.outvars[0]
    aval = out.aval
    a = src.invars[0]
    if src.primitive is exp_p:
        return a  # log(exp(a)) -> a
    if src.primitive is exp2_p:
        # exp2(a) is compiled as exp(a * ln 2), whose log is a * ln 2.
        return [passes.new_eqn(mul_p, [a, _literal(np.log(2), aval)], aval, outvar=out)]
    real = not dtypes.issubdtype(aval.dtype, np.complexfloating)
    if src.primitive in (sqrt_p, rsqrt_p) and real:
        # log(sqrt(a)) -> 0.5 * log(a); log(rsqrt(a)) -> -0.5 * log(a)
        log_a = passes.new_eqn(log_p, [a], aval)
        half = 0.5 if src.primitive is sqrt_p else -0.5
        return [log_a, passes.new_eqn(mul_p, [log_a.outvars[0], _literal(half, aval)], aval,
                                      outvar=out)]
    if src.primitive is pow_p:
        # log(pow(a, b)) -> b * log(|a|) (b * log(a) for complex a), and 0 where b == 0.
        b = src.invars[1]
        if isinstance(b, Literal) and np.isrealobj(b.val) and b.val in (1, 2, 3, -1):
            return None  # the compiler has made these powers products (or 1 / a) first
        b_aval = b.aval
        steps = []
        if real:
            steps.append(passes.new_eqn(abs_p, [a], a.aval))
            a = steps[-1].outvars[0]
        steps.append(passes.new_eqn(log_p, [a], a.aval))
        steps.append(passes.new_eqn(mul_p, [b, steps[-1].outvars[0]], aval))
        product = steps[-1].outvars[0]
        steps.append(passes.new_eqn(eq_p, [b, _literal(0, b_aval)],
                                    ShapedArray(b_aval.shape, np.dtype(bool))))
        steps.append(passes.new_eqn(select_n_p, [steps[-1].outvars[0], product,
                                                 _literal(0, aval)], aval, outvar=out))
        return steps
    return None


# XLA's simplifier also makes a division by a constant a multiplication by its reciprocal
# (computed in the element type) for float16/32/64 and complex64/128: under jit x / 10. is
# x * 0.1f, so jnp.round(x, 1) of 3.14 is 3.1000001 (eager division gives 3.0999999), and
# (inf + inf j) / 2 is (inf + inf j) * (0.5 + 0j) = nan + nan j (eagerly inf + inf j). A
# complex reciprocal is NumPy's (equal to XLA's folded one on 200 random complex64 values).
_RECIPROCAL_DTYPES = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64,
                                                      np.complex64, np.complex128))


def _div_rewrite(eqn: Any, producer: passes.Producer) -> Any:
    a, b = eqn.invars
    out = eqn.outvars[0]
    if (out.aval.dtype not in _RECIPROCAL_DTYPES or producer.is_constant(a)
            or not producer.is_constant(b)):
        return None
    if isinstance(b, Literal):
        with np.errstate(divide="ignore", over="ignore"):
            recip = np.reciprocal(np.asarray(b.val, b.aval.dtype))
        return [passes.new_eqn(mul_p, [a, Literal(recip[()], b.aval)], out.aval, outvar=out)]
    one = _literal(1, ShapedArray((), b.aval.dtype))
    recip_eqn = passes.new_eqn(div_p, [one, b], b.aval)
    return [recip_eqn, passes.new_eqn(mul_p, [a, recip_eqn.outvars[0]], out.aval, outvar=out)]


def _literal(value: Any, aval: ShapedArray) -> Literal:
    return Literal(np.asarray(value, aval.dtype)[()], ShapedArray((), aval.dtype))


# XLA's simplifier drops an operation with a neutral constant operand: under jit `x * 1`,
# `1 * x` and `x / 1` are x, and so are `x + 0` and `0 + x`. Where IEEE arithmetic would
# change x, JAX's jitted results keep it: (inf + 0j) * 1 is inf + 0j (eagerly inf + nan j, as
# inf * 0 is NaN), `-0.0 + 0` is -0.0 (eagerly +0.0); `x * ones` is x broadcast. The
# operation stays where it changes x's weak type.
def _neutral_operand(neutral: int, sides: tuple[int, ...]) -> Callable[[Any, passes.Producer], Any]:
    def rule(eqn: Any, producer: passes.Producer) -> Any:
        out = eqn.outvars[0]
        for k in sides:
            c, x = eqn.invars[k], eqn.invars[1 - k]
            if (x.aval.dtype != out.aval.dtype or x.aval.weak_type != out.aval.weak_type
                    or not producer.is_constant(c)
                    or not np.all(np.asarray(producer.value(c)) == neutral)):
                continue
            if x.aval.shape == out.aval.shape:
                return x
            ndim = len(out.aval.shape)
            dims = tuple(range(ndim - len(x.aval.shape), ndim))
            return [passes.new_eqn(broadcast_in_dim_p, [x], out.aval, {
                "shape": tuple(out.aval.shape), "broadcast_dimensions": dims}, outvar=out)]
        return None

    return rule


# XLA's simplifier makes a product with a converted boolean a select: under jit
# `x * b.astype(jnp.float32)` is `select(b, x, 0)`, so inf * False is 0 and -2.0 * False is
# +0.0 (JAX 0.4.30; eagerly, where the conversion is a computation of its own, NaN and -0.0).
# A boolean broadcast first is left a product, as XLA leaves it. jnp.multiply by a boolean
# selects itself (the conversion is inside JAX's compiled jnp.multiply).
def _boolean_factor(eqn: Any, producer: passes.Producer) -> Any:
    out = eqn.outvars[0]
    for k in (0, 1):
        src, x = producer(eqn.invars[k]), eqn.invars[1 - k]
        if (src is None or src.primitive is not convert_element_type_p
                or src.invars[0].aval.dtype != np.dtype(bool)
                or src.invars[0].aval.shape != out.aval.shape
                or x.aval.shape not in ((), out.aval.shape) or x.aval.dtype != out.aval.dtype):
            continue
        return [passes.new_eqn(select_n_p, [src.invars[0], _literal(0, out.aval), x],
                               out.aval, outvar=out)]
    return None


mul_p.def_rewrite(_neutral_operand(1, (0, 1)))
mul_p.def_rewrite(_boolean_factor)
div_p.def_rewrite(_neutral_operand(1, (1,)))
add_p.def_rewrite(_neutral_operand(0, (0, 1)))
log_p.def_rewrite(_log_rewrite)
div_p.def_rewrite(_div_rewrite)


# XLA lowers integer_pow to products; x ** 2 is one product, so the program computes
# mul(x, x), the same values for every dtype (one rounding, as the kernel's). The program's
# text then reads as x * x's, as JAX's HLO of `x ** 2`, `x * x` and `jnp.square(x)` is one
# `multiply(x, x)` (optax compares those texts).
def _square_as_product(eqn: Any, producer: passes.Producer) -> Any:
    if eqn.params["y"] != 2:
        return None
    (x,) = eqn.invars
    out = eqn.outvars[0]
    return [passes.new_eqn(mul_p, [x, x], out.aval, outvar=out)]


integer_pow_p.def_rewrite(_square_as_product)
