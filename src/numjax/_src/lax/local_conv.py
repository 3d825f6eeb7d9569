"""Patch extraction and unshared-weight (locally connected) convolution.

Neither is a primitive: `conv_general_dilated_patches` is a grouped `conv_general_dilated`
whose constant kernel copies each window element into its own output feature, and
`conv_general_dilated_local` contracts those patches with a kernel that has one weight set
per output position (a batched `dot_general`). Their derivatives, batching and lowering are
those of the two primitives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src.core.avals import get_aval
from numjax._src.lax import structural as st
from numjax._src.lax.convolution import conv_dimension_numbers, conv_general_dilated
from numjax._src.lax.dot import Precision, canonicalize_precision, dot_general
from numjax._src.typing import Array


def _patch_kernel(dtype: Any, channels: int, filter_shape: tuple[int, ...],
                  rhs_spec: Sequence[int]) -> np.ndarray:
    """The grouped kernel whose output feature `c * S + s` (S the window's size) reads input
    channel `c` at the window's flat position `s`: one-hot in the window, laid out as
    `rhs_spec` with the window's axes in the order of `filter_shape`."""
    size = math.prod(filter_shape)
    one_hot = np.eye(size, dtype=dtype).reshape((size, 1, *filter_shape))
    kernel = np.tile(one_hot, (channels,) + (1,) * (one_hot.ndim - 1))
    return np.moveaxis(kernel, (0, 1), (rhs_spec[0], rhs_spec[1]))


def conv_general_dilated_patches(
        lhs: Array, filter_shape: Sequence[int], window_strides: Sequence[int], padding: Any,
        lhs_dilation: Sequence[int] | None = None, rhs_dilation: Sequence[int] | None = None,
        dimension_numbers: Any = None, precision: Any = None,
        preferred_element_type: Any = None) -> Array:
    """The patches a convolution with a `filter_shape` window would read, as features: the
    output's feature dimension has `C * prod(filter_shape)` entries, channel-major, then the
    window's positions in the order of the kernel layout's spatial dimensions.

    >>> import numjax.numpy as jnp
    >>> x = jnp.arange(8.).reshape(1, 2, 4)
    >>> conv_general_dilated_patches(x, (2,), (2,), 'VALID')[0]
    Array([[0., 2.],
           [1., 3.],
           [4., 6.],
           [5., 7.]], dtype=float32)
    """
    filter_shape = tuple(int(k) for k in filter_shape)
    lhs_aval = get_aval(lhs)
    dn = conv_dimension_numbers(lhs_aval.shape, (1, 1) + filter_shape, dimension_numbers)
    channels = lhs_aval.shape[dn.lhs_spec[1]]
    kernel = _patch_kernel(lhs_aval.dtype, channels, filter_shape, dn.rhs_spec)
    # The kernel is exact (zeros and ones): only the lhs's precision is the caller's.
    pair = None if precision is None else (precision, Precision.DEFAULT)
    return conv_general_dilated(lhs, kernel, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, dimension_numbers=dn,
                                feature_group_count=channels, precision=pair,
                                preferred_element_type=preferred_element_type)


def conv_general_dilated_local(
        lhs: Array, rhs: Array, window_strides: Sequence[int], padding: Any,
        filter_shape: Sequence[int], lhs_dilation: Sequence[int] | None = None,
        rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
        precision: Any = None) -> Array:
    """A convolution with unshared weights: `rhs` holds one `(C * prod(filter_shape), O)`
    weight matrix per output position (its spatial dimensions are the output's), applied to
    that position's patch (`conv_general_dilated_patches`).

    >>> import numjax.numpy as jnp
    >>> x = jnp.arange(8.).reshape(1, 2, 4)
    >>> w = jnp.ones((3, 4, 2))  # O, I = C * window, output width
    >>> conv_general_dilated_local(x, w, (2,), 'VALID', (2,))
    Array([[[10., 18.],
            [10., 18.],
            [10., 18.]]], dtype=float32)
    """
    filter_shape = tuple(int(k) for k in filter_shape)
    pair = canonicalize_precision(precision)
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
        precision=None if pair is None else pair[0])
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(
        get_aval(lhs).shape, (1, 1) + filter_shape, dimension_numbers)
    # Batch over the output positions (in the output's own order), contract the patch features
    # with the kernel's input features; N and O come last and move to their places.
    order = sorted(range(len(out_spec) - 2), key=lambda i: out_spec[2 + i])
    lhs_batch = tuple(out_spec[2 + i] for i in order)
    rhs_batch = tuple(rhs_spec[2 + i] for i in order)
    out = dot_general(patches, rhs, (((out_spec[1],), (rhs_spec[1],)), (lhs_batch, rhs_batch)),
                      precision=precision)
    ndim = len(out_spec)
    spatial_at = [d for d in range(ndim) if d not in (out_spec[0], out_spec[1])]
    source = {out_spec[0]: ndim - 2, out_spec[1]: ndim - 1}
    source.update({d: k for k, d in enumerate(spatial_at)})
    return st.transpose(out, tuple(source[d] for d in range(ndim)))
