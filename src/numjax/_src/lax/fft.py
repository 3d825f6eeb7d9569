"""`fft`: discrete Fourier transforms over the trailing `len(fft_lengths)` axes.

One primitive with a `fft_type` param, as in XLA: FFT and IFFT (complex to complex; IFFT
divides by the transform size), RFFT (real to the non-negative frequencies) and IRFFT (back).
Each is linear. NumPy's FFT computes in double precision; the kernel casts to the aval dtype,
so float32 inputs give complex64 results as in JAX.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray, aval_handlers, check_args_abstractify, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero
from numjax._src.interpreters.batching import moveaxis
from numjax._src.lax import complex_ops as cx
from numjax._src.lax import elementwise as ew
from numjax._src.lax import padding
from numjax._src.lax import structural as st
from numjax._src.typing import Array

__all__ = ["FftType", "fft", "fft_p"]


class FftType(enum.IntEnum):
    """The kind of transform (XLA's FftType values)."""

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3

    def __repr__(self) -> str:
        return f"FftType.{self.name}"

    __str__ = __repr__


def _complex_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.complex128) if dtype in (np.float64, np.complex128) else \
        np.dtype(np.complex64)


def _real_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float64) if dtype in (np.float64, np.complex128) else \
        np.dtype(np.float32)


fft_p = Primitive("fft")


def _fft_kernel(x: Any, *, fft_type: FftType, fft_lengths: tuple[int, ...]) -> Any:
    x = np.asarray(x)
    out: np.ndarray
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    if fft_type == FftType.FFT:
        out = np.fft.fftn(x, fft_lengths, axes)
        dtype = x.dtype
    elif fft_type == FftType.IFFT:
        out = np.fft.ifftn(x, fft_lengths, axes)
        dtype = x.dtype
    elif fft_type == FftType.RFFT:
        out = np.fft.rfftn(x, fft_lengths, axes)
        dtype = _complex_dtype(x.dtype)
    else:
        out = np.fft.irfftn(x, fft_lengths, axes)
        dtype = _real_dtype(x.dtype)
    return out.astype(dtype, copy=False)


@fft_p.def_abstract_eval
def _fft_abstract_eval(x: ShapedArray, *, fft_type: FftType, fft_lengths: tuple[int, ...]
                       ) -> ShapedArray:
    nd = len(fft_lengths)
    if nd > x.ndim:
        raise ValueError(f"FFT input shape {x.shape} must have at least as many input "
                         f"dimensions as fft_lengths {fft_lengths}.")
    if not 1 <= nd <= 3:
        raise ValueError(f"fft: rank must be between 1 and 3, but got {nd}.")
    minor = tuple(x.shape[-nd:])
    if fft_type == FftType.RFFT:
        if x.dtype not in (np.float32, np.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
        if minor != fft_lengths:
            raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be equal to "
                             f"fft_lengths {fft_lengths}")
        shape = (*x.shape[:-nd], *fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        return ShapedArray(shape, _complex_dtype(x.dtype))
    if x.dtype.kind != "c":
        raise ValueError(f"{fft_type.name} input must be complex64 or complex128, got "
                         f"{x.dtype}")
    if fft_type == FftType.IRFFT:
        if minor[:-1] != fft_lengths[:-1]:
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be equal to "
                             f"all except the last fft_length, got {fft_lengths=}")
        # XLA also takes an empty innermost dimension for a last length of 0.
        if minor[-1] != fft_lengths[-1] // 2 + 1 and (fft_lengths[-1], minor[-1]) != (0, 0):
            raise ValueError("IRFFT requires innermost dimension to be compatible with "
                             f"fft_length[-1]/2+1. Got: {minor[-1]} but fft_length is "
                             f"{fft_lengths[-1]}.")
        return ShapedArray((*x.shape[:-nd], *fft_lengths), _real_dtype(x.dtype))
    if minor != fft_lengths:
        raise ValueError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                         f"fft_lengths {fft_lengths}")
    return ShapedArray(x.shape, x.dtype)


def _rfft_transpose(ct: Any, fft_lengths: tuple[int, ...]) -> Any:
    # RFFT = slice(FFT(complex(x))): transpose each step. The slice transposes to zero
    # padding, the (symmetric) DFT to itself, and the real-to-complex embedding to `real`.
    n = fft_lengths[-1]
    aval = get_aval(ct)
    pads = [(0, 0, 0)] * (aval.ndim - 1) + [(0, n - aval.shape[-1], 0)]
    full = padding.pad(ct, np.zeros((), aval.dtype), pads)
    return cx.real(fft_p.bind(full, fft_type=FftType.FFT, fft_lengths=fft_lengths))


def _irfft_transpose(ct: Any, fft_lengths: tuple[int, ...], x_aval: ShapedArray) -> Any:
    # IRFFT reads each non-negative frequency other than DC (and Nyquist, for even n) twice,
    # through the Hermitian symmetry; the transpose weighs them by 2 and carries the 1/N.
    if 0 in fft_lengths:
        # An empty output: the cotangent of the input (which may still hold the single
        # frequency n // 2 + 1 = 1 of a last length of 0) is zero.
        return st.full_like(ct, 0, x_aval.dtype, shape=x_aval.shape)
    x = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
    aval = get_aval(x)
    m = aval.shape[-1]
    odd = fft_lengths[-1] % 2
    weights = np.concatenate([[1.0], np.full(m - 2 + odd, 2.0), np.ones(1 - odd)])[:m]
    weights = weights / math.prod(fft_lengths)
    scale = st.broadcast_in_dim(np.asarray(weights, aval.dtype), aval.shape, (aval.ndim - 1,))
    # JAX's convention for complex cotangents conjugates here.
    return cx.conj(ew.mul(scale, x))


def _fft_transpose(ct: Any, x: Any, *, fft_type: FftType, fft_lengths: tuple[int, ...]
                   ) -> list[Any]:
    if type(ct) is Zero:
        return [Zero(x.aval)]
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(ct, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(ct, fft_lengths, x.aval)]
    # The DFT matrix is symmetric, so FFT and IFFT are their own transposes.
    return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]


def _fft_batch(args: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple[Any, Any]:
    (x,), (d,) = args, dims
    return fft_p.bind(moveaxis(x, d, 0), **params), 0


fft_p.def_impl(_fft_kernel)


@fft_p.def_kernel_factory
def _fft_kernel_factory(in_avals: Any, *, fft_type: FftType, fft_lengths: tuple[int, ...]
                        ) -> Any:
    if 0 not in fft_lengths:
        return lambda x: _fft_kernel(x, fft_type=fft_type, fft_lengths=fft_lengths)
    # A transform of length 0 (NumPy refuses it) has an empty result; as in XLA, except an
    # RFFT whose last length is 0, which would have n // 2 + 1 = 1 frequency of nothing and
    # which XLA's verifier rejects when the program is compiled.
    out = _fft_abstract_eval(*in_avals, fft_type=fft_type, fft_lengths=fft_lengths)
    if fft_type == FftType.RFFT and fft_lengths[-1] == 0:
        raise ValueError("Cannot lower jaxpr with verifier errors:\n\tRFFT of fft_lengths "
                         f"{fft_lengths} (a last length of 0) for operand shape "
                         f"{in_avals[0].shape} has no result of shape {out.shape}")
    return lambda x: np.zeros(out.shape, out.dtype)


ad.linear_jvp(fft_p)
fft_p.def_transpose(_fft_transpose)
fft_p.def_batch(_fft_batch)


class _ParamText(str):
    """Printed without quotes in jaxprs."""


def _fft_params(params: dict[str, Any]) -> dict[str, Any]:
    return {"fft_lengths": params["fft_lengths"],
            "fft_type": _ParamText(f"jaxlib.xla_extension.FftType.{params['fft_type'].name}")}


fft_p.def_param_printer(_fft_params)


def _fft_type(fft_type: Any) -> FftType:
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str):
        try:
            return FftType[fft_type.upper()]
        except KeyError:
            raise ValueError(f"Unknown FFT type '{fft_type}'") from None
    name = getattr(fft_type, "name", None)
    if isinstance(name, str) and name in FftType.__members__:
        return FftType[name]
    raise TypeError(f"Unknown FFT type value '{fft_type}'")


def fft(x: Array, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Array:
    """FFT of `x` over its trailing `len(fft_lengths)` axes.

    >>> import numjax.numpy as jnp
    >>> fft(jnp.array([1.0, 0.0, 0.0, 0.0]), "RFFT", (4,))
    Array([1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
    """
    typ = _fft_type(fft_type)
    if type(x) not in aval_handlers or type(x) is np.ndarray:
        check_args_abstractify(x)  # JAX's fft is a jitted function of `x`
    dtype = dtypes.dtype(x)
    if typ == FftType.RFFT:
        if dtype.kind == "c":
            raise ValueError("only real valued inputs supported for rfft")
        target = dtypes.to_inexact_dtype(dtype)
    else:
        target = dtypes.to_complex_dtype(dtype)
    target = dtypes.canonicalize_dtype(target)
    lengths = tuple(int(n) for n in fft_lengths)
    if not lengths:  # no transform: only the promotion, which keeps a weak type
        return st._convert_element_type(x, target, dtypes.is_weakly_typed(x))
    if dtype != target or dtypes.is_weakly_typed(x):
        x = st.convert_element_type(x, target)
    return fft_p.bind(x, fft_type=typ, fft_lengths=lengths)
