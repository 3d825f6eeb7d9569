"""jnp's complex-number functions: real, imag, conjugate, angle, iscomplexobj."""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src.core.avals import get_aval
from numjax._src.lax import complex_ops, lax
from numjax._src.numpy.util import ensure_array

Array = Any


def real(val: Array, /) -> Array:
    """The real part; real inputs are returned unchanged.

    >>> import numjax.numpy as jnp
    >>> jnp.real(jnp.array([1 + 2j]))
    Array([1.], dtype=float32)
    """
    val = ensure_array(val)
    return complex_ops.real(val) if get_aval(val).dtype.kind == "c" else val


def imag(val: Array, /) -> Array:
    val = ensure_array(val)
    if get_aval(val).dtype.kind == "c":
        return complex_ops.imag(val)
    return lax.full_like(val, 0)


def conjugate(x: Array, /) -> Array:
    x = ensure_array(x)
    return complex_ops.conj(x) if get_aval(x).dtype.kind == "c" else x


conj = conjugate


def iscomplexobj(x: Any) -> bool:
    try:
        return bool(get_aval(x).dtype.kind == "c")
    except TypeError:
        return bool(np.iscomplexobj(x))
