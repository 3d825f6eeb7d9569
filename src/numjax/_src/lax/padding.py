"""The pad primitive: low, high and interior padding, with negative low/high cropping.

`pad` is linear in the operand and the padding value jointly, so its jvp is `pad` of the
tangents and its transpose splits the cotangent into the operand positions (an un-padding
followed by a strided slice) and everything else (the padding value's share).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero, is_undefined_primal
from numjax._src.interpreters.batching import bdim_at_front, not_mapped
from numjax._src.lax import elementwise as ew
from numjax._src.lax import reductions as red
from numjax._src.lax import structural as st
from numjax._src.typing import Array

__all__ = ["pad", "pad_p"]

PaddingConfig = tuple[tuple[int, int, int], ...]

pad_p = Primitive("pad")


def _padded_size(d: int, lo: int, hi: int, interior: int) -> int:
    return lo + hi + d + builtins.max(d - 1, 0) * interior


def _pad_kernel(x: Any, padding_value: Any, *, padding_config: PaddingConfig) -> Any:
    x = np.asarray(x)
    # First pad with the non-negative parts of lo/hi (plus interior) into a fresh array, then
    # crop the negative parts: cropping after interior padding is what XLA specifies.
    grown = tuple(_padded_size(d, builtins.max(lo, 0), builtins.max(hi, 0), i)
                  for d, (lo, hi, i) in zip(x.shape, padding_config, strict=True))
    out = np.full(grown, padding_value, dtype=x.dtype)
    placed = tuple(builtins.slice(builtins.max(lo, 0), builtins.max(lo, 0) + (d - 1) * (i + 1) + 1
                                  if d else builtins.max(lo, 0), i + 1)
                   for d, (lo, _, i) in zip(x.shape, padding_config, strict=True))
    out[placed] = x
    crop = tuple(builtins.slice(-builtins.min(lo, 0), n + builtins.min(hi, 0))
                 for n, (lo, hi, _) in zip(grown, padding_config, strict=True))
    return out[crop]


@pad_p.def_abstract_eval
def _pad_abstract_eval(x: ShapedArray, padding_value: ShapedArray, *,
                       padding_config: PaddingConfig) -> ShapedArray:
    if x.dtype != padding_value.dtype:
        raise TypeError("pad operand and padding_value must be same dtype: got "
                        f"{x.dtype.name} and {padding_value.dtype.name}.")
    if padding_value.ndim != 0:
        raise TypeError(f"pad padding_value must be a scalar, got shape {padding_value.shape}.")
    if len(padding_config) != x.ndim:
        raise ValueError("length of padding_config must equal the number of axes of operand, "
                         f"got padding_config {padding_config} for operand shape {x.shape}")
    if any(i < 0 for _, _, i in padding_config):
        raise ValueError("interior padding in padding_config must be nonnegative, got "
                         f"padding_config {padding_config}")
    shape = tuple(_padded_size(d, lo, hi, i)
                  for d, (lo, hi, i) in zip(x.shape, padding_config, strict=True))
    if any(d < 0 for d in shape):
        raise ValueError(f"Dimension size after padding is not at least 0, got result shape "
                         f"{shape}, for padding_config {padding_config} and operand shape "
                         f"{x.shape}")
    return ShapedArray(shape, x.dtype, x.weak_type and padding_value.weak_type)


def _pad_transpose(ct: Any, operand: Any, padding_value: Any, *,
                   padding_config: PaddingConfig) -> list[Any]:
    out_operand: Any = None
    out_value: Any = None
    if type(ct) is Zero:
        return [Zero(operand.aval) if is_undefined_primal(operand) else None,
                Zero(padding_value.aval) if is_undefined_primal(padding_value) else None]
    # Undo lo/hi (negating them pads back what was cropped, with zeros), then take every
    # (interior + 1)-th element: exactly the positions the operand was written to.
    zero = np.zeros((), get_aval(ct).dtype)[()]
    unpadded = pad(ct, zero, tuple((-lo, -hi, 0) for lo, hi, _ in padding_config))
    shape = get_aval(unpadded).shape
    t_operand = st.slice(unpadded, (0,) * len(shape), shape,
                          tuple(i + 1 for _, _, i in padding_config))
    if is_undefined_primal(operand):
        out_operand = t_operand
    if is_undefined_primal(padding_value):
        axes = tuple(range(len(shape)))
        out_value = ew.sub(red.reduce_sum(ct, axes), red.reduce_sum(t_operand, axes))
    return [out_operand, out_value]


def _pad_batch(args: Sequence[Any], dims: Sequence[Any], *,
               padding_config: PaddingConfig) -> tuple[Any, Any]:
    (x, v), (xd, vd) = args, dims
    size = next(get_aval(a).shape[d] for a, d in zip(args, dims, strict=True)
                if d is not not_mapped)
    config = ((0, 0, 0), *padding_config)
    x = bdim_at_front(x, xd, size)
    if vd is not_mapped:
        return pad_p.bind(x, v, padding_config=config), 0
    # A per-example padding value: pad with anything, then select it in where a mask of the
    # operand's positions (padded with False) is off.
    aval = get_aval(x)
    padded = pad_p.bind(x, np.zeros((), aval.dtype)[()], padding_config=config)
    mask = pad_p.bind(st.full(aval.shape, True), np.bool_(False), padding_config=config)
    out_shape = get_aval(padded).shape
    fill = st.broadcast_in_dim(v, out_shape, (0,))
    return st.select(mask, padded, fill), 0


pad_p.def_impl(_pad_kernel)
ad.linear_jvp(pad_p)
pad_p.def_transpose(_pad_transpose)
pad_p.def_batch(_pad_batch)


def pad(operand: Array, padding_value: Array,
        padding_config: Sequence[tuple[int, int, int]]) -> Array:
    """Pad `operand` with `padding_value`: per axis a (low, high, interior) triple.

    Negative low/high remove elements from that edge; interior inserts that many padding
    elements between neighbours.

    >>> import numjax.numpy as jnp
    >>> pad(jnp.array([1, 2, 3]), 0, [(1, -1, 1)])
    Array([0, 1, 0, 2, 0], dtype=int32)
    """
    # Like JAX, a Python scalar padding value is not converted: it must match the dtype.
    config = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)
