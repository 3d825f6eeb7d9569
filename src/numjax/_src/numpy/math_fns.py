"""The rest of jnp's elementwise functions: NaN-aware extrema, closeness tests, float
decomposition, integer gcd/lcm, sinc/i0, interpolation and angle unwrapping."""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.api.custom_derivatives import custom_jvp
from numjax._src.core.avals import get_aval
from numjax._src.lax import complex_ops, lax
from numjax._src.lax.constants import lax_const
from numjax._src.numpy import ufuncs
from numjax._src.numpy.complex_fns import iscomplexobj
from numjax._src.numpy.creation import asarray
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.reductions import _axes
from numjax._src.numpy.reductions import all as jnp_all
from numjax._src.numpy.shape import broadcast_arrays
from numjax._src.numpy.sorting import searchsorted
from numjax._src.numpy.ufuncs import _binary_jvp_args, _replace_posinf
from numjax._src.numpy.util import (
    check_arraylike,
    ensure_array,
    forwards_operands,
    is_key_array,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_dtypes_inexact,
)
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.typing import Array

_BOOL = np.dtype(bool)


def _where(c: Array, x: Array, y: Array) -> Array:
    return where(c, x, y)


def _is_float(dt: np.dtype) -> bool:
    return dt.kind in "fc" or dt == dtypes.bfloat16


def fmax(x1: Array, x2: Array, /) -> Array:
    """Elementwise maximum that ignores NaNs (NaN only where both are NaN).

    >>> import numjax.numpy as jnp
    >>> jnp.fmax(jnp.array([1., jnp.nan]), 0.)
    Array([1., 0.], dtype=float32)
    """
    x1, x2 = promote_args("greater", x1, x2)  # JAX's names its `x1 > x2`
    return _where(ufuncs.isnan(x1) | (x1 < x2), x2, x1) if _is_float(
        get_aval(x1).dtype) else lax.max(x1, x2)


def fmin(x1: Array, x2: Array, /) -> Array:
    """Elementwise minimum that ignores NaNs."""
    x1, x2 = promote_args("less", x1, x2)  # JAX's names its `x1 < x2`
    return _where(ufuncs.isnan(x1) | (x1 > x2), x2, x1) if _is_float(
        get_aval(x1).dtype) else lax.min(x1, x2)


def heaviside(x1: Array, x2: Array, /) -> Array:
    """0 for x1 < 0, x2 for x1 == 0, 1 for x1 > 0."""
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    # JAX's 0 and 1 are Python scalars (weak) when the promoted x1 is a weak 0-d value and
    # strong arrays otherwise, and they meet x2 in `where`: so the result is weak only when the
    # promoted operands are weak and x1 is 0-d (heaviside(int8(0), 0.5) is weak,
    # heaviside(int8 array, 0.5) is not).
    aval1 = get_aval(x1)
    weak = aval1.weak_type and aval1.ndim == 0
    x1 = lax._convert_element_type(x1, aval1.dtype, weak)
    x2 = lax._convert_element_type(x2, get_aval(x2).dtype, weak)
    zero = lax_const(x1, 0)
    return _where(lax.lt(x1, zero), lax.full_like(x1, 0),
                  _where(lax.gt(x1, zero), lax.full_like(x1, 1), x2))


def sinc(x: Array, /) -> Array:
    """sin(pi x) / (pi x), 1 at 0 (with the right derivatives there)."""
    (x,) = promote_args_inexact("sinc", x)
    zero = lax.eq(x, lax_const(x, 0))
    pi_x = lax.mul(lax_const(x, np.pi), x)
    safe = lax.select(zero, lax.full_like(x, 1), pi_x)
    return lax.select(zero, _sin_over_t_at_zero(0, pi_x), lax.div(lax.sin(safe), safe))


def _sin_over_t_at_zero_value(k: int, t: Array) -> Array:
    # sin(t) / t = sum_n (-1)^n t^(2n) / (2n + 1)!, so its k-th derivative at 0 is
    # (-1)^(k/2) / (k + 1) for even k and 0 for odd k.
    value = 0.0 if k % 2 else (-1.0) ** (k // 2) / (k + 1)
    return lax.full_like(t, value)


# The derivatives of sin(t) / t at t = 0 to any order (JAX's values: sinc's fourth derivative at
# 0 is pi^4 / 5), each the tangent of the one before.
_sin_over_t_at_zero = custom_jvp(_sin_over_t_at_zero_value, nondiff_argnums=(0,))
_sin_over_t_at_zero.defjvp(lambda k, primals, tangents: (
    _sin_over_t_at_zero(k, primals[0]),
    lax.mul(_sin_over_t_at_zero(k + 1, primals[0]), tangents[0])))


def i0(x: Array, /) -> Array:
    """Modified Bessel function of the first kind, order 0."""
    (x,) = promote_args_inexact("i0", x)
    if get_aval(x).dtype.kind == "c":
        raise ValueError("i0 does not support complex-valued inputs.")
    ax = lax.abs(x)
    return lax.mul(lax.exp(ax), lax.bessel_i0e(x))


@forwards_operands
def nan_to_num(x: Array, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
               neginf: Any = None) -> Array:
    """NaN to `nan`, +/-inf to `posinf`/`neginf` (the dtype's largest finite by default)."""
    check_arraylike("nan_to_num", x)
    x = ensure_array(x, "nan_to_num")
    dt = get_aval(x).dtype
    if dt.kind == "c":
        re = nan_to_num(complex_ops.real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(complex_ops.imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return lax.complex(re, im)
    if not _is_float(dt):
        return x  # as JAX's asarray(x): a Python int stays weakly typed
    info = dtypes.finfo(dt)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    x = lax._convert_element_type(x, dt, False)
    out = lax.select(ufuncs.isnan(x), lax.full_like(x, nan), x)
    out = lax.select(isposinf(out), lax.full_like(x, posinf), out)
    return lax.select(isneginf(out), lax.full_like(x, neginf), out)


def isposinf(x: Array, /) -> Array:
    return _isinf_sign("isposinf", x, np.inf)


def isneginf(x: Array, /) -> Array:
    return _isinf_sign("isneginf", x, -np.inf)


def _isinf_sign(name: str, x: Array, value: float) -> Array:
    if type(x) is not ArrayImpl:
        dtypes.dtype(x)  # JAX reads it first: "Cannot determine dtype of <O>"
    (x,) = promote_args(name, x)
    dt = get_aval(x).dtype
    if dt.kind == "c":
        raise ValueError(f"jnp.{name} is not well defined for complex-valued inputs")
    if not _is_float(dt):
        return lax.full_like(x, False, _BOOL)
    # JAX compares with a NumPy constant of x's dtype: the result is never weak.
    return lax.eq(x, lax._convert_element_type(value, dt, False))


def isclose(a: Array, b: Array, rtol: Any = 1e-05, atol: Any = 1e-08,
            equal_nan: bool = False) -> Array:
    """|a - b| <= atol + rtol * |b|, infinities equal only to themselves.

    >>> import numjax.numpy as jnp
    >>> jnp.isclose(jnp.array([1.0, 1.1]), 1.0)
    Array([ True, False], dtype=bool)
    """
    if is_key_array(a) or is_key_array(b):
        # Keys are close when equal, as in JAX, which refuses other mixes under its own name.
        da, db = (str(x.dtype) if is_key_array(x) else str(dtypes.dtype(x, canonicalize=True))
                  for x in (a, b))
        if da != db:
            raise TypeError(f"isclose does not accept dtypes {da}, {db}.")
        return ufuncs.equal(a, b)
    a, b = promote_args("isclose", a, b)
    # Booleans and integers are compared as floats, as in JAX 0.4.30: isclose(10**8, 10**8 + 1)
    # is True in float32, and the result is strong whatever the inputs' weak types.
    a, b = promote_args_inexact("isclose", a, b)
    dt = get_aval(a).dtype
    if dt.kind == "c":
        rdt = dtypes.to_inexact_dtype(np.dtype(f"f{dt.itemsize // 2}"))
    else:
        rdt = dt
    rtol = lax._convert_element_type(rtol, rdt)
    atol = lax._convert_element_type(atol, rdt)
    out = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    if dt.kind == "c":
        a_inf, b_inf = ufuncs.isinf(a), ufuncs.isinf(b)
        out = lax.select(a_inf | b_inf, a_inf & b_inf & lax.eq(a, b), out)
    else:
        a_inf, b_inf = ufuncs.isinf(a), ufuncs.isinf(b)
        out = lax.select(a_inf | b_inf, lax.eq(a, b), out)
    if equal_nan:
        out = out | (ufuncs.isnan(a) & ufuncs.isnan(b))
    return out


def allclose(a: Array, b: Array, rtol: Any = 1e-05, atol: Any = 1e-08,
             equal_nan: bool = False) -> Array:
    check_arraylike("allclose", a, b)
    return jnp_all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: Array, a2: Array, equal_nan: bool = False) -> Array:
    """Same shape and elements (a Python-bool False when the shapes differ)."""
    a1, a2 = asarray(a1), asarray(a2)
    if get_aval(a1).shape != get_aval(a2).shape:
        return lax._convert_element_type(False, _BOOL)
    eq = ufuncs.equal(a1, a2)
    if equal_nan:
        eq = eq | (ufuncs.isnan(a1) & ufuncs.isnan(a2))
    return jnp_all(eq)


def array_equiv(a1: Array, a2: Array) -> Array:
    """Equal after broadcasting (False when the shapes do not broadcast)."""
    a1, a2 = asarray(a1), asarray(a2)
    try:
        np.broadcast_shapes(get_aval(a1).shape, get_aval(a2).shape)
    except ValueError:
        return lax._convert_element_type(False, _BOOL)
    return jnp_all(ufuncs.equal(a1, a2))


def isreal(x: Array, /) -> Array:
    x = ensure_array(x, "imag")  # JAX's isreal reads the imaginary part first
    aval = get_aval(x)
    if aval.dtype.kind == "c":
        out = lax.eq(complex_ops.imag(x), lax._convert_element_type(0, complex_ops.imag(
            x).dtype))
    else:
        out = lax.full_like(x, True, _BOOL)
    # JAX compares imag(x), weak when `x` is, with a `lax._const` of its type: weak only for a
    # weak scalar.
    return lax._convert_element_type(out, _BOOL, aval.weak_type and aval.ndim == 0)


def iscomplex(x: Array, /) -> Array:
    return lax.bitwise_not(isreal(ensure_array(x, "imag")))  # JAX's reads the imaginary part


def isrealobj(x: Any) -> bool:
    return not iscomplexobj(x)


def angle(z: Array, deg: bool = False) -> Array:
    """The argument of complex `z` (radians, or degrees with `deg`). As JAX's: integers,
    booleans and 0-d real floats are first converted to the default float type (float32, or
    float64 with x64), which makes the result strong; other real arrays keep their dtype and
    weak type."""
    z = ensure_array(z, "real")  # JAX's angle takes the real part first
    dt = get_aval(z).dtype
    if dt.kind == "c":
        re, im = complex_ops.real(z), complex_ops.imag(z)
    else:
        re = z
        if not dtypes.issubdtype(dt, np.inexact) or get_aval(z).ndim == 0:
            re = lax.convert_element_type(re, dtypes.canonicalize_dtype(np.float64))
        im = lax.full_like(re, 0)
    out = lax.atan2(im, re)
    return ufuncs.rad2deg(out) if deg else out


def ldexp(x1: Array, x2: Array, /) -> Array:
    """x1 * 2**x2 for integer x2."""
    check_arraylike("ldexp", x1, x2)
    x1_dtype = dtypes.dtype(x1, canonicalize=True)
    x2_dtype = dtypes.dtype(x2, canonicalize=True)
    if x1_dtype.kind == "c" or x2_dtype.kind not in "iub":
        raise ValueError(f"ldexp not supported for input types {(x1_dtype, x2_dtype)}")
    (x1,) = promote_args_inexact("ldexp", x1)
    x2 = ensure_array(x2, "ldexp")
    return ufuncs.multiply(x1, lax.exp2(lax.convert_element_type(x2, get_aval(x1).dtype)))


def frexp(x: Array, /) -> tuple[Array, Array]:
    """Mantissa in [0.5, 1) and integer exponent with x = m * 2**e."""
    (x,) = promote_args_inexact("frexp", x)
    dt = get_aval(x).dtype
    if dt.kind == "c":
        raise TypeError("frexp does not support complex-valued inputs")
    ax = lax.abs(x)
    special = (lax.eq(x, lax_const(x, 0)) | ufuncs.isinf(x) | ufuncs.isnan(x))
    safe = lax.select(special, lax.full_like(x, 1), ax)
    idt = dtypes.default_int_dtype()
    # floor(log2|x|) + 1, corrected by one step each way for rounding in log2.
    e = lax.add(lax.floor(ufuncs.log2(safe)), lax_const(safe, 1))
    m = lax.div(x, lax.exp2(e))
    am = lax.abs(m)
    too_big = lax.ge(am, lax_const(x, 1))
    e = lax.select(too_big, lax.add(e, lax_const(e, 1)), e)
    too_small = lax.lt(lax.abs(lax.div(x, lax.exp2(e))), lax_const(x, 0.5))
    e = lax.select(too_small & lax.bitwise_not(special), lax.sub(e, lax_const(e, 1)), e)
    # JAX reads the mantissa off the bits: no derivative flows through it, except where x
    # itself is returned (0, inf, nan).
    m = lax.div(lax.stop_gradient(x), lax.exp2(e))
    m = lax.select(special, x, m)
    e = lax.select(special, lax.full_like(e, 0), e)
    return m, lax.convert_element_type(e, idt)


def modf(x: Array, /, out: None = None) -> tuple[Array, Array]:
    """Fractional and integral parts, both with the sign of x."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    (x,) = promote_args_inexact("modf", x)
    whole = ufuncs.trunc(x)
    return lax.sub(x, whole), whole


def divmod(x1: Array, x2: Array, /) -> tuple[Array, Array]:
    """(x1 // x2, x1 % x2)."""
    try:
        return ufuncs.floor_divide(x1, x2), ufuncs.remainder(x1, x2)
    except TypeError:
        check_arraylike("divmod", x1, x2)
        raise


def _int_args(name: str, x1: Array, x2: Array) -> list[Array]:
    # As JAX: plain promotion (two booleans stay boolean, and are refused).
    x1, x2 = promote_args(name, x1, x2)
    if get_aval(x1).dtype.kind not in "iu":
        raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")
    return [x1, x2]


def _strong_unless_scalar(x: Array) -> Array:
    """`x` strongly typed unless it is 0-d: JAX's gcd and lcm mix in the constant 0, a Python
    scalar beside a weak 0-d value but a strong array otherwise, so only a 0-d result of weak
    operands stays weak (gcd(2, 3) is weak, gcd(2, bool array) is not)."""
    aval = get_aval(x)
    if aval.weak_type and aval.ndim:
        return lax._convert_element_type(x, aval.dtype, False)
    return x


def gcd(x1: Array, x2: Array, /) -> Array:
    """Greatest common divisor (Euclid's algorithm, a fixed number of steps)."""
    x1, x2 = _int_args("gcd", x1, x2)
    a, b = broadcast_arrays(lax.abs(x1) if get_aval(x1).dtype.kind == "i" else x1,
                            lax.abs(x2) if get_aval(x2).dtype.kind == "i" else x2)
    a, b = _strong_unless_scalar(a), _strong_unless_scalar(b)
    zero = lax_const(a, 0)
    # Each two steps at least halve the smaller value: 2 * bits steps always finish.
    for _ in range(2 * get_aval(a).dtype.itemsize * 8):
        nz = lax.ne(b, zero)
        safe_b = lax.select(nz, b, lax.full_like(b, 1))
        a, b = lax.select(nz, b, a), lax.select(nz, lax.rem(a, safe_b), b)
    return a


def lcm(x1: Array, x2: Array, /) -> Array:
    """Least common multiple."""
    x1, x2 = _int_args("lcm", x1, x2)
    d = gcd(x1, x2)
    zero = lax_const(d, 0)
    safe = lax.select(lax.eq(d, zero), lax.full_like(d, 1), d)
    ax1 = lax.abs(x1) if get_aval(x1).dtype.kind == "i" else x1
    ax2 = lax.abs(x2) if get_aval(x2).dtype.kind == "i" else x2
    out = _strong_unless_scalar(ufuncs.multiply(ufuncs.floor_divide(ax1, safe), ax2))
    return lax.select(lax.eq(d, zero), lax.full_like(out, 0), out)


def float_power(x1: Array, x2: Array, /) -> Array:
    """x1 ** x2 in the operands' promoted inexact dtype. Unlike NumPy's, JAX's float_power
    does not widen to float64: float16 stays float16, integers give float32.

    >>> import numjax.numpy as jnp
    >>> float_power(jnp.array([2, 3]), 2)
    Array([4., 9.], dtype=float32)
    """
    check_arraylike("float_power", x1, x2)
    return lax.pow(*promote_args_inexact("float_power", x1, x2))


@custom_jvp
@transfer_guard.entry_point
def logaddexp2(x1: Array, x2: Array, /) -> Array:
    """log2(2**x1 + 2**x2) without overflow; its derivative is JAX's custom rule
    (2**(x - out) for each operand).

    >>> import numjax.numpy as jnp
    >>> logaddexp2(jnp.float32(1), jnp.float32(1))
    Array(2., dtype=float32)
    """
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    # JAX's result is never weakly typed (it is a custom_jvp function of its operands).
    x1 = lax._convert_element_type(x1, get_aval(x1).dtype, False)
    return ufuncs._log_add_exp2(x1, x2)


@logaddexp2.defjvp
def _logaddexp2_jvp(primals: Any, tangents: Any) -> tuple[Array, Array]:
    x1, x2, t1, t2 = _binary_jvp_args("logaddexp2_jvp", primals, tangents)
    out = logaddexp2(x1, x2)
    out_ = _replace_posinf(out)
    return out, lax.add(lax.mul(t1, lax.exp2(lax.sub(_replace_posinf(x1), out_))),
                        lax.mul(t2, lax.exp2(lax.sub(_replace_posinf(x2), out_))))


def fix(x: Array, out: None = None) -> Array:
    """Round toward zero."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.fix is not supported.")
    check_arraylike("fix", x)
    return ufuncs.trunc(x)


def bitwise_count(x: Array, /) -> Array:
    """The number of 1 bits in |x|."""
    (x,) = promote_args_numeric("bitwise_count", x)
    dt = get_aval(x).dtype
    if dt.kind not in "iub":
        raise TypeError(f"bitwise_count requires integer arguments, got {dt.name}")
    if dt == _BOOL:
        x = lax.convert_element_type(x, np.uint8)
    elif dt.kind == "i":
        x = lax.abs(x)
    return lax.convert_element_type(lax.population_count(x), np.uint8)


def unwrap(p: Array, discont: Any = None, axis: int = -1, period: Any = 2 * np.pi) -> Array:
    """Undo jumps larger than `discont` along `axis` by adding multiples of `period`."""
    (p,) = promote_args_inexact("unwrap", p)
    ax = _axes(axis, get_aval(p).ndim)[0]
    n = get_aval(p).shape[ax]
    if n < 2:
        return p
    dd = lax.sub(lax.slice_in_dim(p, 1, n, axis=ax), lax.slice_in_dim(p, 0, n - 1, axis=ax))
    per = lax_const(p, period)
    half = lax.div(per, lax_const(p, 2))
    discont_v = half if discont is None else lax.max(lax_const(p, discont), half)
    ddmod = lax.sub(ufuncs.remainder(lax.add(dd, half), per), half)
    ddmod = _where(lax.eq(ddmod, lax.neg(half)) & lax.gt(dd, lax_const(p, 0)), half, ddmod)
    correct = lax.sub(ddmod, dd)
    correct = _where(lax.lt(lax.abs(dd), discont_v), lax.full_like(correct, 0), correct)
    cum = lax.cumsum(correct, ax)
    zero = lax.slice_in_dim(lax.full_like(p, 0), 0, 1, axis=ax)
    return lax.add(p, lax.concatenate([zero, cum], ax))


def interp(x: Array, xp: Array, fp: Array, left: Any = None, right: Any = None,
           period: Any = None) -> Array:
    """Piecewise-linear interpolation of (xp, fp) at x; xp must be increasing.

    >>> import numjax.numpy as jnp
    >>> jnp.interp(1.5, jnp.array([1., 2.]), jnp.array([10., 20.]))
    Array(15., dtype=float32)
    """
    check_arraylike("interp", x, xp, fp)
    xp, fp = ensure_array(xp, "interp"), ensure_array(fp, "interp")
    if get_aval(xp).ndim != 1 or get_aval(fp).ndim != 1 or \
            get_aval(xp).shape[0] != get_aval(fp).shape[0]:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    # As in JAX: x and xp promoted together, fp on its own; 'extrapolate' continues the end
    # segments' lines.
    x, xp = promote_dtypes_inexact(x, xp)
    (fp,) = promote_dtypes_inexact(fp)
    extrapolate = []
    for name, end in (("left", left), ("right", right)):
        if isinstance(end, str) and end != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', but "
                             f"got: {end!r}")
        extrapolate.append(isinstance(end, str))
    if get_aval(x).dtype.kind == "c":
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        per = ufuncs.abs(period)
        x = ufuncs.remainder(x, per)
        xp = ufuncs.remainder(xp, per)
        xp, fp = lax.sort_key_val(xp, fp)
        xp = lax.concatenate([ufuncs.subtract(xp[-1:], per), xp, ufuncs.add(xp[:1], per)], 0)
        fp = lax.concatenate([fp[-1:], fp, fp[:1]], 0)
    n = get_aval(xp).shape[0]
    i = searchsorted(xp, x, side="right")
    idt = get_aval(i).dtype
    i = lax.clamp(lax._convert_element_type(1, idt), i,
                  lax._convert_element_type(max(n - 1, 1), idt))
    df = ufuncs.subtract(fp[i], fp[i - 1])
    dx = ufuncs.subtract(xp[i], xp[i - 1])
    delta = ufuncs.subtract(x, xp[i - 1])
    # A segment narrower than this is a step: no division by it, so no NaN gradient.
    epsilon = np.spacing(np.finfo(get_aval(xp).dtype).eps)
    dx0 = lax.le(lax.abs(dx), lax._convert_element_type(epsilon, get_aval(dx).dtype))
    f = where(dx0, fp[i - 1],
              ufuncs.add(fp[i - 1], ufuncs.multiply(ufuncs.divide(delta, where(dx0, 1, dx)),
                                                    df)))
    if period is None and not extrapolate[0]:
        f = where(ufuncs.less(x, xp[0]), fp[0] if left is None else left, f)
    if period is None and not extrapolate[1]:
        f = where(ufuncs.greater(x, xp[-1]), fp[-1] if right is None else right, f)
    return f


transfer_guard.entry_points(globals())
