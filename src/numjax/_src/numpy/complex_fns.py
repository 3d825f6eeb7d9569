"""jnp's complex-number functions: real, imag, conjugate, angle, iscomplexobj."""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src.core.avals import get_aval
from numjax._src.lax import complex_ops, lax
from numjax._src.numpy.creation import asarray
from numjax._src.numpy.util import (
    ensure_array,
    forwards_operands,
    staged_constant,
    staging_program,
)
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array


@forwards_operands
def real(val: Array, /) -> Array:
    """The real part; real inputs are returned unchanged.

    >>> import numjax.numpy as jnp
    >>> jnp.real(jnp.array([1 + 2j]))
    Array([1.], dtype=float32)
    """
    val = ensure_array(val, "real")
    return complex_ops.real(val) if get_aval(val).dtype.kind == "c" else val


def imag(val: Array, /) -> Array:
    val = ensure_array(val, "imag")
    if get_aval(val).dtype.kind == "c":
        return complex_ops.imag(val)
    if get_aval(val).ndim == 0 and staging_program():
        # JAX's imag is an inlined jit whose 0-d zero, made from constants alone, comes back
        # out of it as a plain value under jit: `v[jnp.imag(v) == 0]` is a concrete mask there.
        return staged_constant(0, val)  # type: ignore[no-any-return]
    return lax.full_like(val, 0)


@forwards_operands
def conjugate(x: Array, /) -> Array:
    x = ensure_array(x, "conjugate")
    return complex_ops.conj(x) if get_aval(x).dtype.kind == "c" else x


conj = conjugate


def iscomplexobj(x: Any) -> bool:
    if x is None:
        return False
    try:
        return bool(get_aval(x).dtype.kind == "c")
    except TypeError:
        pass
    # As JAX: a `.dtype` attribute, else the dtype of `jnp.asarray(x)` (and its errors).
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = get_aval(asarray(x)).dtype
    return bool(np.issubdtype(dtype, np.complexfloating))


transfer_guard.entry_points(globals())
