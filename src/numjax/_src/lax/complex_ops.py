"""Complex-number primitives: complex, real, imag, conj.

All four are R-linear maps between real and complex spaces, so each has a linear jvp and a
transpose. The transposes follow JAX's convention, in which a complex cotangent pairs with a
tangent through the bilinear (not sesquilinear) product `sum(ct * t)`: hence `complex`
transposes to (real(ct), -imag(ct)), `imag` to complex(0, -ct) and `conj` to `conj`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler.lowering import ufunc_lowering
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad, batching
from numjax._src.interpreters.ad import Zero
from numjax._src.lax import rules
from numjax._src.lax.elementwise import neg
from numjax._src.lax.structural import unbroadcast_to
from numjax._src.typing import Array

__all__ = ["complex", "complex_p", "conj", "conj_p", "imag", "imag_p", "real", "real_p"]

_COMPLEX_ONLY = (np.complexfloating,)


def _complex_of(dtype: np.dtype) -> np.dtype:
    """float32 -> complex64, float64 -> complex128 (float16/bfloat16 widen to complex64)."""
    return np.dtype(np.complex128) if dtype == np.float64 else np.dtype(np.complex64)


def _check_real_float(name: str, aval: ShapedArray, position: int | None = None) -> None:
    if aval.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        where = "" if position is None else f" at position {position}"
        raise TypeError(f"{name} does not accept dtype {aval.dtype.name}{where}. Accepted "
                        f"dtypes{where} are subtypes of float64, float32.")


# ---- complex -------------------------------------------------------------------------------

complex_p = Primitive("complex")


def _complex_kernel(x: Any, y: Any) -> Any:
    x, y = np.asarray(x), np.asarray(y)
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), _complex_of(x.dtype))
    out.real = x
    out.imag = y
    return out


@complex_p.def_abstract_eval
def _complex_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    _check_real_float("complex", x, 0)
    _check_real_float("complex", y, 1)
    if x.dtype != y.dtype:
        raise TypeError("lax.complex requires arguments to have the same dtypes, got "
                        f"{x.dtype.name}, {y.dtype.name}.")
    shape = x.shape if x.shape == y.shape else rules.broadcast_shapes(
        "complex", [x.shape, y.shape])
    return ShapedArray(shape, _complex_of(x.dtype), x.weak_type and y.weak_type)


def _complex_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    out: list[Any] = []
    for arg, part in ((x, lambda c: real(c)), (y, lambda c: imag(_neg(c)))):
        if not ad.is_undefined_primal(arg):
            out.append(None)
        elif type(ct) is Zero:
            out.append(Zero(arg.aval))
        else:
            out.append(unbroadcast_to(part(ct), arg.aval))
    return out


def _neg(x: Array) -> Array:
    return neg(x)


complex_p.def_impl(_complex_kernel)
ad.linear_jvp(complex_p)
complex_p.def_transpose(_complex_transpose)
complex_p.def_batch(batching.vectorized_batch(complex_p))
complex_p.def_lowering(ufunc_lowering(_complex_kernel))


def complex(x: Array, y: Array) -> Array:
    """Elementwise `x + 1j * y` from two real arrays of the same float dtype.

    >>> import numjax.numpy as jnp
    >>> complex(jnp.float32(1), jnp.float32(2))
    Array(1.+2.j, dtype=complex64)
    """
    return complex_p.bind(x, y)


# ---- real / imag ---------------------------------------------------------------------------


def _real_imag_abstract_eval(name: str) -> Any:
    def rule(x: ShapedArray) -> ShapedArray:
        rules.check_dtype(name, x.dtype, _COMPLEX_ONLY)
        return ShapedArray(x.shape, rules.to_real(x.dtype), x.weak_type)
    return rule


def _real_kernel(x: Any) -> Any:
    return np.real(x).copy()


def _imag_kernel(x: Any) -> Any:
    return np.imag(x).copy()


real_p = Primitive("real")
imag_p = Primitive("imag")
real_p.def_impl(_real_kernel)
imag_p.def_impl(_imag_kernel)
real_p.def_abstract_eval(_real_imag_abstract_eval("real"))
imag_p.def_abstract_eval(_real_imag_abstract_eval("imag"))
ad.linear_jvp(real_p)
ad.linear_jvp(imag_p)


def _zero_scalar(ct: Any) -> Any:
    return np.zeros((), get_aval(ct).dtype)[()]


# real(x) pairs with ct as Re(ct * Re(x)); its transpose embeds ct as the real part. For imag,
# JAX's convention gives complex(0, -ct) (the imaginary unit's conjugate pairing).
real_p.def_transpose(lambda ct, x: [
    Zero(x.aval) if type(ct) is Zero else complex(ct, _zero_scalar(ct))])
imag_p.def_transpose(lambda ct, x: [
    Zero(x.aval) if type(ct) is Zero else complex(_zero_scalar(ct), _neg(ct))])
real_p.operand_check = rules.refuse_extended_operands("real", [_COMPLEX_ONLY])
imag_p.operand_check = rules.refuse_extended_operands("imag", [_COMPLEX_ONLY])
real_p.def_batch(batching.vectorized_batch(real_p))
imag_p.def_batch(batching.vectorized_batch(imag_p))
real_p.def_lowering(ufunc_lowering(_real_kernel))
imag_p.def_lowering(ufunc_lowering(_imag_kernel))


def real(x: Array) -> Array:
    """Elementwise real part of a complex array.

    >>> import numjax.numpy as jnp
    >>> real(jnp.complex64(1 + 2j))
    Array(1., dtype=float32)
    """
    return real_p.bind(x)


def imag(x: Array) -> Array:
    """Elementwise imaginary part of a complex array.

    >>> import numjax.numpy as jnp
    >>> imag(jnp.complex64(1 + 2j))
    Array(2., dtype=float32)
    """
    return imag_p.bind(x)


# ---- conj ----------------------------------------------------------------------------------

conj_p = Primitive("conj")


def _conj_kernel(x: Any, *, input_dtype: np.dtype) -> Any:
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return np.conj(x)
    return x.astype(_complex_of(x.dtype))


@conj_p.def_abstract_eval
def _conj_abstract_eval(x: ShapedArray, *, input_dtype: np.dtype) -> ShapedArray:
    if x.dtype.kind != "c":
        if x.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise TypeError(f"conj does not accept dtype {x.dtype.name}. Accepted dtypes are "
                            "subtypes of float64, float32, complexfloating.")
        return ShapedArray(x.shape, _complex_of(x.dtype), x.weak_type)
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _conj_transpose(ct: Any, x: Any, *, input_dtype: np.dtype) -> list[Any]:
    if type(ct) is Zero:
        return [Zero(x.aval)]
    if dtypes.issubdtype(input_dtype, np.complexfloating):
        return [conj(ct)]
    # A real input was embedded as a complex value; the transpose keeps the real part.
    return [real(ct)]


conj_p.def_impl(_conj_kernel)
ad.linear_jvp(conj_p)
conj_p.def_transpose(_conj_transpose)
_conj_operand_check = rules.refuse_extended_operands(
    "conj", [(np.float64, np.float32, np.complexfloating)])
conj_p.operand_check = _conj_operand_check
conj_p.def_batch(batching.vectorized_batch(conj_p))
conj_p.def_lowering(ufunc_lowering(_conj_kernel))


def conj(x: Array) -> Array:
    """Elementwise complex conjugate (a real float input gives its complex embedding).

    >>> import numjax.numpy as jnp
    >>> conj(jnp.complex64(1 + 2j))
    Array(1.-2.j, dtype=complex64)
    """
    try:
        dtype = get_aval(x).dtype
    except TypeError:
        _conj_operand_check([x])  # a typed key: conj's dtype error, as JAX raises it
        raise
    return conj_p.bind(x, input_dtype=dtype)
