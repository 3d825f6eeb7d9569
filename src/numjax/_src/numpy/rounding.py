"""jnp.round / around: round half to even, at a number of decimals."""

from __future__ import annotations

import numpy as np

from numjax._src.core.avals import get_aval
from numjax._src.lax import lax, special
from numjax._src.numpy.util import ensure_array, forwards_operands
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array


@forwards_operands
def round(a: Array, decimals: int = 0, out: None = None) -> Array:
    """Round to `decimals` places, halves to even (as NumPy and JAX do).

    >>> import numjax.numpy as jnp
    >>> jnp.round(jnp.array([0.5, 1.5, 2.25]), 1)
    Array([0.5, 1.5, 2.2], dtype=float32)
    """
    a = ensure_array(a, "round")
    dtype = get_aval(a).dtype
    if dtype.kind == "b":
        # JAX rounds booleans with lax.round (decimals 0) or a product (decimals > 0),
        # neither of which takes bool.
        if decimals == 0:
            raise TypeError("round does not accept dtype bool. Accepted dtypes are subtypes "
                            "of floating.")
        raise TypeError("mul does not accept dtype bool at position 0. Accepted dtypes at "
                        "position 0 are subtypes of integer, complexfloating, floating.")
    if dtype.kind in "iu":
        if decimals >= 0:
            return a
        raise NotImplementedError("integer np.round not implemented for decimals < 0")
    if dtype.kind == "c":  # real and imaginary parts rounded separately, as in JAX
        return lax.complex(_round_real(lax.real(a), decimals), _round_real(lax.imag(a), decimals))
    return _round_real(a, decimals)


def _round_real(a: Array, decimals: int) -> Array:
    if decimals == 0:
        return _round_half_even(a)
    dtype, weak = get_aval(a).dtype, get_aval(a).weak_type
    # JAX compiles jnp.round, and XLA turns its division by the constant 10**decimals into a
    # multiplication by the reciprocal (in the element type): round(3.14, 1) is 31 * 0.1f,
    # 3.1000001. float16 is rounded in float32, as JAX does.
    wide = np.dtype(np.float32) if dtype == np.float16 else dtype
    x = lax._convert_element_type(a, wide, weak)
    factor = np.asarray(10.0 ** decimals, wide)
    out = lax.mul(_round_half_even(lax.mul(x, lax._convert_element_type(factor, wide, weak))),
                  lax._convert_element_type(np.reciprocal(factor), wide, weak))
    return lax._convert_element_type(out, dtype, weak)


def _round_half_even(x: Array) -> Array:
    return special.round(x, special.RoundingMethod.TO_NEAREST_EVEN)


around = round


transfer_guard.entry_points(globals())
