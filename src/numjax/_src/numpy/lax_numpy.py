"""Selection and linear algebra basics of jnp: where, clip, matmul, dot, outer, inner."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core import extended
from numjax._src.core.avals import check_args_abstractify, get_aval
from numjax._src.lax import complex_ops, lax
from numjax._src.numpy.shape import broadcast_arrays, broadcast_to
from numjax._src.numpy.ufuncs import is_boolean, maximum, minimum, multiply
from numjax._src.numpy.util import (
    check_arraylike,
    check_python_ints,
    ensure_array,
    forwards_operands,
    not_arrays,
    promote_dtypes,
    promote_shapes,
)
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.typing import Array

_BOOL = np.dtype(bool)


@transfer_guard.places_constants
def where(condition: Array, x: Array = None, y: Array = None, /, *, size: Any = None,
          fill_value: Any = None) -> Any:
    """`x` where `condition`, else `y` (the one-argument form is `nonzero`).

    >>> import numjax.numpy as jnp
    >>> jnp.where(jnp.array([True, False]), 1, 0)
    Array([1, 0], dtype=int32, weak_type=True)
    """
    if x is None and y is None:
        from numjax._src.numpy.advanced_indexing import nonzero
        return nonzero(ensure_array(condition, "where"), size=size, fill_value=fill_value)
    if x is None or y is None:
        check_arraylike("where", condition, x, y)  # JAX's check comes first: None fails it
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         "to jax.numpy.where, got {x} and {y}.")
    if (type(condition) is ArrayImpl and type(x) is ArrayImpl and type(y) is ArrayImpl
            and x._aval is y._aval is not None and condition._buf.dtype == bool
            and condition._buf.shape == x._buf.shape):
        # Fast path (the eager-op budget): nothing to promote or broadcast.
        return lax.select(condition, x, y)
    if isinstance(x, extended.array_types) or isinstance(y, extended.array_types):
        return extended.rule("where")(condition, x, y)
    check_arraylike("where", condition, x, y)
    check_python_ints("where", (condition, x, y), ("condition", "x", "y"))  # JAX jits `where`
    try:
        condition = ensure_array(condition)
        if get_aval(condition).dtype != bool:
            condition = lax.ne(condition, lax._convert_element_type(
                0, get_aval(condition).dtype))
        x, y = promote_dtypes(x, y)
    except TypeError:
        check_args_abstractify((condition, x, y))  # JAX compiles the rest: jit's errors
        raise
    condition, x, y = broadcast_arrays(condition, x, y)
    if get_aval(x).size == 0:
        # An empty result is `x` broadcast, as in JAX: it then depends on `x` alone, so under
        # vmap a `where` of empty operands with an unmapped `x` is unmapped (concrete), and a
        # mask made from it can index.
        return x
    return lax.select(condition, x, y)


@forwards_operands
def clip(arr: Array = None, min: Array = None, max: Array = None, *, a: Any = None,
         a_min: Any = None, a_max: Any = None) -> Array:
    # New names, not the parameters re-bound: the transfer guard reads a parameter that was
    # never assigned to as the value the caller passed.
    out = a if arr is None else arr
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    if out is None:
        raise ValueError("No input was provided to the clip function.")
    check_python_ints("clip", (out, lo, hi), ("arr", "min", "max"))  # JAX jits `clip`
    if any(v is not None and _is_complex(v) for v in (out, lo, hi)):
        warnings.warn(
            "Clip received a complex value either through the input or the min/max keywords. "
            "Complex values have no ordering and cannot be clipped. Attempting to clip using "
            "complex numbers is deprecated and will soon raise a ValueError. Please convert to "
            "a real value or array by taking the real or imaginary components via "
            "jax.numpy.real/imag respectively.", DeprecationWarning, stacklevel=2)
    try:
        if lo is not None:
            out = maximum(lo, out)
        if hi is not None:
            out = minimum(hi, out)
        return ensure_array(out, "clip")
    except TypeError:
        check_arraylike("clip", a if arr is None else arr)
        raise


def _is_complex(x: Any) -> bool:
    try:
        return dtypes.dtype(x).kind == "c"
    except TypeError:
        return False


def matmul(a: Array, b: Array, *, precision: Any = None,
           preferred_element_type: Any = None) -> Array:
    """Matrix product with NumPy's broadcasting of leading (batch) dimensions."""
    check_arraylike("matmul", a, b)
    dtypes.check_user_dtype_supported(preferred_element_type, "matmul")
    a, b = _promote_product(a, b)
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    if not a_shape or not b_shape:
        raise ValueError(f"matmul: Input operand {0 if not a_shape else 1} does not have enough "
                         "dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) "
                         "requires 1)")
    a_vec, b_vec = len(a_shape) == 1, len(b_shape) == 1
    if len(a_shape) <= 2 and len(b_shape) <= 2:
        # No batch dimensions: one dot_general contracting a's last axis with b's first
        # (vectors are not reshaped into matrices), as JAX lowers it.
        if a_shape[-1] != b_shape[0]:
            raise TypeError("dot_general requires contracting dimensions to have the same "
                            f"shape, got {(a_shape[-1],)} and {(b_shape[0],)}.")
        return lax.dot_general(a, b, (((len(a_shape) - 1,), (0,)), ((), ())), precision,
                               _result_dtype(a, b, preferred_element_type))
    if a_vec:
        a = lax.reshape(a, (1, a_shape[0]))
    if b_vec:
        b = lax.reshape(b, (b_shape[0], 1))
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    if a_shape[-1] != b_shape[-2]:
        raise TypeError(f"dot_general requires contracting dimensions to have the same shape, "
                        f"got {(a_shape[-1],)} and {(b_shape[-2],)}.")
    batch = tuple(np.broadcast_shapes(a_shape[:-2], b_shape[:-2]))
    nb = len(batch)
    a = _broadcast_batch(a, batch)
    b = _broadcast_batch(b, batch)
    out = lax.dot_general(a, b, (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))),
                          precision, _result_dtype(a, b, preferred_element_type))
    if a_vec:
        out = lax.squeeze(out, (nb,))
    if b_vec:
        out = lax.squeeze(out, (get_aval(out).ndim - 1,))
    return out


def _result_dtype(a: Array, b: Array, preferred_element_type: Any) -> Any:
    """jnp's products name their result dtype explicitly, as JAX's do."""
    if preferred_element_type is not None:
        return dtypes.canonicalize_dtype(preferred_element_type)
    a_dtype = get_aval(a).dtype
    return get_aval(b).dtype if a_dtype == _BOOL else a_dtype


def _promote_product(a: Array, b: Array) -> tuple[Array, Array]:
    """`promote_dtypes` for a product's operands, except that a boolean operand of a product
    with numbers stays boolean: JAX's products hand dot_general their operands unconverted,
    and the conversion inside the product is what XLA turns into a select for one-term
    products (`lax.dot._select_mask`)."""
    pa, pb = promote_dtypes(a, b)
    if get_aval(pa).dtype == _BOOL:
        return pa, pb
    return (ensure_array(a) if is_boolean(a) else pa, ensure_array(b) if is_boolean(b) else pb)


def _broadcast_batch(x: Array, batch: tuple[int, ...]) -> Array:
    shape = get_aval(x).shape
    target = batch + shape[-2:]
    if shape == target:
        return x
    return broadcast_to(x, target)


def dot(a: Array, b: Array, *, precision: Any = None,
        preferred_element_type: Any = None) -> Array:
    """NumPy's dot: scalars multiply, 1-D/2-D contract, N-D contracts a's last with b's
    second-to-last axis."""
    check_arraylike("dot", a, b)
    dtypes.check_user_dtype_supported(preferred_element_type, "dot")
    a, b = ensure_array(a), ensure_array(b)
    if preferred_element_type is None:
        result, weak = dtypes.result_type(a, b, return_weak_type_flag=True)
    else:
        result, weak = dtypes.canonicalize_dtype(preferred_element_type), False
    a_nd, b_nd = get_aval(a).ndim, get_aval(b).ndim
    if a_nd == 0 or b_nd == 0:
        if preferred_element_type is None and (is_boolean(a) or is_boolean(b)):
            return multiply(a, b)  # jnp's product: a boolean operand may select (`_multiply`)
        out = lax.mul(*promote_shapes("dot", lax._convert_element_type(a, result, weak),
                                      lax._convert_element_type(b, result, weak)))
    else:
        # As in JAX, one dot_general of the operands as they are, accumulating in the
        # result's dtype: no conversion of a mixed-precision operand is staged before it.
        contract_b = 0 if b_nd == 1 else b_nd - 2
        out = lax.dot_general(a, b, (((a_nd - 1,), (contract_b,)), ((), ())), precision,
                              result)
    return lax._convert_element_type(out, result, weak)


def vdot(a: Array, b: Array, *, precision: Any = None,
         preferred_element_type: Any = None) -> Array:
    try:
        a, b = ensure_array(a), ensure_array(b)
    except TypeError:
        not_arrays("vdot", a, b)
        raise
    if dtypes.issubdtype(get_aval(a).dtype, np.complexfloating):
        a = complex_ops.conj(a)
    return dot(lax.reshape(a, (get_aval(a).size,)), lax.reshape(b, (get_aval(b).size,)),
               precision=precision, preferred_element_type=preferred_element_type)


def inner(a: Array, b: Array, *, precision: Any = None,
          preferred_element_type: Any = None) -> Array:
    try:
        a, b = promote_dtypes(a, b)
    except (TypeError, ValueError):
        check_arraylike("inner", a, b)
        raise
    a_nd, b_nd = get_aval(a).ndim, get_aval(b).ndim
    if a_nd == 0 or b_nd == 0:

        if preferred_element_type is not None:
            a = lax.convert_element_type(a, preferred_element_type)
            b = lax.convert_element_type(b, preferred_element_type)
        return multiply(a, b)  # as JAX, jnp's product: logical and for bools
    # JAX computes it as a tensordot, whose dtype check warns (naming tensordot).
    dtypes.check_user_dtype_supported(preferred_element_type, "tensordot")
    return lax.dot_general(a, b, (((a_nd - 1,), (b_nd - 1,)), ((), ())), precision,
                           _result_dtype(a, b, preferred_element_type))


def outer(a: Array, b: Array, out: None = None) -> Array:
    try:
        a, b = promote_dtypes(a, b)
    except (TypeError, ValueError):
        check_arraylike("outer", a, b)
        raise

    a = lax.reshape(a, (get_aval(a).size, 1))
    b = lax.reshape(b, (1, get_aval(b).size))
    return multiply(a, b)  # jnp's product: logical and for bools


transfer_guard.entry_points(globals())
