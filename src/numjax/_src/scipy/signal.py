"""`jax.scipy.signal`: N-d convolution and correlation, detrending and Welch/STFT spectra.

Direct convolutions lower to `lax.conv_general_dilated` with one batch and one feature dimension;
`fftconvolve` multiplies spectra from `numjax.numpy.fft`. The spectral estimators cut the signal
into overlapping segments with one gather, window them and take a real or complex FFT per segment,
following JAX 0.4.30's conventions where they differ from SciPy's (e.g. `welch` without `nperseg`
uses the whole signal as one segment).
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.api.transformations import vmap
from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.lax.dot import Precision
from numjax._src.lax.structural import broadcast_shapes
from numjax._src.numpy.complex_fns import conjugate, imag, iscomplexobj, real
from numjax._src.numpy.creation import arange, array, asarray, linspace, ones, zeros, zeros_like
from numjax._src.numpy.fft import (
    fft,
    fftfreq,
    fftn,
    ifft,
    ifftn,
    irfft,
    irfftn,
    rfft,
    rfftfreq,
    rfftn,
)
from numjax._src.numpy.lax_numpy import matmul, where
from numjax._src.numpy.linalg import lstsq
from numjax._src.numpy.manipulation import _concrete_or_error, repeat
from numjax._src.numpy.padding import pad as jnp_pad
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.shape import concatenate, flip, moveaxis, ndim, reshape, transpose, vstack
from numjax._src.numpy.statistics import median
from numjax._src.numpy.ufuncs import sin, sqrt
from numjax._src.numpy.util import canonicalize_axis, check_arraylike, promote_dtypes_inexact
from numjax._src.typing import Array


def _promote_dtypes_complex(*args: Array) -> list[Array]:
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dtype = dtypes.to_complex_dtype(dtype)
    return [lax._convert_element_type(x, dtype, weak) for x in args]


def _concrete_int(value: Any, context: str) -> int:
    return operator.index(_concrete_or_error(value, context).item())


# ---- convolution and correlation -----------------------------------------------------------


def _check_mode(mode: str) -> None:
    if mode not in ("full", "same", "valid"):
        raise ValueError("mode must be one of ['full', 'same', 'valid']")


def _convolve_nd(in1: Array, in2: Array, mode: str, *, precision: Any) -> Array:
    _check_mode(mode)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError("zero-size arrays not supported in convolutions, got shapes "
                         f"{in1.shape} and {in2.shape}.")
    in1, in2 = promote_dtypes_inexact(in1, in2)
    pairs = list(zip(in1.shape, in2.shape, strict=True))
    no_swap = all(s1 >= s2 for s1, s2 in pairs)
    swap = all(s1 <= s2 for s1, s2 in pairs)
    if not (no_swap or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    kept_shape = in2.shape  # 'same' centres the output on in1 as given, before any swap
    if swap:
        in1, in2 = in2, in1
    # conv_general_dilated correlates; flipping the kernel makes it a convolution.
    kernel = lax.rev(in2, tuple(range(in2.ndim)))
    if mode == "valid":
        padding = [(0, 0)] * in2.ndim
    elif mode == "same":
        padding = [(k - 1 - (s - 1) // 2, k - s + (s - 1) // 2)
                   for k, s in zip(in2.shape, kept_shape, strict=True)]
    else:
        padding = [(k - 1, k - 1) for k in in2.shape]
    out = lax.conv_general_dilated(in1[None, None], kernel[None, None], (1,) * in2.ndim,
                                   padding, precision=precision)
    return out[0, 0]


def convolve(in1: Array, in2: Array, mode: str = "full", method: str = "auto",
             precision: Any = None) -> Array:
    """N-d convolution of `in1` with `in2` (method 'auto' and 'direct' use a convolution, 'fft'
    uses `fftconvolve`).

    >>> import numjax.numpy as jnp
    >>> convolve(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5]))
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
    """
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return _convolve_nd(in1, in2, mode, precision=precision)
    raise ValueError(f"Got {method=}; expected 'auto', 'fft', or 'direct'.")


def _check_2d(name: str, in1: Array, in2: Array, boundary: str, fillvalue: float) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if ndim(in1) != 2 or ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve2d(in1: Array, in2: Array, mode: str = "full", boundary: str = "fill",
               fillvalue: float = 0, precision: Any = None) -> Array:
    """2-d convolution; only zero filling at the boundary.

    >>> import numjax.numpy as jnp
    >>> convolve2d(jnp.eye(2), jnp.ones((2, 2)))
    Array([[1., 1., 0.],
           [1., 2., 1.],
           [0., 1., 1.]], dtype=float32)
    """
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd(in1, in2, mode, precision=precision)


def correlate(in1: Array, in2: Array, mode: str = "full", method: str = "auto",
              precision: Any = None) -> Array:
    """N-d cross-correlation: the convolution with `in2` conjugated and reversed.

    >>> import numjax.numpy as jnp
    >>> correlate(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5]))
    Array([0.5, 2. , 3.5, 3. , 0. ], dtype=float32)
    """
    return convolve(in1, flip(in2.conj()), mode, precision=precision, method=method)


def correlate2d(in1: Array, in2: Array, mode: str = "full", boundary: str = "fill",
                fillvalue: float = 0, precision: Any = None) -> Array:
    """2-d cross-correlation; only zero filling at the boundary.

    >>> import numjax.numpy as jnp
    >>> correlate2d(jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([[1.0, 0.0]]))
    Array([[0., 1., 2.],
           [0., 3., 4.]], dtype=float32)
    """
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    # correlate(a, b) = flip(convolve(flip(a), conj(b))); when in2 is the larger input the
    # convolution would swap its operands, so flip in2 instead and conjugate the result.
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    same_shape = in1.shape == in2.shape
    flip_in2 = swap and not same_shape if mode == "valid" else swap and mode != "same"
    if flip_in2:
        out = _convolve_nd(flip(in2), in1.conj(), mode, precision=precision)
        return out if mode == "valid" else out.conj()
    return flip(_convolve_nd(flip(in1), in2.conj(), mode, precision=precision))


def fftconvolve(in1: Array, in2: Array, mode: str = "full",
                axes: Sequence[int] | None = None) -> Array:
    """N-d convolution through FFTs, optionally only along `axes` (the others must match and
    are mapped over).

    >>> import numjax.numpy as jnp
    >>> fftconvolve(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5])).round(4)
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
    """
    check_arraylike("fftconvolve", in1, in2)
    in1, in2 = promote_dtypes_inexact(in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in ("same", "full", "valid"):
        raise ValueError("mode must be one of ['same', 'full', 'valid']")
    conv: Callable[[Array, Array], Array] = partial(_fftconvolve_unbatched, mode=mode)
    if axes is None:
        return conv(in1, in2)
    try:
        axes_tuple: tuple[int, ...] = (operator.index(axes),)  # type: ignore[arg-type]
    except TypeError:
        axes_tuple = tuple(map(operator.index, axes))
    axes_tuple = tuple(canonicalize_axis(a, in1.ndim) for a in axes_tuple)
    mapped = sorted(set(range(in1.ndim)) - set(axes_tuple))
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
        raise ValueError(f"mapped axes must have same shape; got in1.shape={in1.shape} "
                         f"in2.shape={in2.shape} axes={axes_tuple}")
    for ax in mapped:  # wrapping from the smallest axis out keeps each index valid
        conv = vmap(conv, in_axes=ax, out_axes=ax)
    return conv(in1, in2)


def _fftconvolve_unbatched(in1: Array, in2: Array, mode: str) -> Array:
    if in1.ndim == 0:  # JAX fails inside jnp.pad with this message
        raise ValueError("jnp.pad: pad_width with nd=0 has unsupported shape (0,). Valid shapes "
                         "are (0, 2), (1, 2), (2,), (1,), or ().")
    full_shape = tuple(s1 + s2 - 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    if mode == "valid":
        pairs = list(zip(in1.shape, in2.shape, strict=True))
        no_swap = all(s1 >= s2 for s1, s2 in pairs)
        swap = all(s1 <= s2 for s1, s2 in pairs)
        if not (no_swap or swap):
            raise ValueError("For 'valid' mode, One input must be at least as large as the "
                             "other in every dimension.")
        if swap:
            in1, in2 = in2, in1
    if iscomplexobj(in1):
        forward, inverse = fftn, ifftn
    else:
        forward, inverse = rfftn, irfftn
    conv = inverse(forward(in1, full_shape) * forward(in2, full_shape), full_shape)
    if mode == "full":
        out_shape = full_shape
    elif mode == "same":
        out_shape = in1.shape
    else:
        out_shape = tuple(s1 - s2 + 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    starts = tuple((f - o) // 2 for f, o in zip(full_shape, out_shape, strict=True))
    return lax.dynamic_slice(conv, starts, out_shape)


# ---- detrending ----------------------------------------------------------------------------


def detrend(data: Array, axis: int = -1, type: str = "linear", bp: Any = 0,
            overwrite_data: None = None) -> Array:
    """Remove the mean ('constant') or a least-squares line ('linear', piecewise between the
    breakpoints `bp`) along `axis`.

    >>> import numjax.numpy as jnp
    >>> detrend(jnp.array([1.0, 2.0, 4.0, 5.0]), type="constant")
    Array([-2., -1.,  1.,  2.], dtype=float32)
    """
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    (arr,) = promote_dtypes_inexact(asarray(data))
    if type == "constant":
        return arr - arr.mean(axis, keepdims=True)
    n = arr.shape[axis]
    breaks = np.sort(np.unique(np.r_[0, bp, n]))
    if breaks[0] < 0 or breaks[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data along "
                         "given axis.")
    arr = moveaxis(arr, axis, 0)
    shape = arr.shape
    arr = arr.reshape(n, -1)
    dtype = arr.dtype
    for lo, hi in zip(breaks[:-1], breaks[1:], strict=True):
        npts = hi - lo
        # The design matrix [1, t] with t = (1..npts) / npts on this piece.
        design = vstack([ones(npts, dtype=dtype),
                             arange(1, npts + 1, dtype=dtype) / npts.astype(dtype)]).T
        piece = slice(lo, hi)
        coef, *_ = lstsq(design, arr[piece])
        arr = arr.at[piece].add(-matmul(design, coef, precision=Precision.HIGHEST))
    return moveaxis(arr.reshape(shape), 0, axis)


# ---- windows and segments ------------------------------------------------------------------


def _hann(n: int) -> Array:
    """The periodic Hann window sin^2(pi k / n), as JAX builds it (float32)."""
    if n == 1:
        return array([1.0])
    return sin(linspace(0, np.pi, n, endpoint=False)) ** 2


def _named_window(window: str | tuple[Any, ...], n: int) -> Any:
    if window == "hann":
        return _hann(n)
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f"scipy must be available to use {window=}") from err
    return get_window(window, n)


def _triage_segments(window: Any, nperseg: int | None, input_length: int,
                     dtype: Any) -> tuple[Array, int]:
    """The window as an array and the segment length: a named window is `nperseg` long (the
    whole signal when None, and at most that); an array window fixes the length."""
    if isinstance(window, str | tuple):
        n = input_length if nperseg is None else int(nperseg)
        if n > input_length:
            warnings.warn(f"nperseg={n} is greater than input_length={input_length}, using "
                          f"nperseg={input_length}", stacklevel=4)
            n = input_length
        return array(_named_window(window, n), dtype=dtype), n
    win = asarray(window)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if input_length < win.size:
        raise ValueError("window is longer than input signal")
    if n != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _segments(x: Array, nperseg: int, step: int) -> Array:
    """x's last axis cut into overlapping windows: shape (..., nsegments, nperseg)."""
    nseg = (x.shape[-1] - nperseg) // step + 1
    index = step * np.arange(nseg)[:, None] + np.arange(nperseg)[None, :]
    return x[..., index.astype(np.int32)]


def _fft_segments(x: Array, win: Array, detrend_func: Callable[[Array], Array],
                  nperseg: int, noverlap: int, nfft: int, sides: str) -> Array:
    """The windowed FFT of each segment of x (the last axis), SciPy's `_fft_helper`."""
    if nperseg == 1 and noverlap == 0:
        result = x[..., None]
    else:
        result = _segments(x, nperseg, nperseg - noverlap)
    result = detrend_func(result)
    if iscomplexobj(win):
        (result,) = _promote_dtypes_complex(result)
    result = win * result
    if sides == "twosided":
        return fft(result, n=nfft)
    return rfft(result.real, n=nfft)


def _odd_extension(x: Array, n: int, axis: int = -1) -> Array:
    """x extended by n points at both ends with its point reflection about the end values."""
    if n < 1:
        return x
    if n > x.shape[axis] - 1:
        raise ValueError(f"The extension length n ({n}) is too big. It must not exceed "
                         f"x.shape[axis]-1, which is {x.shape[axis] - 1}.")
    first = lax.slice_in_dim(x, 0, 1, axis=axis)
    last = lax.slice_in_dim(x, -1, None, axis=axis)
    head = flip(lax.slice_in_dim(x, 1, n + 1, axis=axis), axis=axis)
    tail = flip(lax.slice_in_dim(x, -(n + 1), -1, axis=axis), axis=axis)
    return concatenate((2 * first - head, x, 2 * last - tail), axis=axis)


def _pad_both(mode: str, **kwargs: Any) -> Callable[..., Array]:
    def pad(x: Array, n: int, axis: int = -1) -> Array:
        widths = [(0, 0)] * x.ndim
        widths[axis] = (n, n)
        return jnp_pad(x, widths, mode, **kwargs)
    return pad


_BOUNDARY_EXTENSIONS: dict[str | None, Callable[..., Array]] = {
    "even": _pad_both("reflect"),
    "odd": _odd_extension,
    "constant": _pad_both("edge"),
    "zeros": _pad_both("constant", constant_values=0.0),
    None: lambda x, *args, **kwargs: x,
}


# ---- spectra -------------------------------------------------------------------------------


def _spectral_helper(x: Array, y: Array | None, fs: Array = 1.0, window: Any = "hann",  # noqa: C901
                     nperseg: int | None = None, noverlap: int | None = None,
                     nfft: int | None = None,
                     detrend_type: bool | str | Callable[[Array], Array] = "constant",
                     return_onesided: bool = True, scaling: str = "density", axis: int = -1,
                     mode: str = "psd", boundary: str | None = None,
                     padded: bool = False) -> tuple[Array, Array, Array]:
    """SciPy's `_spectral_helper`: frequencies, segment times and the per-segment spectra
    (cross spectra when `y` is given), the frequency axis at `axis` and segments last."""
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in _BOUNDARY_EXTENSIONS:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f"{list(_BOUNDARY_EXTENSIONS)}")
    axis = canonicalize_axis(_concrete_int(axis, "axis of windowed-FFT"), x.ndim)
    if y is None:
        check_arraylike("spectral_helper", x)
        (x,) = promote_dtypes_inexact(x)
        y_arr = x
        outer_shape = tuple(np.delete(x.shape, axis))
    else:
        if mode != "psd":
            raise ValueError("two-argument mode is available only when mode=='psd'")
        check_arraylike("spectral_helper", x, y)
        x, y_arr = promote_dtypes_inexact(x, y)
        if x.ndim != y_arr.ndim:
            raise ValueError("two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
        try:
            outer_shape = broadcast_shapes(tuple(np.delete(x.shape, axis)),
                                               tuple(np.delete(y_arr.shape, axis)))
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
    result_dtype = dtypes.to_complex_dtype(x.dtype)
    freq_dtype = np.finfo(result_dtype).dtype

    nperseg_int = None
    if nperseg is not None:
        nperseg_int = _concrete_int(nperseg, "nperseg of windowed-FFT")
        if nperseg_int < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg_int = _triage_segments(window, nperseg_int, x.shape[axis], x.dtype)
    noverlap_int = (nperseg_int // 2 if noverlap is None
                    else _concrete_int(noverlap, "noverlap of windowed-FFT"))
    nfft_int = nperseg_int if nfft is None else _concrete_int(nfft, "nfft of windowed-FFT")

    if x.size == 0 or y_arr.size == 0:
        length = x.shape[axis] if y is None else min(x.shape[axis], y_arr.shape[axis])
        shape = x.shape if y is None else (*outer_shape[:axis], length, *outer_shape[axis:])
        return (zeros(shape, freq_dtype), zeros(shape, freq_dtype),
                zeros(shape, result_dtype))

    x = moveaxis(x, axis, -1)
    if y is not None and y_arr.ndim > 1:
        y_arr = moveaxis(y_arr, axis, -1)
    if y is not None and x.shape[-1] != y_arr.shape[-1]:  # zero-pad the shorter signal
        if x.shape[-1] < y_arr.shape[-1]:
            extra = zeros_like(x, shape=(*x.shape[:-1], y_arr.shape[-1] - x.shape[-1]))
            x = concatenate((x, extra), -1)
        else:
            extra = zeros_like(x, shape=(*y_arr.shape[:-1], x.shape[-1] - y_arr.shape[-1]))
            y_arr = concatenate((y_arr, extra), -1)

    if nfft_int < nperseg_int:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap_int >= nperseg_int:
        raise ValueError("noverlap must be less than nperseg.")
    nstep = nperseg_int - noverlap_int

    if boundary is not None:
        extend = _BOUNDARY_EXTENSIONS[boundary]
        x = extend(x, nperseg_int // 2, axis=-1)
        if y is not None:
            y_arr = extend(y_arr, nperseg_int // 2, axis=-1)
    if padded:  # zero-pad so that the segments cover the whole signal
        nadd = (-(x.shape[-1] - nperseg_int) % nstep) % nperseg_int
        x = concatenate((x, zeros_like(x, shape=(*x.shape[:-1], nadd))), axis=-1)
        if y is not None:
            y_arr = concatenate(
                (y_arr, zeros_like(x, shape=(*y_arr.shape[:-1], nadd))), axis=-1)

    detrend_func = _detrend_function(detrend_type, axis)
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = sqrt(scale)
    (scale,) = _promote_dtypes_complex(scale)

    sides = "onesided" if return_onesided else "twosided"
    if return_onesided and (iscomplexobj(x) or iscomplexobj(y)):
        sides = "twosided"
        warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
    if sides == "twosided":
        freqs = fftfreq(nfft_int, 1 / fs, dtype=freq_dtype)
    else:
        freqs = rfftfreq(nfft_int, 1 / fs, dtype=freq_dtype)

    args = (win, detrend_func, nperseg_int, noverlap_int, nfft_int, sides)
    result = _fft_segments(x, *args)
    if y is not None:
        result = conjugate(result) * _fft_segments(y_arr, *args)
    elif mode == "psd":
        result = conjugate(result) * result
    result *= scale
    if sides == "onesided" and mode == "psd":
        # A one-sided spectrum folds the negative frequencies onto the positive ones: all bins
        # but DC (and Nyquist, for even nfft) count twice.
        end = None if nfft_int % 2 else -1
        result = result.at[..., 1:end].mul(2)

    time = arange(nperseg_int / 2, x.shape[-1] - nperseg_int / 2 + 1, nstep,
                      dtype=freq_dtype) / fs
    if boundary is not None:
        time -= (nperseg_int / 2) / fs
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = result.real
    return freqs, time, moveaxis(result, -1, axis)


def _detrend_function(detrend_type: Any, axis: int) -> Callable[[Array], Array]:
    if not detrend_type:
        return lambda d: d
    if not callable(detrend_type):
        return partial(detrend, type=detrend_type, axis=-1)

    # As in JAX, a callable sees the segments with `axis` (already non-negative) moved last.
    def moved(d: Array) -> Array:
        return moveaxis(detrend_type(moveaxis(d, axis, -1)), -1, axis)
    return moved


def stft(x: Array, fs: Array = 1.0, window: Any = "hann", nperseg: int = 256,
         noverlap: int | None = None, nfft: int | None = None, detrend: Any = False,
         return_onesided: bool = True, boundary: str | None = "zeros", padded: bool = True,
         axis: int = -1) -> tuple[Array, Array, Array]:
    """The short-time Fourier transform: frequencies, segment times and the spectrum of each
    segment (frequencies at `axis`, segment times last).

    >>> import numjax.numpy as jnp
    >>> f, t, Z = stft(jnp.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0]), nperseg=4)
    >>> f, t, Z.shape
    (Array([0.  , 0.25, 0.5 ], dtype=float32), Array([0., 2., 4., 6.], dtype=float32), (3, 4))
    """
    return _spectral_helper(x, None, fs, window, nperseg, noverlap, nfft, detrend,
                            return_onesided, scaling="spectrum", axis=axis, mode="stft",
                            boundary=boundary, padded=padded)


def csd(x: Array, y: Array | None, fs: Array = 1.0, window: Any = "hann",
        nperseg: int | None = None, noverlap: int | None = None, nfft: int | None = None,
        detrend: Any = "constant", return_onesided: bool = True, scaling: str = "density",
        axis: int = -1, average: str = "mean") -> tuple[Array, Array]:
    """Welch's estimate of the cross power spectral density of x and y (of x alone, real,
    when y is None).

    >>> import numjax.numpy as jnp
    >>> csd(jnp.array([1.0, 2.0, 3.0, 2.0]), jnp.array([0.0, 1.0, 0.0, 1.0]), nperseg=2)
    (Array([0. , 0.5], dtype=float32), Array([-0.08333334+0.j, -0.08333334+0.j], dtype=complex64))
    """
    freqs, _, pxy = _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                                     return_onesided, scaling, axis, mode="psd")
    if y is not None:
        pxy = pxy + 0j
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:  # average the segments' periodograms
            if average == "median":
                bias = _median_bias(pxy.shape[-1]).astype(pxy.dtype)
                if iscomplexobj(pxy):
                    pxy = (median(real(pxy), axis=-1)
                           + 1j * median(imag(pxy), axis=-1))
                else:
                    pxy = median(pxy, axis=-1)
                pxy /= bias
            elif average == "mean":
                pxy = pxy.mean(axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = reshape(pxy, pxy.shape[:-1])
    return freqs, pxy


def _median_bias(n: int) -> Array:
    """The ratio of the median to the mean of n chi^2_2 periodograms (Allen et al. 2012, B)."""
    even = arange(2.0, n, 2)
    return 1 + jnp_sum(1.0 / (even + 1) - 1.0 / even)


def welch(x: Array, fs: Array = 1.0, window: Any = "hann", nperseg: int | None = None,
          noverlap: int | None = None, nfft: int | None = None, detrend: Any = "constant",
          return_onesided: bool = True, scaling: str = "density", axis: int = -1,
          average: str = "mean") -> tuple[Array, Array]:
    """Welch's estimate of the power spectral density: the average of the segments' modified
    periodograms.

    >>> import numjax.numpy as jnp
    >>> welch(jnp.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0]), nperseg=4)[1].round(4)
    Array([0.44439998, 1.4444    , 0.22219999], dtype=float32)
    """
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap,
                     nfft=nfft, detrend=detrend, return_onesided=return_onesided,
                     scaling=scaling, axis=axis, average=average)
    return freqs, pxx.real


# ---- inverse STFT --------------------------------------------------------------------------


def _overlap_and_add(frames: Array, step: int) -> Array:
    """Sum (..., nframes, length) frames placed `step` apart: shape (..., step*(n-1)+length)."""
    *batch, nframes, length = frames.shape
    out_size = step * (nframes - 1) + length
    pieces = -(-length // step)  # each frame split into `pieces` chunks of `step` samples
    frames = jnp_pad(frames, [(0, 0)] * len(batch) + [(0, 0), (0, pieces * step - length)])
    chunks = frames.reshape(*batch, nframes, pieces, step)
    # Chunk k of frame f lands on output block f + k: shift chunk k by k blocks and add.
    total = jnp_pad(chunks[..., 0, :], [(0, 0)] * len(batch) + [(0, pieces - 1), (0, 0)])
    for k in range(1, pieces):
        widths = [(0, 0)] * len(batch) + [(k, pieces - 1 - k), (0, 0)]
        total = total + jnp_pad(chunks[..., k, :], widths)
    return total.reshape(*batch, -1)[..., :out_size]


def _greater(x: Array, y: float) -> Array:
    """x > y, ordering complex x lexicographically (real part first) as jnp.greater does."""
    if not iscomplexobj(x):
        return x > y
    return where(x.real == y, x.imag > 0, x.real > y)


def istft(Zxx: Array, fs: Array = 1.0, window: Any = "hann", nperseg: int | None = None,
          noverlap: int | None = None, nfft: int | None = None, input_onesided: bool = True,
          boundary: bool = True, time_axis: int = -1,
          freq_axis: int = -2) -> tuple[Array, Array]:
    """The inverse of `stft` by weighted overlap-add: signal times and the signal.

    >>> import numjax.numpy as jnp
    >>> x = jnp.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0])
    >>> istft(stft(x, nperseg=4)[2])[1].round(4)
    Array([1., 2., 3., 2., 1., 0., 1., 2.], dtype=float32)
    """
    check_arraylike("istft", Zxx)
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis = canonicalize_axis(freq_axis, Zxx.ndim)
    time_axis = canonicalize_axis(time_axis, Zxx.ndim)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    Zxx = asarray(Zxx, dtype=dtypes.canonicalize_dtype(
        np.result_type(get_aval(Zxx).dtype, np.complex64)))
    n_default = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    nperseg_int = _concrete_int(nperseg or n_default, "nperseg: segment length of STFT")
    if nperseg_int < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft_int = n_default
        if input_onesided and nperseg_int == n_default + 1:
            nfft_int += 1  # odd nperseg, no FFT padding
    else:
        nfft_int = _concrete_int(nfft, "nfft of STFT")
    if nfft_int < nperseg_int:
        raise ValueError(f"FFT length ({nfft_int}) must be longer than nperseg "
                         f"({nperseg_int}).")
    # `or`, as in JAX: noverlap=0 also means the default half-segment overlap.
    noverlap_int = _concrete_int(noverlap or nperseg_int // 2, "noverlap of STFT")
    if noverlap_int >= nperseg_int:
        raise ValueError("noverlap must be less than nperseg.")
    nstep = nperseg_int - noverlap_int

    if time_axis != Zxx.ndim - 1 or freq_axis != Zxx.ndim - 2:
        outer = tuple(i for i in range(Zxx.ndim) if i not in (time_axis, freq_axis))
        Zxx = transpose(Zxx, (*outer, freq_axis, time_axis))
    inverse = irfft if input_onesided else ifft
    # JAX passes the caller's nfft here, not the one derived above.
    xsubs = inverse(Zxx, axis=-2, n=nfft)[..., :nperseg_int, :]
    if isinstance(window, str | tuple):
        win = array(_named_window(window, nperseg_int)).astype(xsubs.dtype)
    else:
        win = asarray(window)
        if len(win.shape) != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg_int:
            raise ValueError(f"window must have length of {nperseg_int}")
    xsubs *= win.sum()  # undoes stft's 'spectrum' scaling
    win = lax.expand_dims(win, (*range(xsubs.ndim - 2), -1))
    x = _overlap_and_add((xsubs * win).swapaxes(-2, -1), nstep)
    win_squared = repeat(win * win, xsubs.shape[-1], axis=-1)
    norm = _overlap_and_add(win_squared.swapaxes(-2, -1), nstep)
    if boundary:
        half = nperseg_int // 2
        x = x[..., half:-half]
        norm = norm[..., half:-half]
    x /= where(_greater(norm, 1e-10), norm, 1.0)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        if freq_axis < time_axis:
            time_axis -= 1
        x = moveaxis(x, -1, time_axis)
    time = arange(x.shape[0], dtype=np.finfo(x.dtype).dtype) / fs
    return time, x
