"""Native lowering rules of elementwise primitives, as scalar expressions (looped over arrays,
or one per element of a small array). The module defining a primitive sets its rule as
`Primitive.native` (`exp_p.native = float_function("np.exp")`); a form a rule cannot lower
raises `Unsupported`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src.compiler.native import (
    Elementwise,
    Unsupported,
    cast,
    literal_text,
)

Expr = Callable[[list[str], Any], str]


def elementwise(expr: Expr, helper: str | None = None) -> Elementwise:
    return Elementwise(expr, helper)


def _in_dtype(eqn: Any, i: int = 0) -> np.dtype[Any]:
    dtype: np.dtype[Any] = np.dtype(eqn.invars[i].aval.dtype)
    return dtype


def _one(eqn: Any) -> str:
    return literal_text(1, eqn.outvars[0].aval.dtype)


def _float_only(fn: str) -> Expr:
    def expr(ins: list[str], eqn: Any) -> str:
        if _in_dtype(eqn).kind != "f":
            raise Unsupported(f"{eqn.primitive.name} of {_in_dtype(eqn)}")
        return f"{fn}({', '.join(ins)})"
    return expr


def _div(ins: list[str], eqn: Any) -> str:
    a, b = ins
    dtype = _in_dtype(eqn)
    if dtype.kind == "f":
        return f"({a} / {b})"
    if dtype.kind == "b":
        raise Unsupported("div of bool")
    # Truncation toward zero; dividing by zero gives -1 (signed) or the maximum (unsigned).
    zero = "-1" if dtype.kind == "i" else str(np.iinfo(dtype).max)
    return (f"(({a} // {b}) + (1 if (({a} % {b}) != 0 and (({a} < 0) != ({b} < 0))) else 0) "
            f"if {b} != 0 else {zero})")


def _rem(ins: list[str], eqn: Any) -> str:
    a, b = ins
    dtype = _in_dtype(eqn)
    if dtype.kind == "f":
        return f"np.fmod({a}, {b})"
    if dtype.kind == "b":
        raise Unsupported("rem of bool")
    # The sign of the dividend (C's %); x rem 0 is x.
    return (f"((({a} % {b}) - ({b} if (({a} % {b}) != 0 and (({a} < 0) != ({b} < 0))) else 0)) "
            f"if {b} != 0 else {a})")


def _max(ins: list[str], eqn: Any) -> str:
    a, b = ins  # np.maximum: a NaN operand wins
    return f"({a} if ({a} >= {b} or {a} != {a}) else {b})"


def _min(ins: list[str], eqn: Any) -> str:
    a, b = ins
    return f"({a} if ({a} <= {b} or {a} != {a}) else {b})"


def _clamp(ins: list[str], eqn: Any) -> str:
    lo, x, hi = ins  # np.minimum(np.maximum(x, lo), hi)
    return _min([_max([x, lo], eqn), hi], eqn)


def _sign(ins: list[str], eqn: Any) -> str:
    (a,) = ins
    kind = _in_dtype(eqn).kind
    if kind == "f":  # keeps a zero's sign and NaN
        return f"({a} if ({a} == 0 or {a} != {a}) else (1.0 if {a} > 0 else -1.0))"
    if kind == "u":
        return f"(1 if {a} > 0 else 0)"
    return f"(1 if {a} > 0 else (-1 if {a} < 0 else 0))"


def _pow(ins: list[str], eqn: Any) -> str:
    a, b = ins
    dtype = _in_dtype(eqn)
    if dtype.kind != "f":
        raise Unsupported("pow of non-float")
    if _in_dtype(eqn, 1) != dtype:
        b = cast(dtype, b)
    return f"np.power({a}, {b})"


def _integer_pow(ins: list[str], eqn: Any) -> str:
    # By squaring, each product rounded, as the NumPy kernel (and XLA) computes it.
    (x,) = ins
    y = eqn.params["y"]
    dtype = eqn.outvars[0].aval.dtype
    if y == 0:
        return _one(eqn)
    n, base = abs(y), x
    acc: str | None = None
    while n:
        if n & 1:
            acc = base if acc is None else cast(dtype, f"{acc} * {base}")
        n >>= 1
        if n:
            base = cast(dtype, f"{base} * {base}")
    assert acc is not None
    return f"({_one(eqn)} / {acc})" if y < 0 else acc


def _logistic(ins: list[str], eqn: Any) -> str:
    (x,) = ins
    dtype = eqn.outvars[0].aval.dtype
    one = _one(eqn)
    t = cast(dtype, f"np.exp(-{x})")
    return f"({one} / {cast(dtype, one + ' + ' + t)})"


def _shift(kind: str) -> Expr:
    def expr(ins: list[str], eqn: Any) -> str:
        a, b = ins
        dtype = _in_dtype(eqn)
        bits = dtype.itemsize * 8
        zero = literal_text(0, dtype)
        if kind == "left":
            return f"({cast(dtype, f'{a} << {b}')} if (0 <= {b} < {bits}) else {zero})"
        if kind == "right_logical":
            unsigned = np.dtype(f"u{dtype.itemsize}")
            shifted = cast(dtype, f"{cast(unsigned, a)} >> {b}")
            return f"({shifted} if (0 <= {b} < {bits}) else {zero})"
        # XLA's arithmetic shift: the bits read as signed, and an amount out of [0, bits)
        # (negative included) fills with the sign bit, as the NumPy tier's kernel does.
        signed = np.dtype(f"i{dtype.itemsize}")
        amount = f"({b} if (0 <= {b} < {bits}) else {bits - 1})"
        return cast(dtype, f"{cast(signed, a)} >> {amount}")
    return expr


def _select_n(ins: list[str], eqn: Any) -> str:
    pred, *cases = ins
    if len(cases) == 1:
        return cases[0]
    if _in_dtype(eqn).kind == "b":
        return f"({cases[1]} if {pred} else {cases[0]})"
    expr = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        expr = f"({cases[i]} if {pred} <= {i} else {expr})"
    return expr


def _convert(ins: list[str], eqn: Any) -> str:
    (x,) = ins
    src = _in_dtype(eqn)
    dst = np.dtype(eqn.params["new_dtype"])
    if dst.kind == "b":
        return f"({x} != 0)"
    if src.kind == "b":
        return f"(1 if {x} else 0)"
    if src.kind == "f" and dst.kind in "iu":
        # XLA's conversion: truncation saturating at the bounds, NaN to 0.
        # Every branch typed as the target (a bare uint64 bound beside int64 ones would
        # unify to float64).
        info = np.iinfo(dst)
        lo, top = float(info.min), float(info.max) + 1.0
        zero, low, high = (cast(dst, str(v)) for v in (0, info.min, info.max))
        return (f"({zero} if {x} != {x} else ({low} if {x} <= {lo!r} else "
                f"({high} if {x} >= {top!r} else {cast(dst, x)})))")
    return x


def float_function(fn: str) -> Elementwise:
    """The rule of a float-only function `fn` (a NumPy ufunc numba compiles)."""
    return elementwise(_float_only(fn))


def operator(op: str) -> Elementwise:
    """The rule of a binary Python operator `op`."""
    return elementwise(lambda ins, eqn: f"({ins[0]} {op} {ins[1]})")


def _tanh(ins: list[str], eqn: Any) -> str:
    if _in_dtype(eqn) == np.float32:
        return f"tanh_f32({ins[0]})"  # vectorizable (native_helpers)
    return _float_only("np.tanh")(ins, eqn)


tanh_rule = elementwise(_tanh, helper="tanh_f32")
neg_rule = elementwise(lambda ins, eqn: f"(-{ins[0]})")
abs_rule = elementwise(lambda ins, eqn: f"abs({ins[0]})")
not_rule = elementwise(lambda ins, eqn: f"(not {ins[0]})" if _in_dtype(eqn).kind == "b"
                       else f"(~{ins[0]})")
rsqrt_rule = elementwise(lambda ins, eqn: f"({_one(eqn)} / np.sqrt({ins[0]}))")
div_rule = elementwise(_div)
rem_rule = elementwise(_rem)
max_rule = elementwise(_max)
min_rule = elementwise(_min)
clamp_rule = elementwise(_clamp)
sign_rule = elementwise(_sign)
pow_rule = elementwise(_pow)
integer_pow_rule = elementwise(_integer_pow)
logistic_rule = elementwise(_logistic)
shift_left_rule = elementwise(_shift("left"))
shift_right_logical_rule = elementwise(_shift("right_logical"))
shift_right_arithmetic_rule = elementwise(_shift("right_arithmetic"))
select_n_rule = elementwise(_select_n)
convert_element_type_rule = elementwise(_convert)
