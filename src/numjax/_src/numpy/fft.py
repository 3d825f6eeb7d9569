"""jnp.fft: NumPy's FFT functions on `lax.fft` (at most three axes per transform, as in JAX).

Normalization: XLA's inverse transforms already divide by the transform size, so "backward"
needs no extra factor and the other modes scale relative to it.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.lax import complex_ops as cx
from numjax._src.lax import elementwise as ew
from numjax._src.lax import padding
from numjax._src.lax import structural as st
from numjax._src.lax.fft import FftType
from numjax._src.lax.fft import fft as lax_fft
from numjax._src.numpy import creation, shape
from numjax._src.numpy.util import check_arraylike
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq",
           "rfftn"]


def _norm_factor(sizes: Sequence[int], func_name: str, norm: str | None) -> float:
    n = math.prod(sizes)
    inverse = func_name.startswith("i")
    if norm is None or norm == "backward":
        return 1.0
    if norm == "ortho":
        return math.sqrt(n) if inverse else 1 / math.sqrt(n) if n else 1.0
    if norm == "forward":
        return float(n) if inverse else 1 / n if n else 1.0
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _fft_core(func_name: str, fft_type: FftType, a: Array, s: Sequence[int] | None,
              axes: Sequence[int] | None, norm: str | None) -> Array:
    full_name = f"jax.numpy.fft.{func_name}"
    check_arraylike(full_name, a)
    arr = creation.asarray(a)
    if s is not None:
        s = tuple(operator.index(i) for i in s)
        if any(i < 0 for i in s):
            raise ValueError("Shape should be non-negative.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    if axes is None:
        axes = tuple(range(arr.ndim)) if s is None else tuple(range(arr.ndim - len(s),
                                                                    arr.ndim))
    axes = tuple(operator.index(ax) for ax in axes)
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    if len(axes) > 3:
        raise ValueError(f"{full_name} only supports 1D, 2D, and 3D FFTs. Got axes "
                         f"{orig_axes} with input rank {arr.ndim}.")
    rank = len(axes)
    if orig_axes is not None:
        axes = tuple(range(arr.ndim - rank, arr.ndim))
        arr = shape.moveaxis(arr, tuple(orig_axes), axes)
    if s is not None:
        in_s = list(arr.shape)
        for ax, n in zip(axes, s, strict=True):
            in_s[ax] = n
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = _crop_or_pad(arr, in_s)
        lengths = tuple(s)
    elif fft_type == FftType.IRFFT:
        lengths = tuple(arr.shape[ax] for ax in axes[:-1])
        if axes:
            lengths += (max(0, 2 * (arr.shape[axes[-1]] - 1)),)
    else:
        lengths = tuple(arr.shape[ax] for ax in axes)
    out = lax_fft(arr, fft_type, lengths)  # no axes too: the dtype still changes, as in JAX
    factor = _norm_factor(lengths, func_name, norm)
    if factor != 1.0:
        out = ew.mul(out, np.array(factor, get_aval(out).dtype))
    if orig_axes is not None:
        out = shape.moveaxis(out, axes, tuple(orig_axes))
    return out


def _crop_or_pad(arr: Array, sizes: Sequence[int]) -> Array:
    aval = get_aval(arr)
    cur = aval.shape
    if any(n < c for n, c in zip(sizes, cur, strict=True)):
        arr = st.slice(arr, (0,) * len(cur), tuple(min(n, c) for n, c in zip(sizes, cur,
                                                                              strict=True)))
    if any(n > c for n, c in zip(sizes, cur, strict=True)):
        pads = [(0, max(0, n - c), 0) for n, c in zip(sizes, cur, strict=True)]
        arr = padding.pad(arr, np.zeros((), aval.dtype), pads)
    return arr


def _axis_check_1d(func_name: str, axis: Any) -> None:
    if isinstance(axis, list | tuple):
        raise ValueError(f"jax.numpy.fft.{func_name} does not support multiple axes. Please "
                         f"use jax.numpy.fft.{func_name}n. Got axis = {axis}.")


def _fft_core_1d(func_name: str, fft_type: FftType, a: Array, n: int | None, axis: int,
                 norm: str | None) -> Array:
    _axis_check_1d(func_name, axis)
    s = None if n is None else [n]
    return _fft_core(func_name, fft_type, a, s, [axis], norm)


def fft(a: Array, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """One-dimensional discrete Fourier transform.

    >>> import numjax.numpy as jnp
    >>> fft(jnp.array([1.0, 0.0, 0.0, 0.0]))
    Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
    """
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a: Array, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """Inverse of `fft`.

    >>> import numjax.numpy as jnp
    >>> ifft(jnp.array([4.0, 0.0]))
    Array([2.+0.j, 2.+0.j], dtype=complex64)
    """
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a: Array, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """FFT of real input: the `n // 2 + 1` non-negative frequencies.

    >>> import numjax.numpy as jnp
    >>> rfft(jnp.array([1.0, 1.0, 1.0, 1.0]))
    Array([4.+0.j, 0.+0.j, 0.+0.j], dtype=complex64)
    """
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a: Array, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """Inverse of `rfft` (output length `n`, default `2 * (m - 1)`).

    >>> import numjax.numpy as jnp
    >>> irfft(jnp.array([4.0, 0.0, 0.0]))
    Array([1., 1., 1., 1.], dtype=float32)
    """
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


_SWAP = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _swap_norm(norm: str | None) -> str:
    if norm not in _SWAP:
        _norm_factor((1,), "", norm)
    return _SWAP[norm]


def hfft(a: Array, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """FFT of a Hermitian-symmetric signal given by its first half: a real spectrum.

    >>> import numjax.numpy as jnp
    >>> hfft(jnp.array([1.0, 0.0, 0.0]))
    Array([1., 1., 1., 1.], dtype=float32)
    """
    # hfft(a) = n * irfft(conj(a)) for the default norm; NumPy swaps the norm direction.
    check_arraylike("jax.numpy.fft.hfft", a)
    arr = creation.asarray(a)
    conj = cx.conj(arr) if arr.dtype.kind == "c" else arr
    return _fft_core_1d("irfft", FftType.IRFFT, conj, n, axis, _swap_norm(norm))


def ihfft(a: Array, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """Inverse of `hfft`.

    >>> import numjax.numpy as jnp
    >>> ihfft(jnp.array([1.0, 1.0, 1.0, 1.0]))
    Array([1.-0.j, 0.-0.j, 0.-0.j], dtype=complex64)
    """
    out = _fft_core_1d("rfft", FftType.RFFT, a, n, axis, _swap_norm(norm))
    return cx.conj(out)


def fftn(a: Array, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Array:
    """N-dimensional FFT (over at most three axes).

    >>> import numjax.numpy as jnp
    >>> fftn(jnp.ones((2, 2))).real
    Array([[4., 0.],
           [0., 0.]], dtype=float32)
    """
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a: Array, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Array:
    """Inverse of `fftn`."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a: Array, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Array:
    """N-dimensional FFT of real input (half spectrum along the last axis)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a: Array, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Array:
    """Inverse of `rfftn`."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def _check_2d(func_name: str, s: Any, axes: Sequence[int]) -> None:
    if (s is not None and len(s) != 2) or len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = "
                         f"{list(axes)}.")


def fft2(a: Array, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Array:
    """Two-dimensional FFT."""
    _check_2d("fft2", s, axes)
    return _fft_core("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a: Array, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Array:
    """Two-dimensional inverse FFT."""
    _check_2d("ifft2", s, axes)
    return _fft_core("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a: Array, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Array:
    """Two-dimensional FFT of real input."""
    _check_2d("rfft2", s, axes)
    return _fft_core("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a: Array, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None) -> Array:
    """Inverse of `rfft2`."""
    _check_2d("irfft2", s, axes)
    return _fft_core("irfft2", FftType.IRFFT, a, s, axes, norm)


def _freq_dtype(dtype: Any) -> np.dtype:
    return dtypes.canonicalize_dtype(dtypes.default_float_dtype() if dtype is None else dtype)


def fftfreq(n: int, d: Array = 1.0, *, dtype: Any = None) -> Array:
    """Sample frequencies of an `n`-point FFT with sample spacing `d`.

    >>> fftfreq(4)
    Array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float32)
    """
    if isinstance(n, list | tuple):
        raise ValueError("The n argument of jax.numpy.fft.fftfreq only takes an int. "
                         f"Got n = {list(n)}.")
    if isinstance(d, list | tuple):
        raise ValueError("The d argument of jax.numpy.fft.fftfreq only takes a single value. "
                         f"Got d = {list(d)}.")
    if not isinstance(n, int):
        creation._shape(n)  # JAX's result is built with the shape (n,): its shape errors
    dt = _freq_dtype(dtype)
    # Integer frequencies, exact (none for n = 0, where NumPy would divide by zero).
    k = np.fft.fftfreq(n, 1.0) * n if n else np.zeros(0)
    return _divide_freqs(k.astype(dt), d, n, dt)


def rfftfreq(n: int, d: Array = 1.0, *, dtype: Any = None) -> Array:
    """Sample frequencies of an `n`-point `rfft`.

    >>> rfftfreq(4)
    Array([0.  , 0.25, 0.5 ], dtype=float32)
    """
    if isinstance(n, list | tuple):
        raise ValueError("The n argument of jax.numpy.fft.rfftfreq only takes an int. "
                         f"Got n = {list(n)}.")
    if isinstance(d, list | tuple):
        raise ValueError("The d argument of jax.numpy.fft.rfftfreq only takes a single "
                         f"value. Got d = {list(d)}.")
    dt = _freq_dtype(dtype)
    k = np.arange(n // 2 + 1)
    return _divide_freqs(k.astype(dt), d, n, dt)


def _divide_freqs(k: np.ndarray, d: Array, n: int, dt: np.dtype) -> Array:
    if isinstance(d, int | float) and not isinstance(d, bool):
        with np.errstate(divide="ignore", invalid="ignore"):  # rfftfreq(0) is [nan], as JAX
            return creation.asarray((k / (d * n)).astype(dt))
    scale = ew.mul(st.convert_element_type(d, dt), np.array(n, dt))
    scale = st.broadcast_in_dim(scale, k.shape, ())
    return ew.div(creation.asarray(k), scale)


def _shift(x: Array, axes: Any, inverse: bool) -> Array:
    check_arraylike("jax.numpy.fft.fftshift", x)
    arr = creation.asarray(x)
    if axes is None:
        axes = tuple(range(arr.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    for ax in axes:
        ax = operator.index(ax) % arr.ndim if arr.ndim else 0
        n = arr.shape[ax]
        if n <= 1:
            continue
        # Roll by n // 2 (forward) or -(n // 2): move the last `shift` entries to the front.
        shift = n // 2 if not inverse else n - n // 2
        head = st.slice_in_dim(arr, n - shift, n, axis=ax)
        tail = st.slice_in_dim(arr, 0, n - shift, axis=ax)
        arr = st.concatenate([head, tail], ax)
    return arr


def fftshift(x: Array, axes: None | int | Sequence[int] = None) -> Array:
    """Move the zero frequency to the center.

    >>> import numjax.numpy as jnp
    >>> fftshift(jnp.arange(5))
    Array([3, 4, 0, 1, 2], dtype=int32)
    """
    return _shift(x, axes, inverse=False)


def ifftshift(x: Array, axes: None | int | Sequence[int] = None) -> Array:
    """Inverse of `fftshift`.

    >>> import numjax.numpy as jnp
    >>> ifftshift(jnp.arange(5))
    Array([2, 3, 4, 0, 1], dtype=int32)
    """
    return _shift(x, axes, inverse=True)


transfer_guard.entry_points(globals())
