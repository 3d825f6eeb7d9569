"""jnp.round / around: round half to even, at a number of decimals."""

from __future__ import annotations

from typing import Any

from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.numpy.util import ensure_array

Array = Any


def round(a: Array, decimals: int = 0, out: None = None) -> Array:
    """Round to `decimals` places, halves to even (as NumPy and JAX do).

    >>> import numjax.numpy as jnp
    >>> jnp.round(jnp.array([0.5, 1.5, 2.25]), 1)
    Array([0.5, 1.5, 2.2], dtype=float32)
    """
    a = ensure_array(a, "round")
    dtype = get_aval(a).dtype
    if dtype.kind in "biu":
        if decimals >= 0:
            return a
        raise NotImplementedError("integer np.round not implemented for decimals < 0")
    if decimals == 0:
        return _round_half_even(a)
    factor = lax._convert_element_type(10.0 ** decimals, dtype, get_aval(a).weak_type)
    return lax.div(_round_half_even(lax.mul(a, factor)), factor)


def _round_half_even(x: Array) -> Array:
    from numjax._src.lax import special
    return special.round(x, special.RoundingMethod.TO_NEAREST_EVEN)


around = round
