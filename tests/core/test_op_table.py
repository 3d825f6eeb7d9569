"""The lax op table: one row per primitive (or per interesting parameterization of one), and
the same checks for every row.

A row names the lax call, a NumPy/SciPy reference, operand shapes, accepted dtypes, operand
generators (each draws from the row's well-conditioned domain), tolerances, the differentiable
operands and which operands may be Python scalars. For each row:

- impl vs reference over several shapes (0-d and empty where the op allows) and dtypes, float64
  and int64 under `numjax.experimental.enable_x64()`;
- abstract eval (`numjax.eval_shape`) equals the result's shape, dtype and weak_type;
- jit vs eager: same values, dtypes and weak_type;
- vmap vs a Python loop, for every batched/unbatched operand combination, batch dim first and
  last;
- `check_grads` to order 2 in both modes for differentiable rows (float32; float64 is slow);
- weak-typed Python scalar operands where the op takes them.

Adding a primitive means adding a row here; `test_every_lax_primitive_has_a_row` enforces it.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
import scipy.special as sp

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax.test_util import check_grads

Shape = tuple[int, ...]
Gen = Callable[[np.random.Generator, Shape, np.dtype], np.ndarray]

BF16 = np.dtype(jnp.bfloat16)
F32, F64, I32, I64, BOOL = (np.dtype(t) for t in ("float32", "float64", "int32", "int64", "bool"))
C64, C128 = np.dtype("complex64"), np.dtype("complex128")
X64_DTYPES = {F64, I64, C128}


# ---- operand generators: (rng, shape, dtype) -> ndarray ------------------------------------


def uniform(lo: float, hi: float) -> Gen:
    """Floats in [lo, hi); integers in [lo, hi]; bools at random; complex with both parts."""

    def gen(rng: np.random.Generator, shape: Shape, dtype: np.dtype) -> np.ndarray:
        if dtype.kind == "b":
            return rng.random(shape) < 0.5
        if dtype.kind in "iu":
            low = int(np.ceil(lo))
            return rng.integers(low, max(int(np.floor(hi)), low) + 1, shape).astype(dtype)
        if dtype.kind == "c":
            return (rng.uniform(lo, hi, shape) + 1j * rng.uniform(lo, hi, shape)).astype(dtype)
        return rng.uniform(lo, hi, shape).astype(dtype)

    return gen


def away_from_zero(lo: float, hi: float) -> Gen:
    """|x| in [lo, hi) with a random sign: for rules with a kink or pole at 0."""
    base = uniform(lo, hi)

    def gen(rng: np.random.Generator, shape: Shape, dtype: np.dtype) -> np.ndarray:
        x = base(rng, shape, dtype)
        if dtype.kind == "b":
            return x
        return (x * np.where(rng.random(shape) < 0.5, -1, 1)).astype(dtype)

    return gen


def distinct(lo: float, hi: float) -> Gen:
    """Floats with no two within 0.05 of each other: for max/min/sort-like rules, so finite
    differences never cross a tie."""

    def gen(rng: np.random.Generator, shape: Shape, dtype: np.dtype) -> np.ndarray:
        n = int(np.prod(shape))
        if dtype.kind in "iub":
            return uniform(lo, hi)(rng, shape, dtype)
        grid = np.linspace(lo, hi, max(n, 1) * 2)
        return rng.permutation(grid)[:n].reshape(shape).astype(dtype)

    return gen


def offset_from_integers(rng: np.random.Generator, shape: Shape, dtype: np.dtype) -> np.ndarray:
    """k + 0.25 .. k + 0.75: for floor/ceil/round, away from their jumps."""
    return (rng.integers(-3, 3, shape) + rng.uniform(0.25, 0.75, shape)).astype(dtype)


def integers(lo: int, hi: int) -> Gen:
    """Integer values in [lo, hi] in any dtype (polygamma's order)."""
    return lambda rng, shape, dtype: rng.integers(lo, hi + 1, shape).astype(dtype)


def const(value: Any) -> Gen:
    return lambda rng, shape, dtype: np.full(shape, value, dtype)


def permutation_indices(n: int) -> Gen:
    """Distinct indices in [0, n) as an (k, 1) int32 array: scatter without collisions."""

    def gen(rng: np.random.Generator, shape: Shape, dtype: np.dtype) -> np.ndarray:
        k = shape[0]
        return rng.permutation(n)[:k].reshape(shape).astype(np.int32)

    return gen


@dataclasses.dataclass(frozen=True)
class Arg:
    """An operand: its generator and, if fixed, its dtype (else the row's dtype)."""

    gen: Gen
    dtype: Any = None


def args_of(*specs: Gen | Arg) -> tuple[Arg, ...]:
    return tuple(s if isinstance(s, Arg) else Arg(s) for s in specs)


@dataclasses.dataclass(frozen=True)
class Row:
    name: str
    fn: Callable[..., Any]
    ref: Callable[..., Any]
    args: tuple[Arg, ...]
    shapes: tuple[tuple[Shape, ...], ...]
    dtypes: tuple[np.dtype, ...]
    out_dtype: Callable[[np.dtype], np.dtype] = lambda d: d
    grad: tuple[int, ...] = ()  # differentiable operand positions (float rows only)
    scalars: tuple[int, ...] = ()  # positions that accept a weak Python scalar
    rtol: float = 1e-5
    atol: float = 1e-6
    bf16_tol: float = 2e-2
    f64_tol: float = 1e-12
    vmap: bool = True
    primitive: str | None = None  # the primitive it covers, if its name differs
    valid: Callable[[tuple[Shape, ...]], bool] = lambda shapes: True  # which shapes apply
    native_ref: bool = False  # call the reference on the operands' own dtypes, not float64
    x64_grad: bool = True  # float64 differences resolve the op's rounding (f64 -> f32)
    first_order: tuple[int, ...] = ()  # differentiable to first order only (like JAX)
    weak_out: bool = True  # Python scalar operands give a weak result (not for a set dtype)

    def __repr__(self) -> str:
        return self.name


def _dt(*names: str) -> tuple[np.dtype, ...]:
    return tuple(np.dtype(jnp.bfloat16) if n == "bfloat16" else np.dtype(n) for n in names)


FLOATS = _dt("float32", "bfloat16", "float64")
FLOATS_NO_BF16 = _dt("float32", "float64")
INTS = _dt("int32", "int64")
NUMBERS = FLOATS + INTS
ALL = NUMBERS + _dt("bool")
COMPLEX = _dt("complex64", "complex128")

UNARY_SHAPES: tuple[tuple[Shape, ...], ...] = (((),), ((3,),), ((2, 3),), ((0,),), ((2, 0),))
BINARY_SHAPES: tuple[tuple[Shape, ...], ...] = (
    ((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), ()), ((), (2, 3)), ((2, 1), (2, 3)),
    ((0,), (0,)))
TERNARY_SHAPES: tuple[tuple[Shape, ...], ...] = (
    ((), (), ()), ((3,), (3,), (3,)), ((2, 3), (2, 3), (2, 3)), ((), (2, 3), ()),
    ((0,), (0,), (0,)))


def to_bool(d: np.dtype) -> np.dtype:
    return BOOL


def to_real(d: np.dtype) -> np.dtype:
    return {C64: F32, C128: F64}.get(d, d)


def to_complex(d: np.dtype) -> np.dtype:
    return C128 if d == F64 else C64


# ---- the rows ------------------------------------------------------------------------------


def unary(name: str, fn: Any, ref: Any, gen: Gen = uniform(-2, 2), dtypes: Any = FLOATS,
          grad: bool = True, **kw: Any) -> Row:
    return Row(name, fn, ref, args_of(gen), UNARY_SHAPES, dtypes,
               grad=(0,) if grad else (), scalars=(0,), **kw)


def binary(name: str, fn: Any, ref: Any, gens: Sequence[Gen] = (uniform(-2, 2),) * 2,
           dtypes: Any = FLOATS, grad: tuple[int, ...] = (0, 1), **kw: Any) -> Row:
    return Row(name, fn, ref, args_of(*gens), BINARY_SHAPES, dtypes, grad=grad,
               scalars=(0, 1), **kw)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _ref_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        return np.trunc(x / y).astype(x.dtype)
    return x / y


def _ref_shift_right_logical(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    u = x.view(f"u{x.dtype.itemsize}")
    return (u >> y.astype(u.dtype)).view(x.dtype)


def _ref_popcount(x: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    u = x.view(f"u{x.dtype.itemsize}").astype(np.uint64)
    return sum(((u >> np.uint64(i)) & np.uint64(1)) for i in range(bits)).astype(x.dtype)


def _ref_clz(x: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    u = x.view(f"u{x.dtype.itemsize}").astype(np.uint64)
    length = np.zeros(u.shape, np.int64)
    for i in range(bits):
        length = np.where((u >> np.uint64(i)) != 0, i + 1, length)
    return (bits - length).astype(x.dtype)


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _igamma_grad_a(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    h = 1e-6
    return (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)


def _random_gamma_grad(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    # The sample x(a) keeps P(a, x) fixed: dx/da = -(dP/da) / (dP/dx).
    dp_dx = np.exp((a - 1) * np.log(x) - x - sp.gammaln(a))
    return -_igamma_grad_a(a, x) / dp_dx


def _cumulative_ref(fn: Callable[..., np.ndarray], axis: int, reverse: bool) -> Any:
    def ref(x: np.ndarray) -> np.ndarray:
        if x.ndim == 0:
            return x
        if reverse:
            return np.flip(fn(np.flip(x, axis), axis=axis), axis)
        return fn(x, axis=axis)

    return ref


def _cumlogsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    return np.logaddexp.accumulate(x, axis=axis)


def _extremum(fn: Any, sign: int) -> Any:
    """np.max/np.min with the identity XLA uses for empty reductions (-inf, iinfo.min, ...)."""

    def ref(x: np.ndarray, axis: Any) -> np.ndarray:
        if x.dtype.kind == "b":
            initial: Any = sign > 0
        elif x.dtype.kind in "iu":
            info = np.iinfo(x.dtype)
            initial = info.max if sign > 0 else info.min
        else:
            initial = sign * np.inf
        return fn(x, axis=axis, initial=initial)

    return ref


def _reduce(name: str, fn: Any, ref: Any, dtypes: Any, gen: Gen = uniform(-2, 2),
            grad: bool = True, **kw: Any) -> list[Row]:
    shapes: tuple[tuple[Shape, ...], ...] = (((3,),), ((2, 3),), ((2, 3, 2),), ((0, 3),))
    return [
        Row(f"{name}_axes{axes}", lambda x, a=axes: fn(x, a),
            lambda x, a=axes: ref(x, axis=tuple(a for a in a if a < x.ndim)),
            args_of(gen), shapes, dtypes, grad=(0,) if grad else (), primitive=name,
            valid=lambda s, a=axes: max(a) < len(s[0]), **kw)
        for axes in ((0,), (1,), (0, 1))
    ] + [Row(f"{name}_noaxes", lambda x: fn(x, ()), lambda x: x, args_of(gen), UNARY_SHAPES,
             dtypes, grad=(0,) if grad else (), primitive=name, **kw)]


def _reduce_shapes_ok(row: Row, shapes: tuple[Shape, ...]) -> bool:
    return row.valid(shapes)


_ROUND_AWAY = lax.RoundingMethod.AWAY_FROM_ZERO
_ROUND_EVEN = lax.RoundingMethod.TO_NEAREST_EVEN
_GDN = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
_SDN = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))
_IDX = Arg(permutation_indices(4), I32)
_SCATTER_SHAPES: tuple[tuple[Shape, ...], ...] = (((4, 3), (2, 1), (2, 3)),
                                                  ((4, 0), (2, 1), (2, 0)))


def _scatter_ref(combine: Any) -> Any:
    def ref(x: np.ndarray, idx: np.ndarray, upd: np.ndarray) -> np.ndarray:
        out = x.copy()
        combine(out, idx[:, 0], upd)
        return out

    return ref


def _set(out: np.ndarray, i: np.ndarray, u: np.ndarray) -> None:
    out[i] = u


def _dot_row(name: str, lhs: Shape, rhs: Shape, dn: Any, ref: Any) -> Row:
    return Row(name, lambda x, y: lax.dot_general(x, y, dn), ref, args_of(uniform(-1, 1),
               uniform(-1, 1)), ((lhs, rhs),), FLOATS + INTS, grad=(0, 1),
               primitive="dot_general", rtol=1e-5, atol=1e-5, bf16_tol=5e-2)


ROWS: list[Row] = [
    # -- elementwise arithmetic --
    unary("neg", lax.neg, np.negative, dtypes=NUMBERS + COMPLEX),
    unary("sign", lax.sign, np.sign, away_from_zero(0.2, 2), dtypes=NUMBERS),
    unary("floor", lax.floor, np.floor, offset_from_integers),
    unary("ceil", lax.ceil, np.ceil, offset_from_integers),
    unary("round_away", lambda x: lax.round(x, _ROUND_AWAY), _round_half_away,
          offset_from_integers, primitive="round"),
    unary("round_even", lambda x: lax.round(x, _ROUND_EVEN), np.round, offset_from_integers,
          primitive="round"),
    unary("is_finite", lax.is_finite, np.isfinite, uniform(-2, 2), out_dtype=to_bool,
          grad=False),
    unary("abs", lax.abs, np.abs, away_from_zero(0.2, 2), dtypes=NUMBERS + COMPLEX,
          out_dtype=to_real),
    unary("square", lax.square, np.square, dtypes=NUMBERS),
    unary("integer_pow_3", lambda x: lax.integer_pow(x, 3), lambda x: x ** 3,
          dtypes=NUMBERS, primitive="integer_pow"),
    unary("integer_pow_m2", lambda x: lax.integer_pow(x, -2), lambda x: x ** -2.0,
          away_from_zero(0.5, 2), primitive="integer_pow"),
    unary("integer_pow_0", lambda x: lax.integer_pow(x, 0), lambda x: np.ones_like(x),
          dtypes=NUMBERS, primitive="integer_pow"),
    binary("add", lax.add, np.add, dtypes=NUMBERS + COMPLEX),
    binary("sub", lax.sub, np.subtract, dtypes=NUMBERS + COMPLEX),
    binary("mul", lax.mul, np.multiply, dtypes=NUMBERS + COMPLEX),
    binary("div", lax.div, _ref_div, (uniform(-2, 2), away_from_zero(0.5, 2)),
           dtypes=NUMBERS + COMPLEX, rtol=2e-5),
    binary("rem", lax.rem, np.fmod, (uniform(0.1, 0.9), away_from_zero(1.5, 2)),
           dtypes=NUMBERS),
    binary("max", lax.max, np.maximum, (distinct(-2, 2), distinct(-2.01, 2.01)), dtypes=ALL),
    binary("min", lax.min, np.minimum, (distinct(-2, 2), distinct(-2.01, 2.01)), dtypes=ALL),
    binary("pow", lax.pow, np.power, (uniform(0.5, 2), uniform(-2, 2)),
           dtypes=FLOATS + COMPLEX, rtol=2e-5),
    Row("pow_int_exponent", lax.pow, lambda x, y: x ** y.astype(np.float64),
        args_of(uniform(0.5, 2), Arg(uniform(-3, 3), I32)), BINARY_SHAPES, FLOATS, grad=(0,),
        scalars=(0,), primitive="pow", rtol=2e-5),
    binary("atan2", lax.atan2, np.arctan2, (uniform(-2, 2), away_from_zero(0.5, 2))),
    binary("nextafter", lax.nextafter, np.nextafter, grad=(), dtypes=_dt("float32", "float64"),
           rtol=0, atol=0, native_ref=True),
    Row("clamp", lax.clamp, lambda lo, x, hi: np.clip(x, lo, hi),
        args_of(const(-1.0), distinct(-2, 2), const(1.0)), TERNARY_SHAPES, NUMBERS,
        grad=(1,), scalars=(0, 2)),
    # -- transcendental --
    unary("exp", lax.exp, np.exp, dtypes=FLOATS + COMPLEX),
    unary("exp2", lax.exp2, np.exp2, dtypes=FLOATS + COMPLEX),
    unary("log", lax.log, np.log, uniform(0.5, 2), dtypes=FLOATS + COMPLEX),
    unary("log1p", lax.log1p, np.log1p, uniform(-0.5, 2), dtypes=FLOATS + COMPLEX),
    unary("expm1", lax.expm1, np.expm1, dtypes=FLOATS + COMPLEX),
    unary("tanh", lax.tanh, np.tanh, dtypes=FLOATS + COMPLEX),
    unary("logistic", lax.logistic, _logistic, dtypes=FLOATS + COMPLEX),
    unary("sin", lax.sin, np.sin, dtypes=FLOATS + COMPLEX),
    unary("cos", lax.cos, np.cos, dtypes=FLOATS + COMPLEX),
    unary("tan", lax.tan, np.tan, uniform(-1, 1), dtypes=FLOATS + COMPLEX),
    unary("asin", lax.asin, np.arcsin, uniform(-0.8, 0.8), dtypes=FLOATS),
    unary("acos", lax.acos, np.arccos, uniform(-0.8, 0.8), dtypes=FLOATS),
    unary("atan", lax.atan, np.arctan, dtypes=FLOATS + COMPLEX),
    unary("sinh", lax.sinh, np.sinh, dtypes=FLOATS + COMPLEX),
    unary("cosh", lax.cosh, np.cosh, dtypes=FLOATS + COMPLEX),
    unary("asinh", lax.asinh, np.arcsinh, dtypes=FLOATS + COMPLEX),
    unary("acosh", lax.acosh, np.arccosh, uniform(1.2, 3), dtypes=FLOATS),
    unary("atanh", lax.atanh, np.arctanh, uniform(-0.8, 0.8), dtypes=FLOATS),
    unary("sqrt", lax.sqrt, np.sqrt, uniform(0.5, 2), dtypes=FLOATS + COMPLEX),
    unary("rsqrt", lax.rsqrt, lambda x: 1 / np.sqrt(x), uniform(0.5, 2),
          dtypes=FLOATS + COMPLEX),
    unary("cbrt", lax.cbrt, np.cbrt, away_from_zero(0.5, 2)),
    # -- comparisons and logic --
    *[binary(n, getattr(lax, n), ref, (uniform(-2, 2),) * 2, dtypes=ALL, grad=(),
             out_dtype=to_bool)
      for n, ref in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                     ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal))],
    binary("eq_complex", lax.eq, np.equal, dtypes=COMPLEX, grad=(), out_dtype=to_bool,
           primitive="eq"),
    unary("not", lax.bitwise_not, np.invert, uniform(-100, 100), dtypes=INTS + _dt("bool"),
          grad=False),
    *[binary(n, getattr(lax, f"bitwise_{n}"), ref, (uniform(-100, 100),) * 2,
             dtypes=INTS + _dt("bool"), grad=())
      for n, ref in (("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor))],
    binary("shift_left", lax.shift_left, np.left_shift, (uniform(-100, 100), uniform(0, 20)),
           dtypes=INTS, grad=()),
    binary("shift_right_arithmetic", lax.shift_right_arithmetic, np.right_shift,
           (uniform(-100, 100), uniform(0, 20)), dtypes=INTS, grad=()),
    binary("shift_right_logical", lax.shift_right_logical, _ref_shift_right_logical,
           (uniform(-100, 100), uniform(0, 20)), dtypes=INTS, grad=()),
    unary("population_count", lax.population_count, _ref_popcount, uniform(-1000, 1000),
          dtypes=INTS, grad=False),
    unary("clz", lax.clz, _ref_clz, uniform(-1000, 1000), dtypes=INTS, grad=False),
    # -- conversions --
    unary("convert_to_int32", lambda x: lax.convert_element_type(x, np.int32),
          lambda x: x.astype(np.int32), uniform(-100, 100), dtypes=ALL, grad=False,
          out_dtype=lambda d: I32, weak_out=False, primitive="convert_element_type"),
    unary("convert_to_float32", lambda x: lax.convert_element_type(x, np.float32),
          lambda x: x.astype(np.float32), dtypes=ALL, out_dtype=lambda d: F32,
          weak_out=False, primitive="convert_element_type", grad=True, x64_grad=False),
    unary("convert_to_bool", lambda x: lax.convert_element_type(x, np.bool_),
          lambda x: x.astype(bool), uniform(-1, 1), dtypes=ALL, out_dtype=to_bool,
          grad=False, weak_out=False, primitive="convert_element_type"),
    # Its jvp passes tangents through (as JAX's) while finite differences see a step
    # function: no gradient check.
    unary("reduce_precision_f16", lambda x: lax.reduce_precision(x, 5, 10),
          lambda x: x.astype(np.float16).astype(x.dtype), dtypes=_dt("float32", "float64"),
          primitive="reduce_precision", rtol=0, atol=0, grad=False),
    unary("bitcast_f32_i32", lambda x: lax.bitcast_convert_type(x, np.int32),
          lambda x: np.asarray(x, np.float32).view(np.int32), dtypes=_dt("float32"),
          grad=False, out_dtype=lambda d: I32, weak_out=False, primitive="bitcast_convert_type"),
    Row("bitcast_i32_u8", lambda x: lax.bitcast_convert_type(x, np.uint8),
        lambda x: x.reshape(x.shape + (1,)).view(np.uint8), args_of(uniform(-1000, 1000)),
        ((((),), ((3,),), ((2, 0),))), _dt("int32"), out_dtype=lambda d: np.dtype(np.uint8),
        primitive="bitcast_convert_type"),
    # -- complex --
    binary("complex", lax.complex, lambda x, y: x + 1j * y, dtypes=FLOATS_NO_BF16,
           out_dtype=to_complex),
    unary("real", lax.real, np.real, dtypes=COMPLEX, out_dtype=to_real),
    unary("imag", lax.imag, np.imag, dtypes=COMPLEX, out_dtype=to_real),
    unary("conj", lax.conj, np.conj, dtypes=COMPLEX),
    # -- special functions --
    unary("erf", lax.erf, sp.erf, f64_tol=1e-7),
    unary("erfc", lax.erfc, sp.erfc, f64_tol=1e-7),
    unary("erf_inv", lax.erf_inv, sp.erfinv, uniform(-0.9, 0.9), f64_tol=1e-7),
    unary("lgamma", lax.lgamma, sp.gammaln, uniform(0.5, 4), f64_tol=1e-7),
    unary("digamma", lax.digamma, sp.digamma, uniform(0.5, 4), f64_tol=1e-7),
    unary("bessel_i0e", lax.bessel_i0e, sp.i0e, f64_tol=1e-7),
    unary("bessel_i1e", lax.bessel_i1e, sp.i1e, f64_tol=1e-7),
    # d/da igamma is igamma_grad_a, which JAX does not differentiate: second order in x only.
    binary("igamma", lax.igamma, sp.gammainc, (uniform(0.5, 4), uniform(0.2, 4)),
           dtypes=FLOATS, f64_tol=1e-7, grad=(1,), first_order=(0,)),
    binary("igammac", lax.igammac, sp.gammaincc, (uniform(0.5, 4), uniform(0.2, 4)),
           dtypes=FLOATS, f64_tol=1e-7, grad=(1,), first_order=(0,)),
    binary("igamma_grad_a", lax.igamma_grad_a, _igamma_grad_a,
           (uniform(0.5, 4), uniform(0.2, 4)), dtypes=_dt("float32", "float64"), grad=(),
           rtol=1e-4, atol=1e-5, f64_tol=1e-6),
    binary("random_gamma_grad", lax.random_gamma_grad, _random_gamma_grad,
           (uniform(0.5, 4), uniform(0.2, 4)), dtypes=_dt("float32", "float64"), grad=(),
           rtol=1e-4, atol=1e-5, f64_tol=1e-6),
    # Differentiable in x only (JAX's rule for a and b raises).
    Row("regularized_incomplete_beta", lax.betainc, sp.betainc,
        args_of(uniform(0.5, 4), uniform(0.5, 4), uniform(0.05, 0.95)), TERNARY_SHAPES, FLOATS,
        grad=(2,), scalars=(0, 1, 2), f64_tol=1e-7),
    binary("zeta", lax.zeta, sp.zeta, (uniform(2, 4), uniform(0.5, 3)),
           dtypes=_dt("float32", "float64"), grad=(1,), f64_tol=1e-7),
    binary("polygamma", lax.polygamma, lambda m, x: sp.polygamma(m.astype(int), x),
           (integers(0, 2), uniform(0.5, 3)), dtypes=_dt("float32", "float64"), grad=(1,),
           f64_tol=1e-7, rtol=2e-5),
    # -- structural --
    Row("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1,)),
        lambda x: np.broadcast_to(x.reshape(1, -1, 1), (2, 3, 4)), args_of(uniform(-2, 2)),
        (((3,),), ((1,),)), ALL, grad=(0,)),
    Row("broadcast_in_dim_scalar", lambda x: lax.broadcast_in_dim(x, (2, 0), ()),
        lambda x: np.broadcast_to(x, (2, 0)), args_of(uniform(-2, 2)), (((),),), ALL,
        grad=(0,), scalars=(0,), primitive="broadcast_in_dim"),
    Row("reshape", lambda x: lax.reshape(x, (3, 2)), lambda x: x.reshape(3, 2),
        args_of(uniform(-2, 2)), (((2, 3),), ((6,),)), ALL, grad=(0,)),
    Row("reshape_dimensions", lambda x: lax.reshape(x, (6,), dimensions=(1, 0)),
        lambda x: x.T.reshape(6), args_of(uniform(-2, 2)), (((2, 3),),), ALL, grad=(0,),
        primitive="reshape"),
    Row("squeeze", lambda x: lax.squeeze(x, (0, 2)), lambda x: x.reshape(x.shape[1]),
        args_of(uniform(-2, 2)), (((1, 3, 1),), ((1, 0, 1),)), ALL, grad=(0,)),
    Row("expand_dims", lambda x: lax.expand_dims(x, (0, 2)), lambda x: x[None, :, None],
        args_of(uniform(-2, 2)), (((3,),), ((0,),)), ALL, grad=(0,), primitive="broadcast_in_dim"),
    Row("transpose", lambda x: lax.transpose(x, (2, 0, 1)), lambda x: x.transpose(2, 0, 1),
        args_of(uniform(-2, 2)), (((2, 3, 4),), ((2, 0, 1),)), ALL, grad=(0,)),
    # d stop_gradient = 0 by definition (finite differences see the identity): no grads.
    unary("stop_gradient", lax.stop_gradient, lambda x: x, grad=False),
    unary("copy", lax.copy_p.bind, lambda x: x, dtypes=ALL),
    Row("rev", lambda x: lax.rev(x, (0, 1)), lambda x: x[::-1, ::-1], args_of(uniform(-2, 2)),
        (((2, 3),), ((0, 3),)), ALL, grad=(0,)),
    Row("select_n_bool", lax.select_n, lambda w, a, b: np.where(w, b, a),
        args_of(Arg(uniform(0, 1), BOOL), uniform(-2, 2), uniform(-2, 2)), TERNARY_SHAPES[:3]
        + (((0,), (0,), (0,)),), ALL, grad=(1, 2), primitive="select_n"),
    Row("select_n_int", lax.select_n, lambda w, a, b, c: np.choose(w, [a, b, c]),
        args_of(Arg(uniform(0, 2), I32), uniform(-2, 2), uniform(-2, 2), uniform(-2, 2)),
        (((2, 3),) * 4, ((),) + ((2, 3),) * 3), NUMBERS, grad=(1, 2, 3),
        primitive="select_n"),
    Row("concatenate", lambda x, y: lax.concatenate([x, y], 1),
        lambda x, y: np.concatenate([x, y], 1), args_of(uniform(-2, 2), uniform(-2, 2)),
        (((2, 3), (2, 1)), ((2, 0), (2, 2))), ALL, grad=(0, 1)),
    Row("slice", lambda x: lax.slice(x, (0, 1), (2, 5), (1, 2)), lambda x: x[0:2, 1:5:2],
        args_of(uniform(-2, 2)), (((3, 6),),), ALL, grad=(0,)),
    Row("pad", lambda x, v: lax.pad(x, v, ((1, 2, 1), (-1, 1, 0))),
        lambda x, v: _ref_pad(x, v), args_of(uniform(-2, 2), uniform(-2, 2)),
        (((2, 3), ()), ((0, 3), ())), ALL, grad=(0, 1), scalars=(1,)),
    # -- reductions --
    *_reduce("reduce_sum", lax.reduce_sum, np.sum, NUMBERS, rtol=2e-5),
    *_reduce("reduce_prod", lax.reduce_prod, np.prod, NUMBERS, gen=away_from_zero(0.5, 1.5),
             rtol=2e-5),
    *_reduce("reduce_max", lax.reduce_max, _extremum(np.max, -1), ALL, gen=distinct(-2, 2)),
    *_reduce("reduce_min", lax.reduce_min, _extremum(np.min, 1), ALL, gen=distinct(-2, 2)),
    *_reduce("reduce_and", lax.reduce_and, np.bitwise_and.reduce, INTS + _dt("bool"),
             gen=uniform(-100, 100), grad=False),
    *_reduce("reduce_or", lax.reduce_or, np.bitwise_or.reduce, INTS + _dt("bool"),
             gen=uniform(-100, 100), grad=False),
    *_reduce("reduce_xor", lax.reduce_xor, np.bitwise_xor.reduce, INTS + _dt("bool"),
             gen=uniform(-100, 100), grad=False),
    *[Row(f"{n}_axis{ax}", lambda x, n=n, ax=ax: getattr(lax, n)(x, ax, np.int32),
          lambda x, n=n, ax=ax: getattr(np, n)(x, axis=ax).astype(np.int32),
          args_of(distinct(-2, 2)), (((3,),), ((2, 3),)) if ax == 0 else (((2, 3),),), ALL,
          out_dtype=lambda d: I32, primitive=n)
      for n in ("argmax", "argmin") for ax in (0, 1)],
    # -- dot_general --
    _dot_row("dot_matmul", (2, 3), (3, 4), (((1,), (0,)), ((), ())), lambda x, y: x @ y),
    _dot_row("dot_vector", (3,), (3,), (((0,), (0,)), ((), ())), lambda x, y: np.dot(x, y)),
    _dot_row("dot_outer", (2,), (3,), (((), ()), ((), ())), np.multiply.outer),
    _dot_row("dot_batch", (2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,))),
             lambda x, y: np.einsum("bij,bjk->bik", x, y)),
    _dot_row("dot_batch_contract_first", (3, 2, 4), (4, 3, 5), (((0,), (1,)), ((), ())),
             lambda x, y: np.einsum("iab,cid->abcd", x, y)),
    _dot_row("dot_empty_contraction", (2, 0), (0, 3), (((1,), (0,)), ((), ())),
             lambda x, y: x @ y),
    # -- cumulative --
    *[Row(f"{n}_axis{ax}_rev{int(rev)}",
          lambda x, n=n, ax=ax, rev=rev: getattr(lax, n)(x, ax, rev),
          _cumulative_ref(ref, ax, rev), args_of(gen), (((3,),), ((2, 3),), ((0, 2),))
          if ax == 0 else (((2, 3),), ((2, 0),)), dtypes, grad=(0,) if diff else (),
          primitive=n, rtol=2e-5)
      for n, ref, dtypes, gen, diff in (
          ("cumsum", np.cumsum, NUMBERS, uniform(-2, 2), True),
          ("cumprod", np.cumprod, NUMBERS, away_from_zero(0.5, 1.5), True),
          ("cummax", np.maximum.accumulate, NUMBERS, distinct(-2, 2), True),
          ("cummin", np.minimum.accumulate, NUMBERS, distinct(-2, 2), True),
          ("cumlogsumexp", _cumlogsumexp, FLOATS, uniform(-2, 2), True))
      for ax in (0, 1) for rev in (False, True)],
    # -- dynamic slicing --
    Row("dynamic_slice", lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2)),
        lambda x, i, j: _ref_dynamic_slice(x, (i, j), (2, 2)),
        args_of(uniform(-2, 2), Arg(uniform(-1, 4), I32), Arg(uniform(-1, 4), I32)),
        (((3, 4), (), ()),), ALL, grad=(0,), scalars=(1, 2)),
    Row("dynamic_update_slice", lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)),
        lambda x, u, i, j: _ref_dynamic_update_slice(x, u, (i, j)),
        args_of(uniform(-2, 2), uniform(-2, 2), Arg(uniform(-1, 4), I32),
                Arg(uniform(-1, 4), I32)),
        (((3, 4), (2, 2), (), ()), ((3, 4), (0, 2), (), ())), ALL, grad=(0, 1),
        scalars=(2, 3)),
    # -- gather / scatter --
    Row("gather", lambda x, i: lax.gather(x, i, _GDN, (1, x.shape[1])),
        lambda x, i: x[i[:, 0]], args_of(uniform(-2, 2), Arg(uniform(0, 3), I32)),
        (((4, 3), (2, 1)), ((4, 3), (0, 1)), ((4, 0), (2, 1))), ALL, grad=(0,)),
    Row("gather_clip", lambda x, i: lax.gather(x, i, _GDN, (1, x.shape[1]), mode="clip"),
        lambda x, i: x[np.clip(i[:, 0], 0, x.shape[0] - 1)],
        args_of(uniform(-2, 2), Arg(uniform(-2, 6), I32)), (((4, 3), (2, 1)),), ALL,
        grad=(0,), primitive="gather"),
    # The indices are distinct: scatter_mul (as in JAX) differentiates only unique indices.
    *[Row(name, lambda x, i, u, f=f: f(x, i, u, _SDN, unique_indices=True),
          _scatter_ref(combine),
          args_of(gen, _IDX, gen), _SCATTER_SHAPES, dtypes, grad=(0, 2), primitive=prim)
      for name, prim, f, combine, dtypes, gen in (
          ("scatter", "scatter", lax.scatter, _set, ALL, uniform(-2, 2)),
          ("scatter_add", "scatter-add", lax.scatter_add, np.add.at, NUMBERS, uniform(-2, 2)),
          ("scatter_mul", "scatter-mul", lax.scatter_mul, np.multiply.at, NUMBERS,
           away_from_zero(0.5, 1.5)),
          ("scatter_min", "scatter-min", lax.scatter_min, np.minimum.at, ALL,
           distinct(-2, 2)),
          ("scatter_max", "scatter-max", lax.scatter_max, np.maximum.at, ALL,
           distinct(-2, 2)))],
    Row("scatter_add_repeated", lambda x, i, u: lax.scatter_add(x, i, u, _SDN),
        _scatter_ref(np.add.at), args_of(uniform(-2, 2), Arg(const(1), I32), uniform(-2, 2)),
        (((4, 3), (3, 1), (3, 3)),), NUMBERS, grad=(0, 2), primitive="scatter-add"),
    # -- internal: the sum of tangents --
    Row("add_any", ad.add_any_p.bind, np.add, args_of(uniform(-2, 2), uniform(-2, 2)),
        (((), ()), ((2, 3), (2, 3)), ((0,), (0,))), FLOATS, grad=(0, 1)),
]


def _ref_pad(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    # ((1, 2, 1), (-1, 1, 0)): interior 1 on axis 0, then edges; negative low crops.
    rows = x.shape[0]
    inner = np.full((max(2 * rows - 1, 0), x.shape[1]), v, x.dtype)
    inner[::2] = x
    out = np.concatenate([np.full((1, x.shape[1]), v, x.dtype), inner,
                          np.full((2, x.shape[1]), v, x.dtype)], 0)
    out = np.concatenate([out, np.full((out.shape[0], 1), v, x.dtype)], 1)
    return out[:, 1:]


def _clamp_starts(shape: Shape, starts: Sequence[Any], sizes: Sequence[int]) -> list[int]:
    # As JAX: a negative start counts from the end, then starts clamp to keep the slice inside.
    return [int(np.clip(int(s) + d if int(s) < 0 else int(s), 0, d - k))
            for s, d, k in zip(starts, shape, sizes, strict=False)]


def _ref_dynamic_slice(x: np.ndarray, starts: Sequence[Any], sizes: Sequence[int]) -> Any:
    s = _clamp_starts(x.shape, starts, sizes)
    return x[tuple(slice(a, a + k) for a, k in zip(s, sizes, strict=False))]


def _ref_dynamic_update_slice(x: np.ndarray, u: np.ndarray, starts: Sequence[Any]) -> Any:
    s = _clamp_starts(x.shape, starts, u.shape)
    out = x.copy()
    out[tuple(slice(a, a + k) for a, k in zip(s, u.shape, strict=False))] = u
    return out


ROW_IDS = [r.name for r in ROWS]
assert len(set(ROW_IDS)) == len(ROW_IDS), "row names must be unique"

# iota has no operands; it is a row of its own kind (test_iota below).
NO_ROW = {"iota", "pjit", "platform_index"}  # pjit: tests/api/test_jit.py; platform_index:
# tests/api/test_platform_dependent.py (no operands, like iota)
# Host callbacks call user functions (their rules: tests/api/test_callbacks.py).
NO_ROW |= {"debug_callback", "pure_callback", "io_callback", "outside_call"}
# inspect_sharding calls back with a sharding (its rules: tests/api/test_sharding.py).
NO_ROW |= {"inspect_sharding"}
# check has no results; its rules (jvp, vmap, checkify's) are tested in tests/test_checkify.py.
NO_ROW |= {"check"}
# Tokens carry no data (tests/api/test_api_conformance.py::test_tokens).
NO_ROW |= {"create_token", "after_all"}


# ---- helpers -------------------------------------------------------------------------------


def _is_float(d: np.dtype) -> bool:
    return d.kind in "fc" or d == BF16


def _make_args(row: Row, shapes: tuple[Shape, ...], dtype: np.dtype, seed: int = 0
               ) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for arg, shape in zip(row.args, shapes, strict=True):
        d = np.dtype(arg.dtype) if arg.dtype is not None else dtype
        out.append(np.asarray(arg.gen(rng, shape, d), d))
    return out


def _x64(dtype: np.dtype) -> Any:
    return numjax.experimental.enable_x64(dtype in X64_DTYPES)


def _reference(row: Row, args: list[np.ndarray]) -> np.ndarray:
    if row.native_ref:
        return np.asarray(row.ref(*args))
    # Floats are referenced in float64 (complex128), from the rounded inputs.
    wide = [a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
            if _is_float(a.dtype) else a for a in args]
    return np.asarray(row.ref(*wide))


def _tolerances(row: Row, dtype: np.dtype) -> tuple[float, float]:
    if dtype == BF16:
        return row.bf16_tol, row.bf16_tol
    if dtype in (F64, C128):
        return row.f64_tol, row.f64_tol
    if _is_float(dtype):
        return row.rtol, row.atol
    return 0.0, 0.0


def _host(x: Any) -> np.ndarray:
    a = np.asarray(x)
    return a.astype(np.float32) if a.dtype == BF16 else a


def _assert_same(actual: Any, expected: Any, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Same shape, dtype and weak_type (when both are numjax values), close values."""
    assert np.shape(actual) == np.shape(expected)
    assert actual.dtype == expected.dtype
    for x in (actual, expected):
        assert hasattr(x, "weak_type")
    assert actual.weak_type == expected.weak_type
    np.testing.assert_allclose(_host(actual), _host(expected), rtol=rtol, atol=atol)


def _valid_shapes(row: Row) -> list[tuple[Shape, ...]]:
    return [s for s in row.shapes if _reduce_shapes_ok(row, s)]


# ---- the tests -----------------------------------------------------------------------------

# One test per (row, dtype), looping over the row's shapes: ~900 tests rather than ~3500 keeps
# the per-test overhead of pytest-xdist out of the suite's runtime.
CASES = [pytest.param(row, dtype, id=f"{row.name}-{dtype.name}")
         for row in ROWS for dtype in row.dtypes]


@pytest.mark.parametrize("row,dtype", CASES)
def test_impl_matches_reference(row: Row, dtype: np.dtype) -> None:
    for shapes in _valid_shapes(row):
        args = _make_args(row, shapes, dtype)
        with _x64(dtype):
            out = row.fn(*[jnp.asarray(a) for a in args])
            where = f"{row.name} at shapes {shapes}"
            assert out.dtype == row.out_dtype(dtype), where
            expected = _reference(row, args)
            assert out.shape == expected.shape, where
            rtol, atol = _tolerances(row, dtype)
            if out.dtype.kind in "iub" or expected.dtype.kind in "iub":
                np.testing.assert_array_equal(np.asarray(out), expected.astype(out.dtype),
                                              err_msg=where)
            else:
                np.testing.assert_allclose(_host(out), expected, rtol=rtol, atol=atol,
                                           err_msg=where)


@pytest.mark.parametrize("row,dtype", CASES)
def test_abstract_eval_and_jit_match_eager(row: Row, dtype: np.dtype) -> None:
    for shapes in _valid_shapes(row):
        args = [jnp.asarray(a) for a in _make_args(row, shapes, dtype)]
        with _x64(dtype):
            out = row.fn(*args)
            aval = numjax.eval_shape(row.fn, *args)
            # eval_shape describes outputs without weak types (as JAX 0.4.30): the traced
            # program's output aval has it.
            weak = numjax.make_jaxpr(row.fn)(*args).out_avals[0].weak_type
            assert (aval.shape, aval.dtype, weak) == (
                out.shape, out.dtype, out.weak_type), f"{row.name} at shapes {shapes}"
            _assert_same(numjax.jit(row.fn)(*args), out)


def _python_scalar(x: np.ndarray) -> Any:
    value = x.item()
    return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[x.dtype.kind](value)


SCALAR_ROWS = [r for r in ROWS if r.scalars]


@pytest.mark.parametrize("row", SCALAR_ROWS, ids=[r.name for r in SCALAR_ROWS])
def test_weak_python_scalar_operands(row: Row) -> None:
    dtype = np.dtype(np.float32) if F32 in row.dtypes else row.dtypes[0]
    shapes = next(s for s in row.shapes if all(s[i] == () for i in row.scalars))
    args = _make_args(row, shapes, dtype)
    arrays = [jnp.asarray(a) for a in args]
    strong = row.fn(*arrays)
    for i in row.scalars if len(args) > 1 else ():
        mixed = list(arrays)
        mixed[i] = _python_scalar(args[i])
        out = row.fn(*mixed)
        _assert_same(out, strong)
        _assert_same(numjax.jit(row.fn)(*mixed), out)
    if set(row.scalars) == set(range(len(args))) and dtype in (F32, I32):
        scalars = [_python_scalar(a) for a in args]
        out = row.fn(*scalars)
        if isinstance(out, int | float | complex):
            # Eager stop_gradient returns its operand itself, as JAX's; staged, it is weak.
            assert row.name == "stop_gradient" and out == scalars[0]
            out = jnp.asarray(out)
        assert out.dtype == strong.dtype
        assert out.weak_type == row.weak_out, f"{row.name} of Python scalars: weak_type"
        np.testing.assert_array_equal(np.asarray(out), np.asarray(strong))
        # (eval_shape describes outputs without weak types, as JAX 0.4.30 does.)
        aval = numjax.make_jaxpr(row.fn)(*scalars).out_avals[0]
        assert aval.weak_type == out.weak_type and aval.dtype == out.dtype
        _assert_same(numjax.jit(row.fn)(*scalars), out)


def _vmap_cases() -> list[Any]:
    cases = []
    for row in ROWS:
        if not row.vmap:
            continue
        dtype = F32 if F32 in row.dtypes else row.dtypes[0]
        valid = [s for s in row.shapes if row.valid(s)]
        nonempty = [s for s in valid if all(np.prod(x) > 0 for x in s)]
        shapes = (nonempty or valid)[-1 if len(nonempty) > 1 else 0]
        n = len(row.args)
        for batched in itertools.product((False, True), repeat=n):
            if not any(batched):
                continue
            for at_end in (False, True):
                tag = "".join("b" if b else "u" for b in batched) + ("-last" if at_end else "")
                cases.append(pytest.param(row, shapes, dtype, batched, at_end,
                                          id=f"{row.name}-{tag}"))
    return cases


@pytest.mark.parametrize("row,shapes,dtype,batched,at_end", _vmap_cases())
def test_vmap_matches_loop(row: Row, shapes: tuple[Shape, ...], dtype: np.dtype,
                           batched: tuple[bool, ...], at_end: bool) -> None:
    size = 3
    per_example = [_make_args(row, shapes, dtype, seed=k) for k in range(size)]
    fixed = per_example[0]
    operands, in_axes = [], []
    for i, b in enumerate(batched):
        if b:
            axis = np.ndim(fixed[i]) if at_end else 0
            operands.append(jnp.asarray(np.stack([ex[i] for ex in per_example], axis)))
            in_axes.append(-1 if at_end else 0)
        else:
            operands.append(jnp.asarray(fixed[i]))
            in_axes.append(None)
    out = numjax.vmap(row.fn, in_axes=tuple(in_axes))(*operands)
    loop = [row.fn(*[jnp.asarray(ex[i] if b else fixed[i]) for i, b in enumerate(batched)])
            for ex in per_example]
    expected = np.stack([np.asarray(o) for o in loop])
    assert out.dtype == loop[0].dtype and out.shape == expected.shape
    rtol, atol = _tolerances(row, dtype)
    np.testing.assert_allclose(_host(out), _host(expected), rtol=rtol, atol=atol)


def _grad_cases(dtype: np.dtype) -> list[Any]:
    cases = []
    for row in ROWS:
        if not row.grad or dtype not in row.dtypes or (dtype == F64 and not row.x64_grad):
            continue
        nonempty = [s for s in row.shapes if all(np.prod(x) > 0 for x in s)
                    and _reduce_shapes_ok(row, s)]
        if not nonempty:
            continue
        # The 0-d case and the largest one.
        chosen = {nonempty[0], max(nonempty, key=lambda s: sum(np.prod(x) for x in s))}
        for shapes in sorted(chosen):
            cases.append(pytest.param(row, shapes, id=f"{row.name}-{shapes}"))
    return cases


def _check_row_grads(row: Row, shapes: tuple[Shape, ...], dtype: np.dtype) -> None:
    args = _make_args(row, shapes, dtype)
    tol = {np.float32: 5e-3, np.float64: 1e-5}
    for positions, order in ((row.grad, 2), (row.first_order, 1)):
        if not positions:
            continue

        def f(*diff: Any, positions: tuple[int, ...] = positions) -> Any:
            full: list[Any] = [jnp.asarray(a) for a in args]
            for i, d in zip(positions, diff, strict=True):
                full[i] = d
            return row.fn(*full)

        check_grads(f, tuple(args[i] for i in positions), order=order, modes=("fwd", "rev"),
                    atol=tol, rtol=tol)


@pytest.mark.parametrize("row,shapes", _grad_cases(F32))
def test_grads(row: Row, shapes: tuple[Shape, ...]) -> None:
    _check_row_grads(row, shapes, F32)


@pytest.mark.slow
@pytest.mark.parametrize("row,shapes", _grad_cases(F64))
def test_grads_x64(row: Row, shapes: tuple[Shape, ...]) -> None:
    with numjax.experimental.enable_x64():
        _check_row_grads(row, shapes, F64)


@pytest.mark.parametrize("dtype", _dt("float32", "int32", "bfloat16", "int64"))
@pytest.mark.parametrize("shape,dimension", [((3,), 0), ((2, 3), 1), ((2, 0), 0)])
def test_iota(dtype: np.dtype, shape: Shape, dimension: int) -> None:
    with _x64(dtype):
        f = lambda: lax.broadcasted_iota(dtype, shape, dimension)
        out = f()
        ramp = np.arange(shape[dimension]).reshape([-1 if i == dimension else 1
                                                    for i in range(len(shape))])
        expected = np.broadcast_to(ramp, shape).astype(dtype)
        assert out.dtype == dtype and not out.weak_type
        np.testing.assert_array_equal(_host(out), _host(expected))
        aval = numjax.eval_shape(f)
        assert (aval.shape, aval.dtype) == (out.shape, out.dtype)
        _assert_same(numjax.jit(f)(), out)
        # Inside transformations iota is a constant.
        batched = numjax.vmap(lambda x: x + lax.convert_element_type(f(), np.float32))(
            jnp.zeros((2, *shape), np.float32))
        np.testing.assert_array_equal(np.asarray(batched)[1], _host(expected))


# The lax modules this table covers. A module joins when its primitives get rows (sorting,
# windowed, convolution, linalg and fft are being written now; their authors add them).
TABLE_MODULES = ("complex_ops", "cumulative", "dot", "dynamic_slicing", "elementwise",
                 "gather_scatter", "padding", "reductions", "special", "structural")


def test_every_lax_primitive_has_a_row() -> None:
    import sys

    covered = {r.primitive or r.name for r in ROWS} | NO_ROW
    modules = [importlib.import_module(f"numjax._src.lax.{m}") for m in TABLE_MODULES]
    modules.append(sys.modules["numjax._src.interpreters.ad"])
    defined = {v.name for m in modules for v in vars(m).values() if isinstance(v, Primitive)}
    missing = sorted(defined - covered)
    assert not missing, f"lax primitives without an op-table row: {missing}"


def test_pow_and_integer_pow_dtype_errors() -> None:
    # JAX 0.4.30: an integer base cannot take a negative static power; pow takes an integer
    # exponent of any width but two inexact dtypes must match.
    with pytest.raises(TypeError, match=r"Integers cannot be raised to negative powers, got "
                       r"integer_pow\(ShapedArray\(int32\[\]\), -1\)"):
        lax.integer_pow(jnp.int32(2), -1)
    assert lax.pow(jnp.float32(2), jnp.int8(3)).dtype == F32
    with pytest.raises(TypeError, match="two inexact dtypes must match"):
        lax.pow(jnp.float32(2), jnp.bfloat16(3))


def test_logistic_keeps_its_tails():
    # JAX 0.4.30's values: 1 / (1 + exp(-x)), not rounded to 0 below x ~ -17
    x = np.float32([-30, -20, -10, -1, 0, 1, 10, 20, 30])
    jax_values = [9.357623589846195e-14, 2.06115369216775e-09, 4.539787187241018e-05,
                  0.2689414322376251, 0.5, 0.7310585975646973, 0.9999545812606812, 1.0, 1.0]
    np.testing.assert_allclose(np.asarray(lax.logistic(x)), jax_values, rtol=3e-7)
    np.testing.assert_allclose(np.asarray(numjax.jit(lax.logistic)(x)), jax_values, rtol=3e-7)
    np.testing.assert_allclose(numjax.grad(lax.logistic)(-20.0), 2.06115369216775e-09, rtol=3e-7)
    assert np.asarray(lax.logistic(np.float32(-100.0))) == 0.0


def test_integer_pow_multiplies_as_xla_does():
    # Bit patterns JAX 0.4.30 gives (eager and jit alike): products by squaring, not np.power
    x = np.float32([0.999, 1.7, -2.3, 3.1, 12.5])
    jax_bits = {
        -3: [1065378432, 1045458231, -1113042180, 1024032191, 973486013],
        3: [1065302936, 1084045132, -1052595192, 1106138103, 1156850688],
        5: [1065269499, 1097018713, -1031751149, 1133454672, 1217725177],
        13: [1065136420, 1148689744, -951786590, 1242892394, 1462071206],
    }
    for y, bits in jax_bits.items():
        for f in (lax.integer_pow, numjax.jit(lax.integer_pow, static_argnums=1)):
            assert np.asarray(f(x, y)).view(np.int32).tolist() == bits, (y, f)
