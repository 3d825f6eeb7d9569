"""Complex sin, cos, tan, sinh, cosh and tanh with XLA:CPU's special values, and log1p as
XLA:CPU computes it.

NumPy's complex kernels follow C99's special cases (sin(nan + 0j) is nan + 0j, sinh(inf + 0j)
is inf + 0j) and scale to avoid overflow. XLA evaluates plain formulas instead:

- sin/cos (JAX's own lowering): sin(a) cosh(b) + i cos(a) sinh(b) with
  sinh(b) = (expm1(b) - expm1(-b)) / 2 and cosh(b) = (expm1(b) + expm1(-b) + 2) / 2, then the
  part that carries sin(a) set to +0 where a == 0;
- sinh/cosh: exp(z + log(1/2)) -+ exp(-z + log(1/2)), with complex exp as
  exp(re) (cos(im) + i sin(im)) and the constant log(1/2) + 0j, so the exponents' imaginary
  parts are b + 0 and -b + 0;
- tan/tanh: XLA's kernels agree with C99 except at the cases written out below.

So any NaN or infinite part gives nan + nan j where C99 keeps a part (sin(inf + 0j)), and
cosh(b) overflows to inf once exp(|b|) does, where the true product may be finite
(sin(0.5 + 89.5j) in complex64 is inf + inf j in JAX, 1.8e38 + 3.2e38j in NumPy).

Each kernel keeps NumPy's result (and its rounding) where the formulas agree to rounding --
finite parts below the overflow threshold -- and evaluates XLA's formula only on the other
elements, found by one comparison pass. Signs of zero results follow XLA too (one in-place
`+ 0` or masked store). XLA's cancellation for small |Re z| in sinh/cosh (sinh(1e-10 + 0j)
is 0 there) is not copied: it is an accuracy loss, not a special value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# Above these magnitudes exp(x) (and expm1(x), exp(x + log(1/2))) may overflow to inf in XLA's
# formulas while NumPy's scaled kernels stay finite: such elements take the formula. Kept a
# little below log(finfo.max) (88.72 / 709.78), where both still agree to rounding.
_OVERFLOW = {np.dtype(np.complex64): 88.0, np.dtype(np.complex128): 709.0}


def _special(x: Any, exp_of_real: bool) -> Any:
    """Elements where the part whose exponential the formula takes (the real part, or with
    `exp_of_real` false the imaginary one) is beyond the overflow threshold or not finite, or
    the other part is not finite; None when there are none."""
    limit = _OVERFLOW[x.dtype]
    # Usually every part is small: one min and max of the contiguous parts (NaN fails both
    # comparisons) settles it (CPU time on 1M complex64: 0.18 ms, the masks 0.45 ms).
    parts = np.ascontiguousarray(x).view(x.real.dtype)
    if -limit < parts.min() and parts.max() < limit:
        return None
    part, other = (x.real, x.imag) if exp_of_real else (x.imag, x.real)
    special = ~(np.abs(part) < limit) | ~np.isfinite(other)
    return special if special.any() else None


def _compose(dtype: Any, re: Any, im: Any) -> Any:
    out = np.empty(np.shape(re), dtype)
    out.real, out.imag = re, im
    return out


def _sin_cos(x: Any, cosine: bool) -> Any:
    out = np.asarray(np.cos(x) if cosine else np.sin(x))
    if not out.size:
        return out
    with np.errstate(all="ignore"):
        special = _special(x, exp_of_real=False)
        if special is not None:
            a, b = x.real[special], x.imag[special]
            sn, cs = np.sin(a), np.cos(a)
            e1m, e2m = np.expm1(b), np.expm1(-b)
            half = np.asarray(0.5, a.dtype)
            snh, csh = (e1m - e2m) * half, (e1m + e2m + 2) * half
            if cosine:
                re, im = cs * csh, -sn * snh
                im = np.where(a == 0, 0, im)
            else:
                re, im = sn * csh, cs * snh
                re = np.where(a == 0, 0, re)
            out[special] = _compose(x.dtype, re, im)
    if cosine:
        # -sin(a) sinh(b) is +0 where a == 0 (XLA's select); NumPy keeps the product's sign.
        zero = x.real == 0
        if zero.any():
            out.imag[zero] = 0
    else:
        # sin(a) cosh(b) is -0 only for a = -0, which XLA's select makes +0.
        out.real += 0
    return out


def sin(x: Any) -> Any:
    """Complex sine, as XLA:CPU evaluates it (`sin(nan + 0j)` is `nan + nan j`)."""
    return _sin_cos(np.asarray(x), cosine=False)


def cos(x: Any) -> Any:
    """Complex cosine, as XLA:CPU evaluates it (`cos(inf + 0j)` is `nan + nan j`)."""
    return _sin_cos(np.asarray(x), cosine=True)


def _sinh_cosh(x: Any, hyperbolic_cosine: bool) -> Any:
    out = np.asarray(np.cosh(x) if hyperbolic_cosine else np.sinh(x))
    if not out.size:
        return out
    with np.errstate(all="ignore"):
        special = _special(x, exp_of_real=True)
        if special is not None:
            a, b = x.real[special], x.imag[special]
            log_half = np.asarray(np.log(0.5), a.dtype)
            zero = np.zeros((), a.dtype)
            # exp(z + log(1/2)) and exp(-z + log(1/2)), each as exp(re) (cos im + i sin im).
            m1, b1 = np.exp(a + log_half), b + zero
            m2, b2 = np.exp(-a + log_half), -b + zero
            re1, im1 = m1 * np.cos(b1), m1 * np.sin(b1)
            re2, im2 = m2 * np.cos(b2), m2 * np.sin(b2)
            if hyperbolic_cosine:
                out[special] = _compose(x.dtype, re1 + re2, im1 + im2)
            else:
                out[special] = _compose(x.dtype, re1 - re2, im1 - im2)
    # The formula's zero parts are differences of equal terms, so +0: sinh's parts where
    # a or b is zero, cosh's imaginary part. NumPy's products keep a sign there.
    if hyperbolic_cosine:
        out.imag += 0
    else:
        out += 0
    return out


def sinh(x: Any) -> Any:
    """Complex hyperbolic sine, as XLA:CPU evaluates it (`sinh(inf + 0j)` is `inf + nan j`)."""
    return _sinh_cosh(np.asarray(x), hyperbolic_cosine=False)


def cosh(x: Any) -> Any:
    """Complex hyperbolic cosine, as XLA:CPU evaluates it (`cosh(0 + inf j)` is
    `nan + nan j`)."""
    return _sinh_cosh(np.asarray(x), hyperbolic_cosine=True)


def _tanh_parts(x: Any, re: Any, im: Any, out: Any, swap: bool) -> Any:
    """XLA's tanh(re + i im) where it differs from C99's: nan + nan j for a zero `re` and a
    non-finite `im`; the imaginary part +0 where `im` is zero or both parts are infinite.
    With `swap`, `out` is tan(x) = -i tanh(i x): the result's parts are exchanged."""
    result_im = out.real if swap else out.imag
    zero_im = im == 0
    if zero_im.any():
        result_im[zero_im] = 0
    parts = np.ascontiguousarray(x).view(x.real.dtype)
    if np.isfinite(parts.min()) and np.isfinite(parts.max()):
        return out
    both_inf = np.isinf(re) & np.isinf(im)
    if both_inf.any():
        result_im[both_inf] = 0
    nan_case = (re == 0) & ~np.isfinite(im)
    if nan_case.any():
        out[nan_case] = complex(np.nan, np.nan)
    return out


def tanh(x: Any) -> Any:
    """Complex hyperbolic tangent, as XLA:CPU evaluates it (`tanh(0 + inf j)` is
    `nan + nan j`)."""
    x = np.asarray(x)
    out = np.asarray(np.tanh(x))
    return _tanh_parts(x, x.real, x.imag, out, swap=False) if out.size else out


def tan(x: Any) -> Any:
    """Complex tangent, as XLA:CPU evaluates it (`tan(inf + 0j)` is `nan + nan j`)."""
    x = np.asarray(x)
    out = np.asarray(np.tan(x))
    # tan(a + bi) = -i tanh(-b + ai): tanh's real part is -b (only compared with 0 and inf,
    # so b serves), its imaginary part a.
    return _tanh_parts(x, x.imag, x.real, out, swap=True) if out.size else out


def log1p(x: Any) -> Any:
    """log(1 + z) as XLA:CPU evaluates it, accurate for tiny |z| where NumPy's log(1 + z)
    loses the real part (log1p(1e-20 + 1e-10j) has real part 1.5e-20, not 0). The real part
    is log|1 + z| = log(m) + log1p((n / m)**2) / 2 with m, n the larger and smaller of
    |Re z + 1| and |Im z|, and log(m) taken as log1p(Re z) when Re z + 1 > |Im z| (else
    log1p(m - 1)); where that is NaN (a NaN, infinite or zero m) it is n, which gives XLA's
    0 at z = -1 and NaN or inf elsewhere. The imaginary part is atan2(Im z, Re z + 1). Within
    4 ulp of JAX's values (its log1p and atan2 are its own polynomials)."""
    re, im = x.real, x.imag
    one, half = np.ones((), re.dtype), np.asarray(0.5, re.dtype)
    with np.errstate(all="ignore"):
        re1 = re + one
        a, b = np.abs(re1), np.abs(im)
        big, small = np.maximum(a, b), np.minimum(a, b)  # NaN-propagating, as XLA's
        ratio = small / big
        real = np.log1p(np.where(re1 > b, re, big - one))
        real += half * np.log1p(ratio * ratio)
        real = np.where(np.isnan(real), small, real)
        return _compose(x.dtype, real, np.arctan2(im, re1))
