"""jnp's elementwise functions: NumPy's broadcasting and JAX's dtype promotion over lax.

Binary functions take a fast path when both operands are Arrays of one dtype and rank, or an
Array and a Python scalar that keeps the Array's dtype: lax's own broadcasting then matches
NumPy's and no promotion is needed (the eager-op budget).
"""

from __future__ import annotations

import functools
import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import config, dtypes
from numjax._src.api.custom_derivatives import custom_jvp
from numjax._src.api.jit import jit
from numjax._src.core import extended
from numjax._src.core.avals import ShapedArray, check_args_abstractify, get_aval
from numjax._src.core.trace import running_eagerly
from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.lax.special import bitcast_convert_type, integer_pow_array
from numjax._src.lax.special import round as lax_round
from numjax._src.numpy.util import (
    check_arraylike,
    ensure_array,
    forwards_operands,
    is_key_array,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_shapes,
    staged_constant,
    staging_program,
)
from numjax._src.runtime import placement, transfer_guard
from numjax._src.runtime.array import ArrayImpl, make_array
from numjax._src.typing import Array

_BOOL = np.dtype(bool)


# The jnp binary functions whose rules for typed key arrays the key array type carries, as its
# Python operators.
_KEY_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "equal": operator.eq, "not_equal": operator.ne, "add": operator.add,
    "subtract": operator.sub, "multiply": operator.mul, "true_divide": operator.truediv,
    "floor_divide": operator.floordiv, "remainder": operator.mod,
    "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
    "less": operator.lt, "less_equal": operator.le, "greater": operator.gt,
    "greater_equal": operator.ge,
}


def _binary(name: str, op: Callable[[Array, Array], Array],
            promote: Callable[..., list[Array]] = promote_args,
            fast_op: Callable[[Array, Array], Array] | None = None,
            fast_kinds: str = "iufc") -> Callable[[Array, Array], Array]:
    """`fast_op` (the lax function for operands of one dtype and rank) skips promotion when
    both operands are Arrays of a dtype kind in `fast_kinds`, or one is such an Array and the
    other a Python scalar that JAX's weak typing converts to the Array's dtype."""

    def fn(x1: Array, x2: Array, /) -> Array:
        if (type(x1) is ArrayImpl and x1._aval is None
                or type(x2) is ArrayImpl and x2._aval is None) and (
                placement.split_across_devices(x1) or placement.split_across_devices(x2)):
            # On Arrays split across devices the operation runs as JAX's jitted jnp function
            # does: its errors name it (`x1 of jax.numpy.add`), its results keep the split.
            return _split_jit(fn)(x1, x2)
        if fast_op is not None:
            t1, t2 = type(x1), type(x2)
            if t1 is ArrayImpl:
                if t2 is ArrayImpl:
                    b1, b2 = x1._buf, x2._buf
                    dt = b1.dtype
                    if (dt is b2.dtype and b1.ndim == b2.ndim and dt is not _BOOL
                            and dt.kind in fast_kinds):
                        return fast_op(x1, x2)
                elif t2 is float or t2 is int:
                    scalar = _weak_scalar(x2, x1._buf.dtype, fast_kinds)
                    if scalar is not None:
                        return fast_op(x1, scalar)
            elif t2 is ArrayImpl and (t1 is float or t1 is int):
                scalar = _weak_scalar(x1, x2._buf.dtype, fast_kinds)
                if scalar is not None:
                    return fast_op(scalar, x2)
        key_op = _KEY_OPERATORS.get(name)
        if key_op is not None and is_key_array(x1):
            # A typed key array's own operators are JAX's rules for keys (equality compares
            # the keys, arithmetic raises JAX's TypeError).
            return key_op(x1, x2)
        if key_op is not None and is_key_array(x2):
            raise TypeError(f"{name} does not accept dtypes "
                            f"{dtypes.dtype(x1, canonicalize=True)}, {x2.dtype}.")
        x1, x2 = promote(name, x1, x2)
        return op(x1, x2)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name} with NumPy broadcasting and JAX's type promotion."
    return fn


@functools.cache
def _split_jit(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` jitted under JAX's name for it (`jax.numpy.add`)."""
    def call(x1: Array, x2: Array, /) -> Array:
        return fn(x1, x2)  # type: ignore[no-any-return]

    call.__name__ = call.__qualname__ = f"jax.numpy.{fn.__name__}"
    jitted = jit(call)

    def run(x1: Array, x2: Array) -> Array:
        # Jitted under disable_jit too, as JAX's eager operations keep the split there.
        with config.disable_jit(False):
            return jitted(x1, x2)  # type: ignore[no-any-return]

    return run


# Per dtype: the weak scalar aval, and for integers the range a Python int must fit.
_weak_avals: dict[np.dtype, ShapedArray] = {}
_int_ranges: dict[np.dtype, tuple[int, int]] = {}


def _weak_scalar(value: int | float, dtype: np.dtype, kinds: str) -> Any:
    """A Python scalar as the weakly typed 0-d Array JAX's promotion makes of it next to an
    Array of `dtype`, or None where promotion changes the dtype (an int Array and a float,
    bool Arrays) or the int does not fit (the slow path raises JAX's OverflowError)."""
    kind = dtype.kind
    if kind not in kinds or (kind in "iu" and type(value) is float):
        return None
    if type(value) is int:
        # Out of the dtype's range (to wrap, or, outside the default integer type, JAX's
        # OverflowError): the slow path.
        lo_hi = _int_ranges.get(dtype)
        if lo_hi is None:
            info = np.iinfo(dtype) if kind in "iu" else np.iinfo(np.int32)
            lo_hi = _int_ranges[dtype] = (max(int(info.min), -2**31), min(int(info.max),
                                                                          2**31 - 1))
        if not lo_hi[0] <= value <= lo_hi[1]:
            return None
    if transfer_guard._in_use:
        transfer_guard.host_operand(value, dtypes.canonicalize_dtype(type(value)))
    aval = _weak_avals.get(dtype)
    if aval is None:
        aval = _weak_avals[dtype] = ShapedArray((), dtype, True)
    return make_array(dtype.type(value), aval)


def _unary(name: str, op: Callable[[Array], Array],
           promote: Callable[..., list[Array]] = promote_args_inexact
           ) -> Callable[[Array], Array]:
    def fn(x: Array, /) -> Array:
        if type(x) is ArrayImpl and promote is promote_args_inexact and x._buf.dtype.kind in "fc":
            return op(x)
        (x,) = promote(name, x)
        return op(x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name}."
    return fn


def _add(x: Array, y: Array) -> Array:
    return lax.bitwise_or(x, y) if get_aval(x).dtype == _BOOL else lax.add(x, y)


def is_boolean(x: Any) -> bool:
    """Whether an operand as given (before promotion) is a boolean array or scalar."""
    return type(x) is bool or getattr(x, "dtype", None) == _BOOL


def _promote_multiply(name: str, x1: Array, x2: Array) -> list[Array]:
    """`promote_args`, except that a boolean operand already of the result's shape multiplying
    a number stays boolean, for `_multiply` to select with."""
    p1, p2 = promote_args(name, x1, x2)
    a1, a2 = get_aval(p1), get_aval(p2)
    if a1.dtype == _BOOL:
        return [p1, p2]
    shape = np.broadcast_shapes(a1.shape, a2.shape)
    for i, x in enumerate((x1, x2)):
        if is_boolean(x) and np.shape(x) == shape:
            mask = ensure_array(x)
            return [mask, p2] if i == 0 else [p1, mask]
    return [p1, p2]


def _multiply(x: Array, y: Array) -> Array:
    x_bool, y_bool = get_aval(x).dtype == _BOOL, get_aval(y).dtype == _BOOL
    if x_bool and y_bool:
        return lax.bitwise_and(x, y)
    if x_bool or y_bool:
        # A number times a boolean of the result's shape: JAX's compiled multiply converts the
        # boolean in the same program, and XLA rewrites `x * convert(b)` as `select(b, x, 0)`,
        # so `inf * False` is 0 and `-2.0 * False` is +0.0 (JAX 0.4.30). A boolean that must
        # be broadcast first keeps the IEEE product (`[inf, 1.0] * False` is [nan, 0]).
        mask, value = (x, y) if x_bool else (y, x)
        shape = get_aval(mask).shape
        if get_aval(value).shape != shape:
            value = lax.broadcast_in_dim(value, shape, tuple(
                range(len(shape) - get_aval(value).ndim, len(shape))))
        return lax.select(mask, value, lax.full_like(value, 0))
    return lax.mul(x, y)


def _subtract(x: Array, y: Array) -> Array:
    if get_aval(x).dtype == _BOOL:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    return lax.sub(x, y)


def _max(x: Array, y: Array) -> Array:
    return lax.max(x, y)


def _min(x: Array, y: Array) -> Array:
    return lax.min(x, y)


add = _binary("add", _add, fast_op=lax.add)
subtract = _binary("subtract", _subtract, fast_op=lax.sub)
multiply = _binary("multiply", _multiply, _promote_multiply, fast_op=lax.mul)
true_divide = _binary("true_divide", lax.div, promote_args_inexact, fast_op=lax.div,
                      fast_kinds="fc")
divide = true_divide
maximum = _binary("maximum", _max, fast_op=lax.max)
minimum = _binary("minimum", _min, fast_op=lax.min)
equal = _binary("equal", lax.eq, fast_op=lax.eq)
not_equal = _binary("not_equal", lax.ne, fast_op=lax.ne)


def _ordered(compare: Callable[[Array, Array], Array]) -> Callable[[Array, Array], Array]:
    """`compare` extended to complex operands as JAX orders them: lexicographically, by real
    part, then imaginary part."""

    def fn(x: Array, y: Array) -> Array:
        if get_aval(x).dtype.kind != "c":
            return compare(x, y)
        rx, ry = lax.real(x), lax.real(y)
        return lax.select(lax.eq(rx, ry), compare(lax.imag(x), lax.imag(y)), compare(rx, ry))

    return fn


less = _binary("less", _ordered(lax.lt), fast_op=lax.lt, fast_kinds="iuf")
less_equal = _binary("less_equal", _ordered(lax.le), fast_op=lax.le, fast_kinds="iuf")
greater = _binary("greater", _ordered(lax.gt), fast_op=lax.gt, fast_kinds="iuf")
greater_equal = _binary("greater_equal", _ordered(lax.ge), fast_op=lax.ge, fast_kinds="iuf")
arctan2 = _binary("arctan2", lax.atan2, promote_args_inexact)
nextafter = _binary("nextafter", lax.nextafter, promote_args_inexact)


# Float operands fail in lax, with JAX's text ("and does not accept dtype float32 at
# position 0. ...").
bitwise_and = _binary("bitwise_and", lax.bitwise_and)
bitwise_or = _binary("bitwise_or", lax.bitwise_or)
bitwise_xor = _binary("bitwise_xor", lax.bitwise_xor)


def _right_shift(x: Array, y: Array) -> Array:
    if get_aval(x).dtype.kind == "u":
        return lax.shift_right_logical(x, y)
    return lax.shift_right_arithmetic(x, y)


# Shifts promote numerically, as JAX's do: booleans shift as int32 (True << True is 2).
left_shift = _binary("left_shift", lax.shift_left, promote_args_numeric)
right_shift = _binary("right_shift", _right_shift, promote_args_numeric)


def _logical(name: str, op: Callable[[Array, Array], Array]) -> Callable[[Array, Array], Array]:
    def fn(x1: Array, x2: Array, /) -> Array:
        if type(x1) is not ArrayImpl or type(x2) is not ArrayImpl:
            _read_logical_operands(x1, x2)
        check_arraylike(name, x1, x2)
        x1, x2 = promote_args(name, _to_bool(x1), _to_bool(x2))
        return op(x1, x2)

    fn.__name__ = name
    return transfer_guard.entry_point(fn)  # its zero is a constant of its own


def _read_logical_operands(*args: Any) -> None:
    """JAX compiles its logical functions, which read their operands' dtypes first: jit's
    errors, then the dtype's ("Invalid argument to dtype: None.")."""
    check_args_abstractify(args)
    for x in args:
        dtypes.dtype(x)


def _to_bool(x: Array) -> Array:
    aval = get_aval(x)
    if aval.dtype == _BOOL:
        return x
    return lax.ne(*promote_args("ne", x, 0))


logical_and = _logical("logical_and", lax.bitwise_and)
logical_or = _logical("logical_or", lax.bitwise_or)
logical_xor = _logical("logical_xor", lax.bitwise_xor)


def logical_not(x: Array, /) -> Array:
    if type(x) is not ArrayImpl:
        _read_logical_operands(x)
    return lax.bitwise_not(_to_bool(x))


def bitwise_not(x: Array, /) -> Array:
    (x,) = promote_args("bitwise_not", x)
    return lax.bitwise_not(x)


def invert(x: Array, /) -> Array:
    (x,) = promote_args("invert", x)
    return lax.bitwise_not(x)


bitwise_invert = bitwise_not

sin = _unary("sin", lax.sin)
cos = _unary("cos", lax.cos)
tan = _unary("tan", lax.tan)
arcsin = _unary("arcsin", lax.asin)
arccos = _unary("arccos", lax.acos)
arctan = _unary("arctan", lax.atan)
sinh = _unary("sinh", lax.sinh)
cosh = _unary("cosh", lax.cosh)
tanh = _unary("tanh", lax.tanh)
arcsinh = _unary("arcsinh", lax.asinh)


def _arccosh(x: Array) -> Array:
    # lax.acosh's complex branch (XLA's) has a negative real part where NumPy's principal
    # value has a positive one: JAX's jnp.arccosh negates those results, and so their
    # derivatives.
    out = lax.acosh(x)
    if get_aval(out).dtype.kind != "c":
        return out
    return lax.select(lax.lt(lax.real(out), lax.full_like(lax.real(out), 0)), lax.neg(out), out)


arccosh = _unary("arccosh", _arccosh)
arctanh = _unary("arctanh", lax.atanh)
exp = _unary("exp", lax.exp)
exp2 = _unary("exp2", lax.exp2)
expm1 = _unary("expm1", lax.expm1)
log = _unary("log", lax.log)
log1p = _unary("log1p", lax.log1p)
sqrt = _unary("sqrt", lax.sqrt)
cbrt = _unary("cbrt", lax.cbrt)
asin, acos, atan = arcsin, arccos, arctan
asinh, acosh, atanh = arcsinh, arccosh, arctanh
atan2 = arctan2


def log2(x: Array, /) -> Array:
    (x,) = promote_args_inexact("log2", x)
    return lax.div(lax.log(x), lax.log(lax._convert_element_type(2, get_aval(x).dtype)))


def log10(x: Array, /) -> Array:
    (x,) = promote_args_inexact("log10", x)
    return lax.div(lax.log(x), lax.log(lax._convert_element_type(10, get_aval(x).dtype)))


def negative(x: Array, /) -> Array:
    """-x; bool is refused (by lax.neg), as in JAX.

    >>> import numjax.numpy as jnp
    >>> negative(jnp.array([1, -2]))
    Array([-1,  2], dtype=int32)
    """
    if isinstance(x, extended.array_types):
        key_array: Any = x
        return -key_array  # the key array's operator raises lax.neg's error, as JAX's
    (x,) = promote_args("negative", x)
    return lax.neg(x)


@forwards_operands
def positive(x: Array, /) -> Array:
    """`x` itself, as an array of its own dtype (bool stays bool).

    >>> import numjax.numpy as jnp
    >>> positive(jnp.array([True, False]))
    Array([ True, False], dtype=bool)
    """
    check_arraylike("positive", x)
    return ensure_array(x)


@forwards_operands
def absolute(x: Array, /) -> Array:
    """|x|; bool and unsigned values are returned unchanged, complex gives the real modulus.

    >>> import numjax.numpy as jnp
    >>> absolute(jnp.array([-2, 3]))
    Array([2, 3], dtype=int32)
    """
    check_arraylike("absolute", x)
    x = ensure_array(x)
    if get_aval(x).dtype.kind in "ub":
        return x
    return lax.abs(x)


abs = absolute


def sign(x: Array, /) -> Array:
    """-1, 0 or 1 by the sign of x (the zero's sign kept: sign(-0.0) is -0.0; NaN for NaN);
    x / |x| for complex. Bool is refused, as lax.sign does.

    >>> import numjax.numpy as jnp
    >>> sign(jnp.array([-2., 0., 3.]))
    Array([-1.,  0.,  1.], dtype=float32)
    """
    (x,) = promote_args("sign", x)
    return lax.sign(x)


def square(x: Array, /) -> Array:
    (x,) = promote_args_numeric("square", x)
    return lax.square(x)


def reciprocal(x: Array, /) -> Array:
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.div(lax._convert_element_type(1, get_aval(x).dtype, get_aval(x).weak_type), x)


# JAX 0.4.30 promotes integer and boolean operands of floor, ceil and trunc (and so fix) to
# float; keeping their dtype came in JAX 0.4.31.
def floor(x: Array, /) -> Array:
    (x,) = promote_args_inexact("floor", x)
    return lax.floor(x)


def ceil(x: Array, /) -> Array:
    (x,) = promote_args_inexact("ceil", x)
    return lax.ceil(x)


def trunc(x: Array, /) -> Array:
    (x,) = promote_args_inexact("trunc", x)
    return lax.select(lax.lt(x, lax._convert_element_type(0, get_aval(x).dtype)),
                      lax.ceil(x), lax.floor(x))


def isfinite(x: Array, /) -> Array:
    (x,) = promote_args("isfinite", x)
    dt = get_aval(x).dtype
    if dt.kind == "c":  # both parts finite
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    if dt.kind == "f" or dt == dtypes.bfloat16:
        return lax.is_finite(x)
    if get_aval(x).ndim == 0 and staging_program():
        # JAX's isfinite is an inlined jit whose constant 0-d result comes back out of it as
        # a NumPy array under jit (vmapped or not), not a tracer: so `v[jnp.isfinite(v)]` of
        # a 0-d integer v is a concrete mask there.
        return staged_constant(True, lax.full_like(x, True, _BOOL))  # type: ignore[no-any-return]
    return lax.full_like(x, True, _BOOL)


def isnan(x: Array, /) -> Array:
    (x,) = promote_args("isnan", x)
    return lax.ne(x, x)


def isinf(x: Array, /) -> Array:
    (x,) = promote_args("isinf", x)
    dt = get_aval(x).dtype
    if dt.kind not in "fc" and dt != dtypes.bfloat16:
        return lax.full_like(x, False, _BOOL)
    return lax.eq(lax.abs(x), lax._convert_element_type(np.inf, lax.abs(x).dtype))


def power(x1: Array, x2: Array, /) -> Array:
    """`x1 ** x2`. A concrete integer exponent (a Python or NumPy int, a 0-d integer array)
    is `lax.integer_pow`, which refuses a negative power of integers; an integer base with an
    array exponent is JAX's binary exponentiation (`lax.integer_pow_array`); a float base
    keeps an integer exponent array as it is (its derivative at 0 is then defined)."""
    exponent = _static_exponent(x2)
    if exponent is not None:
        (x1,) = promote_args_numeric("power", x1)
        if get_aval(x1).dtype == _BOOL:
            raise TypeError("power is not supported for boolean arguments")
        return lax.integer_pow(x1, exponent)
    if dtypes.dtype(x1, canonicalize=True).kind in "fc" and \
            dtypes.dtype(x2, canonicalize=True).kind in "iu":
        # JAX does not promote an integer exponent of a float base: pow(x, n), n int (and
        # stages no conversion of it).
        base, exp = promote_shapes("power", ensure_array(x1), ensure_array(x2))
        return lax.pow(base, exp)
    p1, p2 = promote_args_numeric("power", x1, x2)
    dt = get_aval(p1).dtype
    if dt.kind in "iu":
        return _integer_power(p1, p2)
    if dt == _BOOL:
        raise TypeError("power is not supported for boolean arguments")
    return lax.pow(p1, p2)


def _static_exponent(x2: Any) -> int | None:
    """x2 as a Python int when JAX reads it as a concrete integer exponent: a Python or NumPy
    integer, a 0-d integer NumPy array, or a 0-d integer Array outside a recording trace (JAX
    stages jnp.array(2) made inside jit, so the exponent is traced there)."""
    if isinstance(x2, bool):
        return None
    if isinstance(x2, int | np.integer):
        return int(x2)
    if isinstance(x2, np.ndarray) or (type(x2) is ArrayImpl and running_eagerly()):
        aval = get_aval(x2)
        if aval.shape == () and aval.dtype.kind in "iu":
            return int(np.asarray(x2))
    return None


def _integer_power(x: Array, y: Array) -> Array:
    # Exponentiation by squaring over the bits of y (negative exponents give 0 except for 1).
    return integer_pow_array(x, y)


pow = power


def _nonzero_divisor(x2: Array) -> Array:
    """An integer divisor with its zeros made ones, as JAX's remainder and fmod take it: an
    integer remainder by zero is 0 (XLA's would be the dividend)."""
    dt = get_aval(x2).dtype
    if dt.kind not in "iu":
        return x2
    return lax.select(lax.eq(x2, lax._convert_element_type(0, dt)),
                      lax.full_like(x2, 1), x2)


def remainder(x1: Array, x2: Array, /) -> Array:
    """Python-style modulo: the result has the sign of the divisor.

    >>> import numjax.numpy as jnp
    >>> remainder(jnp.array([-3, 7]), jnp.array([2, 0]))
    Array([1, 0], dtype=int32)
    """
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    x2 = _nonzero_divisor(x2)
    zero = lax._convert_element_type(0, get_aval(x1).dtype)
    r = lax.rem(x1, x2)
    fix = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(x2, zero)))
    return lax.select(fix, lax.add(r, x2), r)


mod = remainder


def fmod(x1: Array, x2: Array, /) -> Array:
    check_arraylike("fmod", x1, x2)
    # As JAX: zero divisors become ones only when the operands' own result type is an integer;
    # booleans, made int32 after, keep the remainder by zero (the dividend): fmod(True, False)
    # is 1.
    integer = dtypes.issubdtype(dtypes.result_type(x1, x2), np.integer)
    x1, x2 = promote_args_numeric("fmod", x1, x2)
    return lax.rem(x1, _nonzero_divisor(x2) if integer else x2)


def floor_divide(x1: Array, x2: Array, /) -> Array:
    """Python's `//`: the quotient rounded toward negative infinity.

    >>> import numjax.numpy as jnp
    >>> floor_divide(jnp.array([1.0, -7.0]), jnp.array([0.1, 2.0]))
    Array([ 9., -4.], dtype=float32)
    """
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    dt = get_aval(x1).dtype
    if dt.kind == "u":
        return lax.div(x1, x2)
    if dt.kind == "i":
        # Truncated quotient, one less where the signs differ and the division is inexact
        # (a zero divisor's "quotient", XLA's -1, too: x // 0 is -2 for x != 0, as in JAX).
        zero = lax._convert_element_type(0, dt)
        q = lax.div(x1, x2)
        fix = lax.bitwise_and(lax.ne(lax.sign(x1), lax.sign(x2)),
                              lax.ne(lax.rem(x1, x2), zero))
        one = lax._convert_element_type(1, dt, get_aval(x1).weak_type)
        return lax.select(fix, lax.sub(q, one), q)
    if dt.kind == "c":
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


def _float_divmod(x1: Array, x2: Array) -> tuple[Array, Array]:
    """CPython's float divmod: (x1 - fmod(x1, x2)) / x2 is an integer up to rounding, moved
    down by one where the remainder's sign is not the divisor's, then rounded. Unlike
    floor(x1 / x2) it agrees with Python (1 // 0.1 is 9, since 0.1 is slightly above 1/10)."""
    dt = get_aval(x1).dtype
    zero = lax._convert_element_type(0, dt)
    mod = lax.rem(x1, x2)
    div = lax.div(lax.sub(x1, mod), x2)
    fix = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.sign(x2), lax.sign(mod)))
    mod = lax.select(fix, lax.add(mod, x2), mod)
    div = lax.select(fix, lax.sub(div, lax._convert_element_type(1, dt)), div)
    return lax.round(div, lax.RoundingMethod.AWAY_FROM_ZERO), mod


@custom_jvp
@transfer_guard.entry_point
def logaddexp(x1: Array, x2: Array, /) -> Array:
    """log(exp(x1) + exp(x2)) without overflow; its derivative is JAX's custom one (NaN at a
    NaN operand, an infinite operand's share taken as 1).

    >>> logaddexp(1.0, 2.0)
    Array(2.3132617, dtype=float32, weak_type=True)
    """
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    return _log_add_exp(False)(x1, x2)


def _log_add_exp2(x1: Array, x2: Array) -> Array:
    """jnp.logaddexp2 of promoted operands (its custom derivative included)."""
    return _log_add_exp(True)(x1, x2)


@functools.cache
def _log_add_exp(base2: bool) -> Callable[[Array, Array], Array]:
    """logaddexp (or logaddexp2) as a custom_jvp function of promoted operands, as JAX
    defines it. Built on first use: custom_jvp lives in the api layer above this one."""
    exp = lax.exp2 if base2 else lax.exp

    def value(x1: Array, x2: Array) -> Array:
        dtype = get_aval(x1).dtype
        ln2 = lax._convert_element_type(np.log(2), dtype)

        def log1p(x: Array) -> Array:
            return lax.div(lax.log1p(x), ln2) if base2 else lax.log1p(x)

        amax = lax.max(x1, x2)
        if dtype.kind != "c":
            delta = lax.sub(x1, x2)
            out = lax.add(amax, log1p(exp(lax.neg(lax.abs(delta)))))
            # NaNs, or infinities of one sign: their sum is the answer
            return lax.select(lax.ne(delta, delta), lax.add(x1, x2), out)
        # complex: the smaller operand relative to the larger (lax.max orders complex numbers
        # lexicographically), and the phase wrapped into one period
        delta = lax.sub(lax.add(x1, x2), lax.mul(amax, lax._convert_element_type(2, dtype)))
        out = lax.add(amax, log1p(exp(delta)))
        period = np.pi / np.log(2) if base2 else np.pi
        return lax.complex(lax.real(out), _wrap_between(lax.imag(out), period))

    def jvp(primals: tuple[Array, Array], tangents: tuple[Array, Array]
            ) -> tuple[Array, Array]:
        x1, x2 = primals
        t1, t2 = (lax._convert_element_type(t, get_aval(x1).dtype) for t in tangents)
        out = fn(x1, x2)
        return out, lax.add(lax.mul(t1, exp(lax.sub(_replace_inf(x1), _replace_inf(out)))),
                            lax.mul(t2, exp(lax.sub(_replace_inf(x2), _replace_inf(out)))))

    fn = custom_jvp(value)
    fn.defjvp(jvp)
    return fn  # type: ignore[no-any-return]


def _replace_inf(x: Array) -> Array:
    """x with +inf (real part) replaced by 0: an infinite operand's exp ratio becomes 1."""
    real = lax.real(x) if get_aval(x).dtype.kind == "c" else x
    inf = lax.eq(real, lax._convert_element_type(np.inf, get_aval(real).dtype))
    return lax.select(inf, lax.full_like(x, 0), x)


def _wrap_between(x: Array, a: float) -> Array:
    """x wrapped into [-a, a)."""
    dtype = get_aval(x).dtype
    two_a = lax._convert_element_type(2 * a, dtype)
    rem = lax.rem(lax.add(x, lax._convert_element_type(a, dtype)), two_a)
    rem = lax.select(lax.lt(rem, lax.full_like(rem, 0)), lax.add(rem, two_a), rem)
    return lax.sub(rem, lax._convert_element_type(a, dtype))


def _replace_posinf(x: Array) -> Array:
    """x with +inf (in the real part) replaced by 0: keeps inf - inf out of the tangents."""
    real = lax.real(x) if get_aval(x).dtype.kind == "c" else x
    return lax.select(lax.eq(real, lax.full_like(real, np.inf)), lax.full_like(x, 0), x)


def _binary_jvp_args(name: str, primals: Any, tangents: Any) -> list[Array]:
    """x1, x2, t1, t2 in the operands' promoted inexact dtype; the float0 tangent of an
    integer operand (softplus's `logaddexp(x, 0)`) becomes a zero."""
    x1, x2 = primals
    t1, t2 = (lax.full_like(x, 0) if get_aval(t).dtype == dtypes.float0 else t
              for x, t in zip(primals, tangents, strict=True))
    return promote_args_inexact(name, x1, x2, t1, t2)


@logaddexp.defjvp
def _logaddexp_jvp(primals: Any, tangents: Any) -> tuple[Array, Array]:
    x1, x2, t1, t2 = _binary_jvp_args("logaddexp_jvp", primals, tangents)
    out = logaddexp(x1, x2)
    out_ = _replace_posinf(out)
    return out, lax.add(lax.mul(t1, lax.exp(lax.sub(_replace_posinf(x1), out_))),
                        lax.mul(t2, lax.exp(lax.sub(_replace_posinf(x2), out_))))


def hypot(x1: Array, x2: Array, /) -> Array:
    """sqrt(x1**2 + x2**2) without overflow: the larger magnitude times sqrt(1 + r**2), r the
    ratio of the smaller to it (inf if either is inf, even against NaN).

    >>> hypot(3e30, 4e30)
    Array(5.e+30, dtype=float32, weak_type=True)
    """
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    if get_aval(x1).dtype.kind == "c":
        warnings.warn(
            "Passing complex-valued inputs to hypot is deprecated and will raise a ValueError "
            "in the future. Please convert to real values first, such as by using jnp.real or "
            "jnp.imag to take the real or imaginary components respectively.",
            DeprecationWarning, stacklevel=2)
    x1, x2 = lax.abs(x1), lax.abs(x2)
    inf = lax._convert_element_type(np.inf, get_aval(x1).dtype)
    any_inf = lax.bitwise_or(lax.eq(x1, inf), lax.eq(x2, inf))
    big, small = lax.max(x1, x2), lax.min(x1, x2)
    zero = lax.eq(big, lax.full_like(big, 0))
    ratio = lax.div(small, lax.select(zero, lax.full_like(big, 1), big))
    out = lax.mul(big, lax.sqrt(lax.add(lax.full_like(big, 1), lax.square(ratio))))
    out = lax.select(zero, big, out)
    # JAX's infinity is lax._const-typed: the result of a weak array is strong.
    inf_out = lax.broadcast_in_dim(lax_const(out, np.inf), get_aval(out).shape, ())
    return lax.select(any_inf, inf_out, out)


def deg2rad(x: Array, /) -> Array:
    (x,) = promote_args_inexact("deg2rad", x)
    return lax.mul(x, lax_const(x, np.pi / 180))


def rad2deg(x: Array, /) -> Array:
    (x,) = promote_args_inexact("rad2deg", x)
    return lax.mul(x, lax_const(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


def copysign(x1: Array, x2: Array, /) -> Array:
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    if get_aval(x1).dtype.kind == "c":
        raise TypeError("copysign does not support complex-valued inputs")
    from numjax._src.numpy.lax_numpy import where
    magnitude = lax.abs(x1)
    return where(signbit(x2), lax.neg(magnitude), magnitude)


def signbit(x: Array, /) -> Array:
    (x,) = promote_args("signbit", x)
    dt = get_aval(x).dtype
    if dt.kind in "iu":
        return lax.lt(x, lax._convert_element_type(0, dt))
    if dt == _BOOL:
        return lax.full_like(x, False)
    if dt.kind == "c":
        raise ValueError(f"jax.numpy.signbit is not well defined for {dt}")
    bits = dt.itemsize * 8
    int_dt = np.dtype(f"i{dt.itemsize}")
    return lax.lt(bitcast_convert_type(x, int_dt), lax._convert_element_type(0, int_dt)) \
        if bits else x


def rint(x: Array, /) -> Array:
    """Round half to even. Bool and integers give the default float dtype (float64 with x64,
    as JAX converts them to float_), complex numbers round both parts.

    >>> import numjax.numpy as jnp
    >>> rint(jnp.array([0.5, 1.5, -2.5]))
    Array([ 0.,  2., -2.], dtype=float32)
    """
    check_arraylike("rint", x)
    x = ensure_array(x)
    dtype = get_aval(x).dtype
    if dtype.kind in "biu":
        return lax.convert_element_type(x, dtypes.default_float_dtype())
    if dtype.kind == "c":
        return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
    if get_aval(x).dtype.kind == "c":  # real and imaginary parts rounded separately
        return lax.complex(lax_round(lax.real(x), 1), lax_round(lax.imag(x), 1))
    return lax_round(x, 1)


def fabs(x: Array, /) -> Array:
    (x,) = promote_args_inexact("fabs", x)
    return lax.abs(x)


transfer_guard.entry_points(globals())
