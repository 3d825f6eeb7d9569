"""`jax.scipy.fft`: the type-2 discrete cosine transform and its inverse, through complex FFTs.

The forward transform is Makhoul's: reorder x as v = [x0, x2, x4, ..., x5, x3, x1] (evens, then
odds reversed), take V = fft(v) and read DCT_k = 2 Re(exp(-i pi k / 2N) V_k). The inverse runs
those steps backwards. As in JAX 0.4.30, only `type=2` exists, `norm="ortho"` is the only
normalisation recognised (any other value means none), and `idct` computes in float32.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from numjax._src import dtypes
from numjax._src.lax import lax
from numjax._src.numpy.creation import arange, array, zeros
from numjax._src.numpy.fft import fft, fftn, ifft
from numjax._src.numpy.manipulation import roll
from numjax._src.numpy.scalar_types import float32
from numjax._src.numpy.shape import flip
from numjax._src.numpy.ufuncs import exp
from numjax._src.numpy.util import canonicalize_axis
from numjax._src.typing import Array


def _check_type(type: int) -> None:
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")


def _twiddle(n: int, k: Array) -> Array:
    """exp(-i pi k / 2n), complex like k."""
    dtype = dtypes.to_complex_dtype(dtypes.result_type(n, k))
    n_arr = lax._convert_element_type(n, dtype, True)
    k = lax._convert_element_type(k, dtype, dtypes.is_weakly_typed(k))
    return exp(-0.5j * np.pi * k / n_arr)


def _along(values: Array, axis: int, ndim: int) -> Array:
    """A 1-d array shaped to broadcast along `axis` of an ndim-d array."""
    return lax.expand_dims(values, [a for a in range(ndim) if a != axis])


def _interleave(x: Array, axis: int) -> Array:
    evens = lax.slice_in_dim(x, None, None, 2, axis)
    odds_reversed = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return lax.concatenate([evens, odds_reversed], axis)


def _deinterleave(x: Array, axis: int) -> Array:
    """The inverse of `_interleave`."""
    half = math.ceil(x.shape[axis] / 2)
    evens = lax.slice_in_dim(x, 0, half, 1, axis)
    odds = lax.rev(lax.slice_in_dim(x, half, None, 1, axis), (axis,))
    out = zeros(x.shape, dtype=x.dtype)
    every_other = [slice(None)] * x.ndim
    every_other[axis] = slice(None, None, 2)
    out = out.at[tuple(every_other)].set(evens)
    every_other[axis] = slice(1, None, 2)
    return out.at[tuple(every_other)].set(odds)


def _ortho_norm(out: Array, axis: int) -> Array:
    """Scale bin 0 by 1/sqrt(4N) and the others by 1/sqrt(2N)."""
    n = out.shape[axis]
    factor = lax.concatenate([lax.full((1,), 4, out.dtype), lax.full((n - 1,), 2, out.dtype)], 0)
    return out / lax.sqrt(_along(factor, axis, out.ndim) * n)


def _resize_axis(x: Array, n: int | None, axis: int) -> Array:
    """x zero-padded or truncated to length n along axis (unchanged when n is None)."""
    if n is None:
        return x
    widths = [(0, n - x.shape[a] if a == axis else 0, 0) for a in range(x.ndim)]
    return lax.pad(x, array(0, x.dtype), widths)


def _resize_axes(x: Array, s: Sequence[int] | None, axes: Sequence[int]) -> Array:
    if s is None:
        return x
    sizes = dict(zip(axes, s, strict=False))
    widths = [(0, sizes[a] - x.shape[a] if a in sizes else 0, 0) for a in range(x.ndim)]
    return lax.pad(x, array(0, x.dtype), widths)


def dct(x: Array, type: int = 2, n: int | None = None, axis: int = -1,
        norm: str | None = None) -> Array:
    """The type-2 DCT along `axis`, x zero-padded or cut to `n` first.

    >>> import numjax.numpy as jnp
    >>> dct(jnp.array([1.0, 2.0, 3.0, 4.0])).round(4)
    Array([20.        , -6.3086    ,  0.        , -0.44829997], dtype=float32)
    """
    _check_type(type)
    axis = canonicalize_axis(axis, x.ndim)
    x = _resize_axis(x, n, axis)
    size = x.shape[axis]
    spectrum = fft(_interleave(x, axis), axis=axis)
    k = _along(arange(size, dtype=spectrum.real.dtype), axis, x.ndim)
    out = 2 * (spectrum * _twiddle(size, k)).real
    return _ortho_norm(out, axis) if norm == "ortho" else out


def _dct2(x: Array, axes: Sequence[int], norm: str | None) -> Array:
    """The 2-d DCT from one 2-d FFT: twiddle both axes, folding in the mirrored spectrum."""
    axis1, axis2 = (canonicalize_axis(a, x.ndim) for a in axes)
    n1, n2 = x.shape[axis1], x.shape[axis2]
    spectrum = fftn(_interleave(_interleave(x, axis1), axis2), axes=axes)
    k1 = _along(arange(n1, dtype=spectrum.dtype), axis1, x.ndim)
    k2 = _along(arange(n2, dtype=spectrum.dtype), axis2, x.ndim)
    mirrored = roll(flip(spectrum, axis=axis2), shift=1, axis=axis2)
    out = _twiddle(n1, k1) * (_twiddle(n2, k2) * spectrum + _twiddle(n2, -k2) * mirrored)
    out = 2 * out.real
    if norm == "ortho":
        return _ortho_norm(_ortho_norm(out, axis1), axis2)
    return out


def dctn(x: Array, type: int = 2, s: Sequence[int] | None = None,
         axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """The type-2 DCT over `axes` (all by default), each resized to `s` first.

    >>> import numjax.numpy as jnp
    >>> dctn(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    Array([[ 40.      ,  -5.656854],
           [-11.313708,   0.      ]], dtype=float32)
    """
    _check_type(type)
    if axes is None:
        axes = range(x.ndim)
    if len(axes) == 1:
        return dct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    x = _resize_axes(x, s, axes)
    if len(axes) == 2:
        return _dct2(x, axes=axes, norm=norm)
    for i in range(0, len(axes), 2):  # pairs of axes, as JAX does
        x = dctn(x, axes=axes[i:i + 2], norm=norm)
    return x


def idct(x: Array, type: int = 2, n: int | None = None, axis: int = -1,
         norm: str | None = None) -> Array:
    """The inverse of the type-2 DCT along `axis` (a float32 result).

    >>> import numjax.numpy as jnp
    >>> idct(dct(jnp.array([1.0, 2.0, 3.0, 4.0])))
    Array([1., 2., 3., 4.], dtype=float32)
    """
    _check_type(type)
    axis = canonicalize_axis(axis, x.ndim)
    x = _resize_axis(x, n, axis)
    size = x.shape[axis]
    x = x.astype(float32)
    if norm is None:  # the unnormalised inverse is the orthonormal one applied twice
        x = _ortho_norm(x, axis)
    x = _ortho_norm(x, axis)
    k = _along(arange(size, dtype=float32), axis, x.ndim)
    twiddle = _twiddle(size, k)
    x = x.astype(twiddle.dtype) / twiddle * 2 * size
    return _deinterleave(ifft(x, axis=axis).real, axis)


def idctn(x: Array, type: int = 2, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: str | None = None) -> Array:
    """The inverse of `dctn`, one axis at a time.

    >>> import numjax.numpy as jnp
    >>> idctn(dctn(jnp.array([[1.0, 2.0], [3.0, 4.0]]))).round(4)
    Array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    _check_type(type)
    if axes is None:
        axes = range(x.ndim)
    if len(axes) == 1:
        return idct(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    x = _resize_axes(x, s, axes)
    for axis in axes:
        x = idct(x, axis=axis, norm=norm)
    return x
