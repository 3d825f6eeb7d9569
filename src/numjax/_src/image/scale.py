"""`jax.image`: resize and scale-and-translate images by separable resampling kernels.

Each resized axis gets an (input size, output size) weight matrix: output pixel j samples the input
at s = (j + 0.5) / scale - translation / scale - 0.5 (half-pixel centres), and the weight of input
pixel i is kernel(|s - i| / kernel_scale), normalised to sum to one per output pixel. With
`antialias` and downsampling, kernel_scale = 1 / scale widens the kernel into a low-pass filter.
One einsum applies all the matrices. The kernels are JAX's own (triangle, Keys cubic with
a = -0.5, Lanczos 3 and 5), not PIL's, so the values are JAX 0.4.30's.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from numjax._src.api.jit import jit
from numjax._src.dtypes import issubdtype, result_type
from numjax._src.lax.dot import Precision
from numjax._src.numpy.creation import arange
from numjax._src.numpy.einsum import einsum
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.shape import invalid_shape_error
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import divide, floor, logical_and, maximum, sin
from numjax._src.numpy.util import canonicalize_axis, promote_dtypes_inexact
from numjax._src.typing import Array


def _checked_method(image: Array, shape: tuple[int, ...], method: str | ResizeMethod
                    ) -> ResizeMethod:
    """The resize method named by `method`, after checking `shape` has one size per axis."""
    if len(shape) != image.ndim:
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {image.shape}")
    return ResizeMethod.from_string(method) if isinstance(method, str) else method


def _canonicalize_shape(shape: Any) -> tuple[int, ...]:
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        pass
    iter(shape)  # JAX's check iterates the shape: a non-iterable raises its own TypeError
    raise invalid_shape_error(shape)


# ---- kernels (of a distance x >= 0) ------------------------------------------------------


def _lanczos_kernel(radius: float, x: Array) -> Array:
    """sinc(x) sinc(x / radius) for x <= radius; 1 near 0, where the quotient is inexact."""
    y = radius * sin(np.pi * x) * sin(np.pi * x / radius)
    out = where(x > 1e-3, divide(y, where(x != 0, np.pi**2 * x**2, 1)), 1)
    return where(x > radius, 0.0, out)


def _keys_cubic_kernel(x: Array) -> Array:
    """Keys' cubic convolution kernel with a = -0.5 (Catmull-Rom), in Horner form."""
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return where(x >= 2.0, 0.0, out)


def _triangle_kernel(x: Array) -> Array:
    return maximum(0, 1 - jnp_abs(x))


class ResizeMethod(enum.Enum):
    """Resampling method of `resize` and `scale_and_translate`: NEAREST, LINEAR (triangle
    kernel), LANCZOS3, LANCZOS5 (Lanczos kernels of radius 3 and 5) or CUBIC (Keys kernel).

    >>> ResizeMethod.from_string("bilinear")
    <ResizeMethod.LINEAR: 1>
    """

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        """The method a name means: 'nearest', 'linear' ('bilinear', 'trilinear', 'triangle'),
        'lanczos3', 'lanczos5' or 'cubic' ('bicubic', 'tricubic')."""
        if s == "nearest":
            return ResizeMethod.NEAREST
        if s in ("linear", "bilinear", "trilinear", "triangle"):
            return ResizeMethod.LINEAR
        if s == "lanczos3":
            return ResizeMethod.LANCZOS3
        if s == "lanczos5":
            return ResizeMethod.LANCZOS5
        if s in ("cubic", "bicubic", "tricubic"):
            return ResizeMethod.CUBIC
        raise ValueError(f'Unknown resize method "{s}"')


_KERNELS: dict[ResizeMethod, Callable[[Array], Array]] = {
    ResizeMethod.LINEAR: _triangle_kernel,
    ResizeMethod.LANCZOS3: partial(_lanczos_kernel, 3.0),
    ResizeMethod.LANCZOS5: partial(_lanczos_kernel, 5.0),
    ResizeMethod.CUBIC: _keys_cubic_kernel,
}


# ---- weight matrices ---------------------------------------------------------------------


def compute_weight_mat(input_size: int, output_size: int, scale: Any, translation: Any,
                       kernel: Callable[[Array], Array], antialias: bool) -> Array:
    """The (input_size, output_size) resampling matrix of one axis."""
    dtype = result_type(scale, translation)
    inv_scale = 1.0 / scale
    kernel_scale = maximum(inv_scale, 1.0) if antialias else 1.0
    sample_f = ((arange(output_size, dtype=dtype) + 0.5) * inv_scale
                - translation * inv_scale - 0.5)
    distance = jnp_abs(sample_f[None, :] - arange(input_size, dtype=dtype)[:, None])
    weights = kernel(distance / kernel_scale)
    total = jnp_sum(weights, axis=0, keepdims=True)
    # Normalise each column; a column whose weights nearly cancel gets zeros instead.
    weights = where(jnp_abs(total) > 1000.0 * float(np.finfo(np.float32).eps),
                        divide(weights, where(total != 0, total, 1)), 0)
    # Output pixels sampling outside the input (beyond half a pixel) are zero.
    inside = logical_and(sample_f >= -0.5, sample_f <= input_size - 0.5)
    return where(inside[None, :], weights, 0)


def _scale_and_translate(x: Array, output_shape: tuple[int, ...], spatial_dims: Sequence[int],
                         scale: Any, translation: Any, kernel: Callable[[Array], Array],
                         antialias: bool, precision: Any, jitted: bool) -> Array:
    assert len(x.shape) == len(output_shape)
    assert len(spatial_dims) == len(scale) == len(translation)
    if not spatial_dims:
        return x
    # For float16/bfloat16 images XLA on CPU contracts in float32 and rounds once at the end;
    # inside a jit (JAX jits `resize`) it also drops the rounding of the weights to x's dtype.
    # Following both gives JAX's values bit for bit.
    narrow = x.dtype.itemsize < 4 and issubdtype(x.dtype, np.floating)
    operands: list[Any] = []
    in_indices = list(range(len(output_shape)))
    out_indices = list(range(len(output_shape)))
    for i, d in enumerate(spatial_dims):
        d = canonicalize_axis(d, x.ndim)
        w = compute_weight_mat(x.shape[d], output_shape[d], scale[i], translation[i], kernel,
                               antialias)
        if not (narrow and jitted):
            w = w.astype(x.dtype)
        operands += [w.astype(np.float32) if narrow else w, [d, len(output_shape) + i]]
        out_indices[d] = len(output_shape) + i
    if narrow:
        return einsum(x.astype(np.float32), in_indices, *operands, out_indices,
                          precision=precision).astype(x.dtype)
    return einsum(x, in_indices, *operands, out_indices, precision=precision)


def scale_and_translate(image: Array, shape: Sequence[int], spatial_dims: Sequence[int],
                        scale: Any, translation: Any, method: str | ResizeMethod,
                        antialias: bool = True, precision: Any = Precision.HIGHEST) -> Array:
    """Resample `image` to `shape`, mapping input location x (half-pixel centres) along each
    of `spatial_dims` to x * scale + translation; samples from outside the input are zero.

    >>> import numjax.numpy as jnp
    >>> scale_and_translate(jnp.array([1.0, 2.0, 3.0, 4.0]), (4,), (0,), jnp.array([1.0]),
    ...                     jnp.array([1.0]), "linear")
    Array([0., 1., 2., 3.], dtype=float32)
    """
    shape = _canonicalize_shape(shape)
    method = _checked_method(image, shape, method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported for "
                         "scale_and_translate.")
    (image,) = promote_dtypes_inexact(image)
    scale, translation = promote_dtypes_inexact(scale, translation)
    return _scale_and_translate(image, shape, spatial_dims, scale, translation,
                                _KERNELS[method], antialias, precision, jitted=False)


# ---- resize --------------------------------------------------------------------------------


def _resize_nearest(x: Array, output_shape: tuple[int, ...]) -> Array:
    """Pick input pixel floor((j + 0.5) * m / n) for output pixel j, in float32 like JAX."""
    for d, (m, n) in enumerate(zip(x.shape, output_shape, strict=True)):
        if m == n:
            continue
        offsets = (arange(n, dtype=np.float32) + 0.5) * m / n
        index: list[Any] = [slice(None)] * x.ndim
        index[d] = floor(offsets).astype(np.int32)
        x = x[tuple(index)]
    return x


@partial(jit, static_argnums=(1, 2, 3, 4))
def _resize(image: Array, shape: tuple[int, ...], method: str | ResizeMethod, antialias: bool,
            precision: Any) -> Array:
    method = _checked_method(image, shape, method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    (image,) = promote_dtypes_inexact(image)
    spatial_dims = tuple(i for i, (m, n) in enumerate(zip(image.shape, shape, strict=True))
                         if m != n)
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    return _scale_and_translate(image, shape, spatial_dims, scale, [0.0] * len(spatial_dims),
                                _KERNELS[method], antialias, precision, jitted=True)


def resize(image: Array, shape: Sequence[int], method: str | ResizeMethod,
           antialias: bool = True, precision: Any = Precision.HIGHEST) -> Array:
    """`image` resampled to `shape` (every axis, batch and channel axes included: leave those
    unchanged); `antialias` low-pass filters when downsampling (not for 'nearest').

    >>> import numjax.numpy as jnp
    >>> resize(jnp.array([0.0, 1.0]), (4,), "linear")
    Array([0.  , 0.25, 0.75, 1.  ], dtype=float32)
    """
    return _resize(image, _canonicalize_shape(shape), method, antialias, precision)
