"""Elementwise jnp functions and reductions against NumPy, for the functions no other test compares
with NumPy (found by auditing `dir(numjax.numpy)` against tests/).

Each row names the function, the operand domain and the accepted dtypes. Values are compared with
NumPy on the same operands; the result dtype must follow JAX's rule with x64 off, which is
NumPy's result dtype with 64-bit types narrowed to 32 bits, except where a row says otherwise
(`inexact`: JAX promotes integer operands to float32 where NumPy keeps or widens them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax.numpy as jnp

Shape = tuple[int, ...]
F32, I32, U8, BOOL = (np.dtype(t) for t in ("float32", "int32", "uint8", "bool"))
_NARROW = {np.dtype("float64"): F32, np.dtype("int64"): I32, np.dtype("uint64"): np.dtype("uint32"),
           np.dtype("complex128"): np.dtype("complex64")}


def jax_dtype(numpy_dtype: Any) -> np.dtype:
    """The dtype JAX gives (x64 off) where NumPy gives `numpy_dtype` for the same operands."""
    d = np.dtype(numpy_dtype)
    return _NARROW.get(d, d)


def make(shape: Shape, dtype: np.dtype, lo: float, hi: float, seed: int = 0) -> np.ndarray:
    """Floats in [lo, hi); integers in [lo, hi]; bools at random."""
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(int(np.ceil(lo)), int(np.floor(hi)) + 1, shape).astype(dtype)
    return rng.uniform(lo, hi, shape).astype(dtype)


def check(actual: Any, expected: Any, dtype: Any = None, rtol: float = 1e-5,
          atol: float = 1e-6) -> None:
    """Values (and the dtype, if given) of `actual` against NumPy's `expected`."""
    if isinstance(expected, tuple | list):
        assert isinstance(actual, tuple | list) and len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            check(a, e, dtype, rtol, atol)
        return
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape, (a.shape, e.shape)
    if dtype is not None:
        assert a.dtype == np.dtype(dtype), (a.dtype, dtype)
    if e.dtype.kind in "biu" and a.dtype.kind in "biu":
        np.testing.assert_array_equal(a, e)
    else:
        np.testing.assert_allclose(a.astype(np.complex128), e.astype(np.complex128), rtol=rtol,
                                   atol=atol)


@dataclasses.dataclass(frozen=True)
class Row:
    """An elementwise function: name in both modules, operand domain, dtypes, tolerance."""

    name: str
    lo: float = -3.0
    hi: float = 3.0
    dtypes: tuple[np.dtype, ...] = (F32, I32)
    rtol: float = 1e-5
    inexact: bool = False  # integer operands promote to float32 (NumPy may keep them integer)
    ref: str | None = None  # NumPy's name where it differs

    def reference(self) -> Callable[..., Any]:
        return getattr(np, self.ref or self.name)


_FLOAT = (F32,)
_INT = (I32, U8, BOOL)
_ROUNDING = (F32, I32, BOOL)

UNARY = [
    Row("absolute"), Row("fabs"), Row("negative"), Row("positive"), Row("sign"),
    Row("square"), Row("reciprocal", 0.5, 4.0, inexact=True),
    Row("sqrt", 0.0, 9.0), Row("cbrt", -8.0, 8.0),
    Row("exp"), Row("exp2"), Row("expm1"), Row("log", 0.1, 9.0), Row("log2", 0.1, 9.0),
    Row("log10", 0.1, 9.0), Row("log1p", -0.9, 9.0),
    Row("sin"), Row("cos"), Row("tan", -1.2, 1.2, rtol=1e-4), Row("sinh"), Row("cosh"),
    Row("tanh"),
    Row("arcsin", -1.0, 1.0), Row("arccos", -1.0, 1.0), Row("arctan"),
    Row("arcsinh"), Row("arccosh", 1.0, 9.0), Row("arctanh", -0.9, 0.9, _FLOAT),
    Row("asin", -1.0, 1.0), Row("acos", -1.0, 1.0), Row("atan"), Row("asinh"),
    Row("acosh", 1.0, 9.0), Row("atanh", -0.9, 0.9, _FLOAT),
    Row("deg2rad", -360, 360), Row("rad2deg"), Row("radians", -360, 360), Row("degrees"),
    # JAX 0.4.30 rounds integers in float (JAX 0.4.31 keeps their dtype); round keeps it.
    Row("floor", dtypes=_ROUNDING, inexact=True), Row("ceil", dtypes=_ROUNDING, inexact=True),
    Row("trunc", dtypes=_ROUNDING, inexact=True), Row("fix", dtypes=_ROUNDING, inexact=True),
    Row("rint", inexact=True), Row("round"),
    Row("around", ref="round"), Row("round_", ref="round"),
    Row("isfinite"), Row("isinf"), Row("isnan"), Row("signbit"), Row("logical_not"),
    Row("real"), Row("imag"), Row("conj"), Row("conjugate"), Row("angle", inexact=True),
    Row("iscomplex"),
    Row("invert", dtypes=_INT), Row("bitwise_not", dtypes=_INT),
    Row("bitwise_invert", dtypes=_INT), Row("bitwise_count", 0, 200, dtypes=(I32, U8)),
]

BINARY = [
    Row("subtract"), Row("divide", 0.5, 4.0, inexact=True),
    Row("true_divide", 0.5, 4.0, inexact=True), Row("floor_divide", 1.0, 7.0),
    Row("mod", 1.0, 7.0), Row("remainder", 1.0, 7.0), Row("fmod", 1.0, 7.0),
    Row("power", 0.5, 3.0), Row("pow", 0.5, 3.0, ref="power"),
    Row("arctan2"), Row("atan2", ref="arctan2"), Row("hypot"), Row("logaddexp"),
    Row("copysign", inexact=True), Row("nextafter", dtypes=_FLOAT),
    Row("equal"), Row("not_equal"), Row("greater"), Row("greater_equal"), Row("less"),
    Row("less_equal"), Row("logical_and"), Row("logical_or"), Row("logical_xor"),
    Row("bitwise_and", dtypes=_INT), Row("bitwise_or", dtypes=_INT),
    Row("bitwise_xor", dtypes=_INT),
    Row("left_shift", 0, 5, dtypes=(I32, U8)), Row("right_shift", 0, 5, dtypes=(I32, U8)),
    Row("bitwise_left_shift", 0, 5, dtypes=(I32, U8)),
    Row("bitwise_right_shift", 0, 5, dtypes=(I32, U8)),
]

_SHAPES = [(5,), (2, 3)]


def _expected_dtype(row: Row, operand: np.dtype, numpy_result: np.dtype) -> np.dtype:
    if row.inexact and operand.kind in "biu":
        return F32
    return jax_dtype(numpy_result)


def _reference(row: Row, *args: Any) -> Any:
    if row.inexact:
        args = tuple(np.asarray(a).astype(np.float32) if np.asarray(a).dtype.kind in "biu"
                     else a for a in args)
    return row.reference()(*args)


@pytest.mark.parametrize("shape", _SHAPES, ids=str)
@pytest.mark.parametrize("row", UNARY, ids=lambda r: r.name)
def test_unary_against_numpy(row: Row, shape: Shape) -> None:
    for dtype in row.dtypes:
        x = make(shape, dtype, row.lo, row.hi)
        expected = _reference(row, x)
        check(getattr(jnp, row.name)(x), expected,
              _expected_dtype(row, dtype, np.asarray(expected).dtype), row.rtol)


@pytest.mark.parametrize("shapes", [((5,), (5,)), ((2, 3), (3,)), ((2, 1), (1, 4))], ids=str)
@pytest.mark.parametrize("row", BINARY, ids=lambda r: r.name)
def test_binary_against_numpy(row: Row, shapes: tuple[Shape, Shape]) -> None:
    for dtype in row.dtypes:
        x = make(shapes[0], dtype, row.lo, row.hi, seed=1)
        y = make(shapes[1], dtype, row.lo, row.hi, seed=2)
        expected = _reference(row, x, y)
        check(getattr(jnp, row.name)(x, y), expected,
              _expected_dtype(row, dtype, np.asarray(expected).dtype), row.rtol)


@pytest.mark.parametrize("row", BINARY, ids=lambda r: r.name)
def test_binary_weak_python_scalar(row: Row) -> None:
    """A Python scalar operand is weakly typed: the array operand's dtype wins (as NumPy 2's
    NEP 50 also has it for same-kind scalars)."""
    for dtype in row.dtypes:
        if dtype.kind == "b":
            continue
        x = make((2, 3), dtype, row.lo, row.hi, seed=3)
        scalar = 2.5 if dtype.kind == "f" else 2
        fn = getattr(jnp, row.name)
        for args in ((x, scalar), (scalar, x)):
            expected = _reference(row, *args)
            out = fn(*args)
            check(out, expected, _expected_dtype(row, dtype, np.asarray(expected).dtype),
                  row.rtol)
            assert not out.weak_type


def test_divmod_against_numpy() -> None:
    for dtype in (F32, I32):
        x, y = make((2, 3), dtype, -7, 7, 1), make((3,), dtype, 1, 4, 2)
        check(jnp.divmod(x, y), np.divmod(x, y), dtype)
        check(jnp.divmod(x, 3), np.divmod(x, 3), dtype)


def test_ldexp_frexp_integer_exponent() -> None:
    x = make((2, 3), F32, -3, 3)
    e = make((3,), I32, -4, 4, 1)
    check(jnp.ldexp(x, e), np.ldexp(x, e), F32)


# name -> (function of (module, x, axis), dtypes, expected dtype for int32 operands if not
# NumPy's narrowed); every row runs for axis in (None, 0, -1) over two shapes.
Reduction = tuple[Callable[..., Any], tuple[np.dtype, ...], np.dtype | None]
REDUCTIONS: dict[str, Reduction] = {
    "all": (lambda m, x, ax: m.all(x, axis=ax), (F32, I32, BOOL), None),
    "any": (lambda m, x, ax: m.any(x, axis=ax), (F32, I32, BOOL), None),
    "amax": (lambda m, x, ax: m.amax(x, axis=ax), (F32, I32), None),
    "amin": (lambda m, x, ax: m.amin(x, axis=ax, keepdims=True), (F32, I32), None),
    "argmax": (lambda m, x, ax: m.argmax(x, axis=ax), (F32, I32), None),
    "argmin": (lambda m, x, ax: m.argmin(x, axis=ax, keepdims=True), (F32, I32), None),
    "prod": (lambda m, x, ax: m.prod(x, axis=ax), (F32, I32, BOOL), None),
    "std": (lambda m, x, ax: m.std(x, axis=ax), (F32, I32), None),
    "std_ddof": (lambda m, x, ax: m.std(x, axis=ax, ddof=1, keepdims=True), (F32,), None),
    "var": (lambda m, x, ax: m.var(x, axis=ax), (F32, I32), None),
    "var_ddof": (lambda m, x, ax: m.var(x, axis=ax, ddof=1), (F32,), None),
    "average": (lambda m, x, ax: m.average(x, axis=ax), (F32, I32), None),
    "average_weights": (lambda m, x, ax: m.average(x, axis=ax, weights=np.abs(x) + 1),
                        (F32, I32), None),
    "cumprod": (lambda m, x, ax: m.cumprod(x, axis=ax), (F32, I32), None),
    "cumulative_sum": (lambda m, x, ax: m.cumulative_sum(x, axis=-1 if ax is None else ax),
                       (F32, I32, BOOL), None),
    "cumulative_sum_initial": (lambda m, x, ax: m.cumulative_sum(
        x, axis=0 if ax is None else ax, include_initial=True), (F32, I32), None),
    "nanargmax": (lambda m, x, ax: m.nanargmax(x, axis=ax), (F32,), None),
    "nanargmin": (lambda m, x, ax: m.nanargmin(x, axis=ax), (F32,), None),
    "percentile": (lambda m, x, ax: m.percentile(x, 30.0, axis=ax), (F32, I32), None),
    "percentile_q": (lambda m, x, ax: m.percentile(x, np.array([10.0, 90.0]), axis=ax,
                                                   method="nearest"), (F32, I32), F32),
    "trace": (lambda m, x, ax: m.trace(x, offset=0 if ax is None else 1), (F32, I32), None),
}


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)], ids=str)
@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_against_numpy(name: str, axis: int | None, shape: Shape) -> None:
    fn, dtypes, int_dtype = REDUCTIONS[name]
    for dtype in dtypes:
        x = make(shape, dtype, -3, 3)
        if name.startswith("nanarg"):
            x.flat[1] = np.nan
        expected = fn(np, x, axis)
        want = int_dtype if int_dtype is not None and dtype == I32 else jax_dtype(
            np.asarray(expected).dtype)
        check(fn(jnp, x, axis), expected, want, rtol=1e-5, atol=1e-5)
