"""Special functions and bit-level elementwise primitives.

round, bitcast_convert_type, reduce_precision, population_count, clz, clamp; and the special
functions (erf family, gamma family, Bessel, polygamma, zeta) whose kernels are SciPy's,
imported inside the kernels so `import numjax` does not pay for SciPy. float16/bfloat16 are
computed in float32 and cast back (`upcast_kernel`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import cost, native_rules, native_structural
from numjax._src.compiler.lowering import ufunc_lowering
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive, operand_aval
from numjax._src.interpreters import ad, batching
from numjax._src.interpreters.batching import bdim_at_front, not_mapped
from numjax._src.lax import elementwise as ew
from numjax._src.lax import structural as st
from numjax._src.lax.constants import const_like
from numjax._src.lax.rules import (
    FLOAT,
    INT,
    NUMBER_NOT_COMPLEX,
    binary,
    check_dtype,
    elementwise_abstract_eval,
    elementwise_primitive,
    unary,
    upcast_kernel,
)
from numjax._src.typing import Array

__all__ = [
    "RoundingMethod", "betainc", "bessel_i0e", "bessel_i0e_p", "bessel_i1e", "bessel_i1e_p",
    "bitcast_convert_type", "bitcast_convert_type_p", "clamp", "clamp_p", "clz", "clz_p",
    "digamma", "digamma_p", "erf", "erf_inv", "erf_inv_p", "erf_p", "erfc", "erfc_p", "igamma",
    "igamma_grad_a", "igamma_grad_a_p", "igamma_p", "igammac", "igammac_p", "integer_pow_array",
    "lgamma", "lgamma_p", "polygamma", "polygamma_p", "population_count", "population_count_p",
    "random_gamma_grad", "random_gamma_grad_p", "reduce_precision", "reduce_precision_p",
    "regularized_incomplete_beta_p", "round", "round_p", "zeta", "zeta_p",
]


# ---- round ---------------------------------------------------------------------------------


class RoundingMethod(enum.IntEnum):
    """How `round` breaks ties: away from zero (C's `round`) or to the nearest even."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def _round_kernel(x: Any, *, rounding_method: int) -> Any:
    x = np.asarray(x)
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return np.round(x)
    half = np.asarray(0.5, x.dtype)
    return np.copysign(np.floor(np.abs(x) + half), x).astype(x.dtype)


round_p = Primitive("round")
round_p.def_impl(_round_kernel)
round_p.def_abstract_eval(elementwise_abstract_eval("round", [FLOAT]))
round_p.def_batch(batching.vectorized_batch(round_p))
round_p.def_lowering(ufunc_lowering(_round_kernel))
ad.defjvp_zero(round_p)


def round(x: Array, rounding_method: RoundingMethod | int = RoundingMethod.AWAY_FROM_ZERO
          ) -> Array:
    """Elementwise rounding to the nearest integer, ties broken by `rounding_method`.

    >>> import numjax.numpy as jnp
    >>> round(jnp.array([0.5, 2.5]), RoundingMethod.TO_NEAREST_EVEN)
    Array([0., 2.], dtype=float32)
    """
    return round_p.bind(x, rounding_method=RoundingMethod(int(rounding_method)))


# ---- bitcast_convert_type ------------------------------------------------------------------

bitcast_convert_type_p = Primitive("bitcast_convert_type")


def _bitcast_kernel(x: Any, *, new_dtype: np.dtype) -> Any:
    x = np.asarray(x)
    if not x.flags.c_contiguous:  # views need contiguous memory (ascontiguousarray makes 0-d 1-d)
        x = x.copy()
    old = x.dtype
    if old.itemsize == new_dtype.itemsize:
        return x.view(new_dtype)
    if old.itemsize > new_dtype.itemsize:
        return x.reshape(*x.shape, 1).view(new_dtype)
    return x.view(new_dtype).reshape(x.shape[:-1])


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract_eval(x: ShapedArray, *, new_dtype: np.dtype) -> ShapedArray:
    if x.dtype != new_dtype and any(d.kind in "bc" for d in (x.dtype, new_dtype)):
        raise TypeError("lax.bitcast_convert_type does not support bool or complex values "
                        "unless the operand and destination types match. Got operand "
                        f"dtype={x.dtype}, new_dtype={new_dtype!r}. Consider using the "
                        "arr.view() method instead.")
    old, new = x.dtype.itemsize, new_dtype.itemsize
    if old == new:
        return ShapedArray(x.shape, new_dtype)
    if old > new:
        return ShapedArray((*x.shape, old // new), new_dtype)
    if not x.shape or x.shape[-1] * old != new:
        last = x.shape[-1] if x.shape else 1
        raise ValueError(f"Attempting to convert array of shape {x.shape} from {x.dtype.name} "
                         f"of size {old} to {new_dtype.name} of size {new}, but {last} * "
                         f"{old} != {new}")
    return ShapedArray(x.shape[:-1], new_dtype)


def _bitcast_batch(args: Sequence[Any], dims: Sequence[Any], *,
                   new_dtype: np.dtype) -> tuple[Any, Any]:
    (x,), (d,) = args, dims
    # The last axis may grow or vanish, so keep the batch axis out of the way at the front.
    return bitcast_convert_type_p.bind(batching.moveaxis(x, d, 0), new_dtype=new_dtype), 0


bitcast_convert_type_p.def_impl(_bitcast_kernel)
bitcast_convert_type_p.def_batch(_bitcast_batch)
bitcast_convert_type_p.native = native_structural.bitcast_convert_type_rule
ad.defjvp_zero(bitcast_convert_type_p)


def bitcast_convert_type(operand: Array, new_dtype: Any) -> Array:
    """Reinterpret the bits of `operand` as `new_dtype` (a narrower type adds a last axis).

    >>> import numjax.numpy as jnp
    >>> bitcast_convert_type(jnp.float32(1.0), jnp.int32)
    Array(1065353216, dtype=int32)
    """
    return bitcast_convert_type_p.bind(operand, new_dtype=dtypes.canonicalize_dtype(new_dtype))


# ---- reduce_precision ----------------------------------------------------------------------

reduce_precision_p = Primitive("reduce_precision")


def _reduce_precision_bits(x: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    """Round float32/float64 `x` to a float with the given exponent and mantissa widths: round
    the mantissa to nearest even, then send exponents out of range to inf or (signed) zero."""
    info = np.finfo(x.dtype)
    src_mantissa, src_exponent = info.nmant, info.nexp
    uint = np.dtype(f"u{x.dtype.itemsize}")
    one = uint.type(1)
    bits = x.view(uint)
    if mantissa_bits < src_mantissa:
        shift = uint.type(src_mantissa - mantissa_bits)
        last_bit = one << shift
        bias = (last_bit >> one) - one + ((bits & last_bit) >> shift)
        bits = (bits + bias) & ~(last_bit - one)
    if exponent_bits < src_exponent:
        sign = one << uint.type(x.dtype.itemsize * 8 - 1)
        exp_mask = ((one << uint.type(src_exponent)) - one) << uint.type(src_mantissa)
        src_bias = (1 << (src_exponent - 1)) - 1
        new_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        overflow = exponent > uint.type(src_bias + new_bias) << uint.type(src_mantissa)
        underflow = exponent <= uint.type(src_bias - new_bias) << uint.type(src_mantissa)
        signed_zero = bits & sign
        bits = np.where(overflow, signed_zero | exp_mask, np.where(underflow, signed_zero, bits))
    out = np.asarray(bits, uint).view(x.dtype)
    return np.where(np.isnan(x), x, out)


def _reduce_precision_kernel(x: Any, *, exponent_bits: int, mantissa_bits: int) -> Any:
    return upcast_kernel(lambda v: _reduce_precision_bits(np.asarray(v), exponent_bits,
                                                          mantissa_bits))(x)


@reduce_precision_p.def_abstract_eval
def _reduce_precision_abstract_eval(x: ShapedArray, *, exponent_bits: int,
                                    mantissa_bits: int) -> ShapedArray:
    check_dtype("reduce_precision", x.dtype, FLOAT)
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got "
                         f"{exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got "
                         f"{mantissa_bits}")
    return x


reduce_precision_p.def_impl(_reduce_precision_kernel)
# As in JAX, the tangent is rounded the same way (the op is treated as linear).
ad.linear_jvp(reduce_precision_p)
reduce_precision_p.def_transpose(lambda ct, x, **params: [
    ad.Zero(x.aval) if type(ct) is ad.Zero else reduce_precision_p.bind(ct, **params)])
reduce_precision_p.def_batch(batching.vectorized_batch(reduce_precision_p))


def reduce_precision(operand: Array, exponent_bits: int, mantissa_bits: int) -> Array:
    """Round to the precision of a float with the given exponent and mantissa bits.

    >>> import numjax.numpy as jnp
    >>> reduce_precision(jnp.float32(1.0 + 2**-10), 8, 7)
    Array(1., dtype=float32)
    """
    return reduce_precision_p.bind(operand, exponent_bits=int(exponent_bits),
                                   mantissa_bits=int(mantissa_bits))


# ---- population_count / clz ----------------------------------------------------------------


def _unsigned(x: Any) -> Any:
    x = np.asarray(x)
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


# Set bits of each byte value, for NumPy without `bitwise_count` (before 2.0).
_BYTE_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.uint8)


def _popcount_kernel(x: Any) -> Any:
    x = np.asarray(x)
    u = _unsigned(x)
    if hasattr(np, "bitwise_count"):
        count = np.bitwise_count(u)
    else:  # per byte from a table, summed over each element's bytes
        shape = u.shape  # (np.ascontiguousarray makes a 0-d array 1-d)
        u = np.ascontiguousarray(u)
        count = _BYTE_POPCOUNT[u.view(np.uint8)].reshape(*shape, u.dtype.itemsize).sum(
            -1, dtype=np.uint8)
    return count.astype(x.dtype)


def _clz_kernel(x: Any) -> Any:
    x = np.asarray(x)
    u = _unsigned(x).copy()
    nbits = x.dtype.itemsize * 8
    # Smear the highest set bit into every lower position; the count of ones is then
    # nbits - clz.
    shift = 1
    while shift < nbits:
        u |= u >> u.dtype.type(shift)
        shift *= 2
    return (nbits - _popcount_kernel(u).astype(np.int64)).astype(x.dtype)


population_count_p = unary("population_count", _popcount_kernel, INT)
clz_p = unary("clz", _clz_kernel, INT)
ad.defjvp_zero(population_count_p)
ad.defjvp_zero(clz_p)


def population_count(x: Array) -> Array:
    """Elementwise number of set bits.

    >>> import numjax.numpy as jnp
    >>> population_count(jnp.array([-1, 7]))
    Array([32,  3], dtype=int32)
    """
    return population_count_p.bind(x)


def clz(x: Array) -> Array:
    """Elementwise count of leading zero bits.

    >>> import numjax.numpy as jnp
    >>> clz(jnp.array([-1, 7, 0]))
    Array([ 0, 29, 32], dtype=int32)
    """
    return clz_p.bind(x)


# ---- clamp ---------------------------------------------------------------------------------

clamp_p = Primitive("clamp")


def _clamp_kernel(lo: Any, x: Any, hi: Any) -> Any:
    return np.minimum(np.maximum(x, lo), hi)


@clamp_p.def_abstract_eval
def _clamp_abstract_eval(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> ShapedArray:
    for name, bound in (("min", lo), ("max", hi)):
        if bound.shape and bound.shape != x.shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or {name}.shape == "
                            f"(), got {name}.shape={bound.shape}, operand.shape={x.shape}.")
    check_dtype("clamp", x.dtype, NUMBER_NOT_COMPLEX)
    if lo.dtype != x.dtype or hi.dtype != x.dtype:
        raise TypeError("lax.clamp requires arguments to have the same dtypes, got "
                        f"{lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}.")
    # Weak only when all three are (JAX's rule for its standard primitives).
    return ShapedArray(x.shape, x.dtype, lo.weak_type and x.weak_type and hi.weak_type)


def _where(pred: Array, t: Array, like: Array) -> Array:
    """`t` where `pred` else 0, at the clamp's output shape (`like`)."""
    t = st.broadcast_to_operands(t, like)
    zeros = st.full_like(t, 0)
    return st.select(pred, t, zeros)


# Strict comparisons, as in JAX: at a tie between the operand and a bound neither gets the
# tangent.
ad.defjvp(clamp_p,
          lambda t, lo, x, hi: _where(ew.gt(lo, x), t, x),
          lambda t, lo, x, hi: _where(ew.bitwise_and(ew.gt(x, lo), ew.lt(x, hi)), t, x),
          lambda t, lo, x, hi: _where(ew.lt(hi, x), t, x))


def _clamp_batch(args: Sequence[Any], dims: Sequence[Any]) -> tuple[Any, Any]:
    lo, x, hi = args
    lo_d, x_d, hi_d = dims
    size = next(get_aval(a).shape[d] for a, d in zip(args, dims, strict=True)
                if d is not not_mapped)
    x = bdim_at_front(x, x_d, size)
    shape = get_aval(x).shape
    bounds = []
    for b, d in ((lo, lo_d), (hi, hi_d)):
        if d is not_mapped and get_aval(b).ndim == 0:
            bounds.append(b)
            continue
        b = bdim_at_front(b, d, size)
        bounds.append(st.broadcast_in_dim(b, shape, tuple(range(get_aval(b).ndim))))
    return clamp_p.bind(bounds[0], x, bounds[1]), 0


clamp_p.def_impl(_clamp_kernel)
clamp_p.def_batch(_clamp_batch)
clamp_p.native = native_rules.clamp_rule
clamp_p.def_lowering(ufunc_lowering(_clamp_kernel))


def clamp(min: Array, x: Array, max: Array) -> Array:
    """Elementwise `min(max(x, min), max)`; `min`/`max` are scalars or `x`'s shape.

    >>> import numjax.numpy as jnp
    >>> clamp(0.0, jnp.array([-1.0, 0.5, 2.0]), 1.0)
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    # Python-scalar bounds take the operand's dtype (they are weak in JAX).
    aval = operand_aval(x)
    if type(min) in (int, float):
        min = st._convert_element_type(min, aval.dtype, True)
    if type(max) in (int, float):
        max = st._convert_element_type(max, aval.dtype, True)
    return clamp_p.bind(min, x, max)


# ---- special functions ---------------------------------------------------------------------


def _scipy(name: str) -> Callable[..., Any]:
    def fn(*args: Any) -> Any:
        import scipy.special
        return getattr(scipy.special, name)(*args)

    fn.__name__ = name
    return upcast_kernel(fn)


def _special_unary(name: str, scipy_name: str) -> Primitive:
    return unary(name, _scipy(scipy_name), FLOAT)


def _special_binary(name: str, kernel: Callable[..., Any]) -> Primitive:
    return binary(name, kernel, FLOAT)


erf_p = _special_unary("erf", "erf")
erfc_p = _special_unary("erfc", "erfc")
erf_inv_p = _special_unary("erf_inv", "erfinv")
erf_p.cost = cost.transcendental  # as XLA's cost analysis counts it


def _lgamma_kernel(x: Any) -> Any:
    """log|Gamma(x)| with XLA's value at -inf: +inf (SciPy gives -inf there)."""
    import scipy.special

    out = np.asarray(scipy.special.gammaln(x))
    neg_inf = np.isneginf(x)
    return np.where(neg_inf, np.array(np.inf, out.dtype), out) if neg_inf.any() else out


lgamma_p = unary("lgamma", upcast_kernel(_lgamma_kernel), FLOAT)


def _digamma_kernel(x: Any) -> Any:
    """digamma with XLA's value at the poles: NaN at every non-positive integer, +-0 included
    (SciPy gives -inf/+inf at +-0)."""
    import scipy.special

    out = np.asarray(scipy.special.digamma(x))
    pole = (x <= 0) & (np.floor(x) == x)
    return np.where(pole, np.array(np.nan, out.dtype), out) if pole.any() else out


digamma_p = unary("digamma", upcast_kernel(_digamma_kernel), FLOAT)
bessel_i0e_p = _special_unary("bessel_i0e", "i0e")
bessel_i1e_p = _special_unary("bessel_i1e", "i1e")


def _igamma_kernel(a: Any, x: Any) -> Any:
    """P(a, x), with XLA's values off the domain: NaN for a <= 0, x < 0 or a = inf."""
    import scipy.special
    out = scipy.special.gammainc(a, x)
    return np.where((a <= 0) | (x < 0) | np.isposinf(a), np.nan, out)


def _igammac_kernel(a: Any, x: Any) -> Any:
    """Q(a, x), with XLA's values off the domain: 1 for a <= 0 or x < 0, NaN for a = inf."""
    import scipy.special
    out = scipy.special.gammaincc(a, x)
    out = np.where((a <= 0) | (x < 0), 1.0, out)
    return np.where(np.isnan(a) | np.isnan(x) | np.isposinf(a), np.nan, out)


igamma_p = _special_binary("igamma", upcast_kernel(_igamma_kernel))
igammac_p = _special_binary("igammac", upcast_kernel(_igammac_kernel))
zeta_p = _special_binary("zeta", _scipy("zeta"))


def _polygamma(m: Any, x: Any) -> Any:
    import scipy.special
    m = np.asarray(m)
    valid = (m >= 0) & (m == np.floor(m))
    out = scipy.special.polygamma(np.where(valid, m, 0).astype(np.int64), x)
    return np.where(valid, out, np.nan)


polygamma_p = _special_binary("polygamma", upcast_kernel(_polygamma))


def _igamma_grad_a(a: Any, x: Any) -> Any:
    """d/da of the regularized lower incomplete gamma P(a, x).

    SciPy has no kernel for it; this is a central difference in float64 with a step scaled to
    `a`, then Richardson-extrapolated (error ~1e-9 relative: float32-accurate, approximate in
    float64)."""
    import scipy.special
    a64, x64 = np.asarray(a, np.float64), np.asarray(x, np.float64)
    h = 1e-3 * np.maximum(np.abs(a64), 1e-2)
    h = np.minimum(h, 0.5 * a64)

    def diff(step: Any) -> Any:
        return (scipy.special.gammainc(a64 + step, x64)
                - scipy.special.gammainc(a64 - step, x64)) / (2 * step)

    out = (4 * diff(h / 2) - diff(h)) / 3
    out = np.where(x64 == 0, 0.0, out)
    return out.astype(np.result_type(np.asarray(a).dtype, np.asarray(x).dtype))


def _random_gamma_grad(a: Any, x: Any) -> Any:
    """d x / d a for x ~ Gamma(a) sampled by inverting the CDF: -(dP/da) / (dP/dx)."""
    import scipy.special
    a64, x64 = np.asarray(a, np.float64), np.asarray(x, np.float64)
    log_pdf = -x64 + (a64 - 1) * np.log(x64) - scipy.special.gammaln(a64)
    out = -_igamma_grad_a(a64, x64) / np.exp(log_pdf)
    out = np.where(x64 == 0, 0.0, out)
    return out.astype(np.result_type(np.asarray(a).dtype, np.asarray(x).dtype))


def _betainc_kernel(a: Any, b: Any, x: Any) -> Any:
    """I_x(a, b), with XLA's values off the domain: NaN unless a > 0, b > 0 and 0 <= x <= 1
    (SciPy extends it to a == 0 or b == 0)."""
    import scipy.special
    out = np.asarray(scipy.special.betainc(a, b, x))
    invalid = (a <= 0) | (b <= 0) | (x < 0) | (x > 1)
    return np.where(invalid, np.array(np.nan, out.dtype), out)


regularized_incomplete_beta_p = elementwise_primitive(
    "regularized_incomplete_beta", upcast_kernel(_betainc_kernel), [FLOAT, FLOAT, FLOAT])
igamma_grad_a_p = _special_binary("igamma_grad_a", upcast_kernel(_igamma_grad_a))
random_gamma_grad_p = _special_binary("random_gamma_grad", upcast_kernel(_random_gamma_grad))


def _igamma_dx(a: Array, x: Array) -> Array:
    # d/dx P(a, x) = x**(a-1) exp(-x) / Gamma(a), in logs for range.
    log_density = ew.sub(ew.sub(ew.mul(ew.sub(a, const_like(a, 1)), ew.log(x)), x), lgamma(a))
    return ew.exp(log_density)


def _betainc_not_differentiable(t: Array, a: Array, b: Array, x: Array) -> Array:
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_dx(t: Array, a: Array, b: Array, x: Array) -> Array:
    # d/dx I_x(a, b) = x**(a-1) (1-x)**(b-1) / B(a, b), the beta density, in logs for range;
    # log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b).
    one = const_like(a, 1)
    log_beta = ew.sub(ew.add(lgamma(a), lgamma(b)), lgamma(ew.add(a, b)))
    log_density = ew.sub(ew.add(ew.mul(ew.sub(b, one), ew.log1p(ew.neg(x))),
                                ew.mul(ew.sub(a, one), ew.log(x))), log_beta)
    return ew.mul(_bcast(t, a, b, x), ew.exp(log_density))


def _bcast(t: Array, *operands: Array) -> Array:
    return st.broadcast_to_operands(t, *operands)


def _bessel_i1e_derivative(x: Array) -> Array:
    # i1e'(x) = i0e(x) - i1e(x) * (sign(x) + 1/x), whose limit at 0 is 1/2.
    eps = dtypes.finfo(get_aval(x).dtype).eps
    not_tiny = ew.gt(ew.abs(x), const_like(x, eps))
    safe = st.select(not_tiny, x, st.full_like(x, eps))
    d = ew.sub(bessel_i0e(safe), ew.mul(bessel_i1e(safe),
                                        ew.add(ew.sign(safe), ew.div(const_like(x, 1), safe))))
    return st.select(not_tiny, d, st.full_like(x, 0.5))


ad.defjvp(erf_p, lambda t, x: ew.mul(t, ew.mul(const_like(x, 2 / np.sqrt(np.pi)),
                                                ew.exp(ew.neg(ew.square(x))))))
ad.defjvp(erfc_p, lambda t, x: ew.mul(t, ew.mul(const_like(x, -2 / np.sqrt(np.pi)),
                                                 ew.exp(ew.neg(ew.square(x))))))
ad.defjvp(erf_inv_p, lambda t, x: ew.mul(t, ew.mul(const_like(x, np.sqrt(np.pi) / 2),
                                                    ew.exp(ew.square(erf_inv(x))))))
ad.defjvp(lgamma_p, lambda t, x: ew.mul(t, digamma(x)))
ad.defjvp(digamma_p, lambda t, x: ew.mul(t, polygamma(const_like(x, 1), x)))
ad.defjvp(bessel_i0e_p, lambda t, x: ew.mul(t, ew.sub(bessel_i1e(x),
                                                       ew.mul(ew.sign(x), bessel_i0e(x)))))
ad.defjvp(bessel_i1e_p, lambda t, x: ew.mul(t, _bessel_i1e_derivative(x)))
ad.defjvp(igamma_p,
          lambda t, a, x: ew.mul(_bcast(t, a, x), igamma_grad_a(a, x)),
          lambda t, a, x: ew.mul(_bcast(t, a, x), _igamma_dx(a, x)))
ad.defjvp(igammac_p,
          lambda t, a, x: ew.neg(ew.mul(_bcast(t, a, x), igamma_grad_a(a, x))),
          lambda t, a, x: ew.neg(ew.mul(_bcast(t, a, x), _igamma_dx(a, x))))
# polygamma is not differentiable in its integer order m; zeta not in its exponent x (as JAX).
ad.defjvp(polygamma_p, None,
          lambda t, m, x: ew.mul(_bcast(t, m, x), polygamma(ew.add(m, const_like(m, 1)), x)))
ad.defjvp(zeta_p, None,
          lambda t, x, q: ew.mul(_bcast(t, x, q),
                                 ew.mul(ew.neg(x), zeta(ew.add(x, const_like(x, 1)), q))))
ad.defjvp(regularized_incomplete_beta_p, _betainc_not_differentiable,
          _betainc_not_differentiable, _betainc_dx)
igamma_grad_a_p.declare_undefined("jvp", "igamma_grad_a is not differentiable.")
random_gamma_grad_p.declare_undefined("jvp", "random_gamma_grad is not differentiable.")


def erf(x: Array) -> Array:
    """Elementwise error function.

    >>> import numjax.numpy as jnp
    >>> erf(jnp.float32(0))
    Array(0., dtype=float32)
    """
    return erf_p.bind(x)


def erfc(x: Array) -> Array:
    """Elementwise complementary error function 1 - erf(x).

    >>> import numjax.numpy as jnp
    >>> erfc(jnp.float32(0))
    Array(1., dtype=float32)
    """
    return erfc_p.bind(x)


def erf_inv(x: Array) -> Array:
    """Elementwise inverse error function.

    >>> import numjax.numpy as jnp
    >>> erf_inv(jnp.float32(0))
    Array(0., dtype=float32)
    """
    return erf_inv_p.bind(x)


def lgamma(x: Array) -> Array:
    """Elementwise log of the absolute value of the gamma function.

    >>> import numjax.numpy as jnp
    >>> lgamma(jnp.float32(1))
    Array(0., dtype=float32)
    """
    return lgamma_p.bind(x)


def digamma(x: Array) -> Array:
    """Elementwise digamma (the derivative of lgamma).

    >>> import numjax.numpy as jnp
    >>> digamma(jnp.float32(1))
    Array(-0.5772157, dtype=float32)
    """
    return digamma_p.bind(x)


def polygamma(m: Array, x: Array) -> Array:
    """Elementwise polygamma of integer-valued order `m` (a float array, as in JAX).

    >>> import numjax.numpy as jnp
    >>> polygamma(jnp.float32(0), jnp.float32(1))
    Array(-0.5772157, dtype=float32)
    """
    return polygamma_p.bind(m, x)


def zeta(x: Array, q: Array) -> Array:
    """Elementwise Hurwitz zeta function sum_k (k + q) ** -x.

    >>> import numjax.numpy as jnp
    >>> zeta(jnp.float32(2), jnp.float32(1))
    Array(1.644934, dtype=float32)
    """
    return zeta_p.bind(x, q)


def igamma(a: Array, x: Array) -> Array:
    """Elementwise regularized lower incomplete gamma function P(a, x).

    >>> import numjax.numpy as jnp
    >>> igamma(jnp.float32(1), jnp.float32(0))
    Array(0., dtype=float32)
    """
    return igamma_p.bind(a, x)


def igammac(a: Array, x: Array) -> Array:
    """Elementwise regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).

    >>> import numjax.numpy as jnp
    >>> igammac(jnp.float32(1), jnp.float32(0))
    Array(1., dtype=float32)
    """
    return igammac_p.bind(a, x)


def igamma_grad_a(a: Array, x: Array) -> Array:
    """Elementwise d/da of igamma(a, x).

    >>> import numjax.numpy as jnp
    >>> igamma_grad_a(jnp.float32(2), jnp.float32(1.5)).round(4)
    Array(-0.3135, dtype=float32)
    """
    return igamma_grad_a_p.bind(a, x)


def random_gamma_grad(a: Array, x: Array) -> Array:
    """Elementwise derivative of a Gamma(a) sample `x` with respect to `a`.

    >>> import numjax.numpy as jnp
    >>> random_gamma_grad(jnp.float32(2), jnp.float32(1.5)).round(4)
    Array(0.9366, dtype=float32)
    """
    return random_gamma_grad_p.bind(a, x)


def betainc(a: Array, b: Array, x: Array) -> Array:
    """Elementwise regularized incomplete beta function I_x(a, b): NaN unless a > 0, b > 0
    and 0 <= x <= 1; differentiable in `x` only. The operands share one floating dtype.

    >>> import numjax.numpy as jnp
    >>> betainc(jnp.float32(2), jnp.float32(3), jnp.float32(0.5))
    Array(0.6875, dtype=float32)
    """
    return regularized_incomplete_beta_p.bind(a, b, x)


def bessel_i0e(x: Array) -> Array:
    """Elementwise exponentially scaled modified Bessel function of order 0.

    >>> import numjax.numpy as jnp
    >>> bessel_i0e(jnp.float32(0))
    Array(1., dtype=float32)
    """
    return bessel_i0e_p.bind(x)


def bessel_i1e(x: Array) -> Array:
    """Elementwise exponentially scaled modified Bessel function of order 1.

    >>> import numjax.numpy as jnp
    >>> bessel_i1e(jnp.float32(0))
    Array(0., dtype=float32)
    """
    return bessel_i1e_p.bind(x)


# ---- integer power with an array exponent --------------------------------------------------


def integer_pow_array(x: Array, y: Array) -> Array:
    """Elementwise `x ** y` for integer arrays as JAX's jnp.power computes it: square and
    multiply over the low 6 bits of `y` (a larger exponent overflows for |x| > 1), with 0 ** y
    = 0 for y != 0. A negative exponent is read through its two's complement bits, so
    2 ** -1 is 0, (-1) ** -3 is -1 and 3 ** -1 is 3 ** 63 wrapped to the dtype.

    >>> import numjax.numpy as jnp
    >>> integer_pow_array(jnp.array([2, 3, -1, 2, 3]), jnp.array([10, 2, -3, -1, -1]))
    Array([      1024,          9,         -1,          0, 2111105451], dtype=int32)
    """
    x_aval, y_aval = get_aval(x), get_aval(y)
    for name, aval in (("x", x_aval), ("y", y_aval)):
        if not dtypes.issubdtype(aval.dtype, np.integer):
            raise TypeError(f"integer_pow_array requires integer {name}, got "
                            f"{aval.dtype.name}")
    if x_aval.dtype != y_aval.dtype:
        raise TypeError("integer_pow_array requires x and y of one dtype, got "
                        f"{x_aval.dtype.name} and {y_aval.dtype.name}")
    x, y = _bcast(x, x, y), _bcast(y, x, y)
    # Strongly typed constants, as JAX's: the result is strong even for weak operands
    # (200 ** bool_array is a strong int32).
    one = st.full_like(x, 1, x_aval.dtype)
    zero = st.full_like(x, 0, x_aval.dtype)
    acc = st.select(ew.bitwise_and(ew.eq(x, zero), ew.ne(y, zero)), zero, one)
    for _ in range(6):
        acc = st.select(ew.ne(ew.bitwise_and(y, one), zero), ew.mul(acc, x), acc)
        x = ew.mul(x, x)
        y = ew.shift_right_logical(y, one)
    return acc
