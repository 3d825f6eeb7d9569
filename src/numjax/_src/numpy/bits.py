"""Bit packing: the truth values of an array as the bits of uint8 bytes, and back."""

from __future__ import annotations

import operator

import numpy as np

from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.numpy.shape import moveaxis, ravel
from numjax._src.numpy.util import canonicalize_axis, check_arraylike, ensure_array
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array


def packbits(a: Array, axis: int | None = None, bitorder: str = "big") -> Array:
    """Pack the truth values of `a` into uint8 bytes along `axis` (flattened when None)."""
    check_arraylike("packbits", a)
    a = ensure_array(a, "packbits")
    if get_aval(a).dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    # JAX packs `a > 0` (NumPy packs the nonzero values): negative integers are 0 bits.
    bits = lax.convert_element_type(lax.gt(a, lax._convert_element_type(0, get_aval(a).dtype)),
                                    np.uint8)
    if axis is None:
        bits, axis = ravel(bits), 0
    axis = canonicalize_axis(axis, get_aval(bits).ndim)
    bits = moveaxis(bits, axis, -1)
    n = get_aval(bits).shape[-1]
    pad = (-n) % 8
    cfg = [(0, 0, 0)] * (get_aval(bits).ndim - 1) + [(0, pad, 0)]
    bits = lax.pad(bits, lax._convert_element_type(0, np.uint8), cfg)
    shape = get_aval(bits).shape
    bits = lax.reshape(bits, (*shape[:-1], shape[-1] // 8, 8))
    shifts = np.arange(8, dtype=np.uint8)
    if bitorder == "big":
        shifts = shifts[::-1].copy()
    shifted = lax.shift_left(bits, lax.broadcast_in_dim(lax._convert_element_type(
        shifts, np.uint8), get_aval(bits).shape, (len(get_aval(bits).shape) - 1,)))
    packed = lax.reduce_sum(shifted, (len(get_aval(bits).shape) - 1,))
    return moveaxis(packed, -1, axis)


def unpackbits(a: Array, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Array:
    """The bits of uint8 `a` along `axis` (flattened when None), `count` of them."""
    check_arraylike("unpackbits", a)
    a = ensure_array(a, "unpackbits")
    if get_aval(a).dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, get_aval(a).ndim)
    a = moveaxis(a, axis, -1)
    shape = get_aval(a).shape
    shifts = np.arange(8, dtype=np.uint8)
    if bitorder == "big":
        shifts = shifts[::-1].copy()
    full = (*shape, 8)
    expanded = lax.broadcast_in_dim(a, full, tuple(range(len(shape))))
    bits = lax.bitwise_and(
        lax.shift_right_logical(expanded, lax.broadcast_in_dim(
            lax._convert_element_type(shifts, np.uint8), full, (len(shape),))),
        lax._convert_element_type(1, np.uint8))
    bits = lax.reshape(bits, (*shape[:-1], shape[-1] * 8))
    if count is not None:
        total = shape[-1] * 8
        count = operator.index(count)
        if count < 0:
            count = max(total + count, 0)
        if count <= total:
            bits = lax.slice_in_dim(bits, 0, count, axis=len(shape) - 1)
        else:
            cfg = [(0, 0, 0)] * (len(shape) - 1) + [(0, count - total, 0)]
            bits = lax.pad(bits, lax._convert_element_type(0, np.uint8), cfg)
    return moveaxis(bits, -1, axis)


transfer_guard.entry_points(globals())
