"""Parameter initializers: JAX's `jax.nn.initializers` (the Keras and Sonnet definitions).

An initializer is a function `init(key, shape, dtype=float) -> Array`; the functions here that
take hyperparameters return one. The random ones draw with `numjax.random` exactly as JAX
does, so a key gives JAX's values.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Sequence
from typing import Any, Literal, Protocol

import numpy as np

from numjax._src import dtypes
from numjax._src.dtypes import issubdtype
from numjax._src.lax.structural import broadcast_to_rank
from numjax._src.numpy.creation import array, full
from numjax._src.numpy.creation import ones as jnp_ones
from numjax._src.numpy.creation import zeros as jnp_zeros
from numjax._src.numpy.linalg import qr
from numjax._src.numpy.matrices import diag
from numjax._src.numpy.scalar_types import float_
from numjax._src.numpy.shape import moveaxis, reshape
from numjax._src.numpy.ufuncs import exp, log, sign, sqrt
from numjax._src.random.keys import split
from numjax._src.random.samplers import normal as random_normal
from numjax._src.random.samplers import truncated_normal as random_truncated_normal
from numjax._src.random.samplers import uniform as random_uniform
from numjax._src.typing import Array, ArrayLike

Shape = Sequence[int]
Axes = int | Sequence[int]


@typing.runtime_checkable
class Initializer(Protocol):
    """The type of an initializer: `init(key, shape, dtype=float) -> Array`."""

    @staticmethod
    def __call__(key: Array, shape: Shape, dtype: Any = float_) -> Array:
        raise NotImplementedError


def zeros(key: Array, shape: Shape, dtype: Any = float_) -> Array:
    """An array of zeros (the key is unused).

    >>> import numjax.nn
    >>> numjax.nn.initializers.zeros(numjax.random.key(0), (2,))
    Array([0., 0.], dtype=float32)
    """
    return jnp_zeros(shape, dtypes.canonicalize_dtype(dtype))


def ones(key: Array, shape: Shape, dtype: Any = float_) -> Array:
    """An array of ones (the key is unused).

    >>> import numjax.nn
    >>> numjax.nn.initializers.ones(numjax.random.key(0), (2,))
    Array([1., 1.], dtype=float32)
    """
    return jnp_ones(shape, dtypes.canonicalize_dtype(dtype))


def constant(value: ArrayLike, dtype: Any = float_) -> Initializer:
    """An initializer filling its shape with `value`.

    >>> import numjax.nn
    >>> numjax.nn.initializers.constant(-7)(numjax.random.key(0), (2,))
    Array([-7., -7.], dtype=float32)
    """
    def init(key: Array, shape: Shape, dtype: Any = dtype) -> Array:
        return full(shape, value, dtype=dtypes.canonicalize_dtype(dtype))
    return init


def uniform(scale: Any = 1e-2, dtype: Any = float_) -> Initializer:
    """An initializer drawing uniformly from `[0, scale)`.

    >>> import numjax.nn
    >>> numjax.nn.initializers.uniform(10.)(numjax.random.key(42), (2,)).shape
    (2,)
    """
    def init(key: Array, shape: Shape, dtype: Any = dtype) -> Array:
        dtype = dtypes.canonicalize_dtype(dtype)
        return random_uniform(key, shape, dtype) * array(scale, dtype)
    return init


def normal(stddev: Any = 1e-2, dtype: Any = float_) -> Initializer:
    """An initializer drawing from a centered normal distribution of standard deviation `stddev`.

    >>> import numjax.nn
    >>> numjax.nn.initializers.normal(5.)(numjax.random.key(42), (2,)).dtype
    dtype('float32')
    """
    def init(key: Array, shape: Shape, dtype: Any = dtype) -> Array:
        dtype = dtypes.canonicalize_dtype(dtype)
        return random_normal(key, shape, dtype) * array(stddev, dtype)
    return init


def truncated_normal(stddev: Any = 1e-2, dtype: Any = float_, lower: Any = -2.0,
                     upper: Any = 2.0) -> Initializer:
    """An initializer drawing from a normal distribution truncated to `[lower, upper]` (in
    units of the untruncated standard deviation), then scaled by `stddev`.

    >>> import numjax.nn
    >>> numjax.nn.initializers.truncated_normal(5.)(numjax.random.key(42), (2,)).shape
    (2,)
    """
    def init(key: Array, shape: Shape, dtype: Any = dtype) -> Array:
        dtype = dtypes.canonicalize_dtype(dtype)
        return random_truncated_normal(key, lower, upper, shape, dtype) * array(stddev, dtype)
    return init


def _axes_size(shape: tuple[int, ...], axes: Axes) -> int:
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _compute_fans(shape: tuple[int, ...], in_axis: Axes = -2, out_axis: Axes = -1,
                  batch_axis: Axes = ()) -> tuple[float, float]:
    """(fan_in, fan_out): the input and output sizes times the receptive field (the product of
    the dimensions that are neither input, output nor batch), as floats like JAX's."""
    if len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                         "weights tensor. Must be at least 2D.")
    in_size = _axes_size(shape, in_axis)
    out_size = _axes_size(shape, out_axis)
    batch_size = _axes_size(shape, batch_axis)
    receptive_field_size = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field_size, out_size * receptive_field_size


def _complex_uniform(key: Array, shape: Shape, dtype: Any) -> Array:
    """Uniform on the disk of radius sqrt(2): variance 1 (r**2 uniform on [0, 2])."""
    key_r, key_theta = split(key)
    real_dtype = np.array(0, dtype).real.dtype
    dtype = dtypes.to_complex_dtype(real_dtype)
    r = sqrt(2 * random_uniform(key_r, shape, real_dtype)).astype(dtype)
    theta = 2 * np.pi * random_uniform(key_theta, shape, real_dtype).astype(dtype)
    return r * exp(1j * theta)


def _complex_truncated_normal(key: Array, upper: Any, shape: Shape, dtype: Any) -> Array:
    """A complex normal with modulus at most `upper`, by inverting the Rayleigh CDF."""
    key_r, key_theta = split(key)
    real_dtype = np.array(0, dtype).real.dtype
    dtype = dtypes.to_complex_dtype(real_dtype)
    t = ((1 - exp(array(-(upper**2), dtype)))
         * random_uniform(key_r, shape, real_dtype).astype(dtype))
    r = sqrt(-log(1 - t))
    theta = 2 * np.pi * random_uniform(key_theta, shape, real_dtype).astype(dtype)
    return r * exp(1j * theta)


# Standard deviations of a standard normal truncated to [-2, 2], and of the complex one whose
# modulus is truncated at 2: dividing by them gives the truncated draw the intended variance.
_TRUNCATED_STDDEV = 0.87962566103423978
_COMPLEX_TRUNCATED_STDDEV = 0.95311164380491208


def variance_scaling(scale: Any, mode: Literal["fan_in", "fan_out", "fan_avg"],
                     distribution: Literal["truncated_normal", "normal", "uniform"],
                     in_axis: Axes = -2, out_axis: Axes = -1,
                     batch_axis: Sequence[int] = (), dtype: Any = float_) -> Initializer:
    """An initializer whose draws have variance `scale / n`, n the fan in, fan out or their
    mean (`mode`), from a truncated normal, a normal or a uniform `distribution`.

    >>> import numjax.nn
    >>> init = numjax.nn.initializers.variance_scaling(2., "fan_in", "normal")
    >>> init(numjax.random.key(0), (3, 4)).shape
    (3, 4)
    """
    def init(key: Array, shape: Shape, dtype: Any = dtype) -> Array:
        dtype = dtypes.canonicalize_dtype(dtype)
        shape = tuple(shape)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = array(scale / denominator, dtype=dtype)
        is_real = issubdtype(dtype, np.floating)
        if distribution == "truncated_normal":
            if is_real:
                stddev = sqrt(variance) / array(_TRUNCATED_STDDEV, dtype)
                return random_truncated_normal(key, -2, 2, shape, dtype) * stddev
            stddev = sqrt(variance) / array(_COMPLEX_TRUNCATED_STDDEV, dtype)
            return _complex_truncated_normal(key, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random_normal(key, shape, dtype) * sqrt(variance)
        if distribution == "uniform":
            if is_real:
                return random_uniform(key, shape, dtype, -1) * sqrt(3 * variance)
            return _complex_uniform(key, shape, dtype) * sqrt(variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: "
                         f"{distribution}")
    return init


def glorot_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Sequence[int] = (),
                   dtype: Any = float_) -> Initializer:
    """Glorot (Xavier) uniform: `variance_scaling(1, "fan_avg", "uniform")`.

    >>> import numjax.nn
    >>> numjax.nn.initializers.glorot_uniform()(numjax.random.key(0), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)


def glorot_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Sequence[int] = (),
                  dtype: Any = float_) -> Initializer:
    """Glorot (Xavier) normal: `variance_scaling(1, "fan_avg", "truncated_normal")`.

    >>> import numjax.nn
    >>> numjax.nn.initializers.glorot_normal()(numjax.random.key(0), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis=in_axis,
                            out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)


def lecun_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Sequence[int] = (),
                  dtype: Any = float_) -> Initializer:
    """LeCun uniform: `variance_scaling(1, "fan_in", "uniform")`.

    >>> import numjax.nn
    >>> numjax.nn.initializers.lecun_uniform()(numjax.random.key(0), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(1.0, "fan_in", "uniform", in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)


def lecun_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Sequence[int] = (),
                 dtype: Any = float_) -> Initializer:
    """LeCun normal: `variance_scaling(1, "fan_in", "truncated_normal")`.

    >>> import numjax.nn
    >>> numjax.nn.initializers.lecun_normal()(numjax.random.key(0), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis=in_axis,
                            out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)


def he_uniform(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Sequence[int] = (),
               dtype: Any = float_) -> Initializer:
    """He (Kaiming) uniform: `variance_scaling(2, "fan_in", "uniform")`.

    >>> import numjax.nn
    >>> numjax.nn.initializers.he_uniform()(numjax.random.key(0), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(2.0, "fan_in", "uniform", in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)


def he_normal(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Sequence[int] = (),
              dtype: Any = float_) -> Initializer:
    """He (Kaiming) normal: `variance_scaling(2, "fan_in", "truncated_normal")`.

    >>> import numjax.nn
    >>> numjax.nn.initializers.he_normal()(numjax.random.key(0), (2, 3)).shape
    (2, 3)
    """
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis=in_axis,
                            out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = float_) -> Initializer:
    """An initializer whose draws, flattened to matrices with `column_axis` as the columns, have
    orthonormal columns (or rows, when wider than tall), scaled by `scale`.

    >>> import numjax.nn, numjax.numpy as jnp
    >>> w = numjax.nn.initializers.orthogonal()(numjax.random.key(0), (3, 3))
    >>> bool(jnp.allclose(w.T @ w, jnp.eye(3), atol=1e-5))
    True
    """
    def init(key: Array, shape: Shape, dtype: Any = dtype) -> Array:
        dtype = dtypes.canonicalize_dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        matrix_shape = (n_cols, n_rows) if n_rows < n_cols else (n_rows, n_cols)
        q, r = qr(random_normal(key, matrix_shape, dtype))
        # The signs of r's diagonal make the factorization unique, so q is Haar distributed.
        q = q * broadcast_to_rank(sign(diag(r)), rank=q.ndim)
        if n_rows < n_cols:
            q = q.T
        q = reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        q = moveaxis(q, -1, column_axis)
        return array(scale, dtype) * q
    return init


def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1,
                     dtype: Any = float_) -> Initializer:
    """An initializer for 1D-3D convolution kernels (3 to 5 dimensions, spatial first): zero
    except at the spatial center, which holds an orthogonal `(in, out)` matrix
    (arXiv:1806.05393).

    >>> import numjax.nn
    >>> numjax.nn.initializers.delta_orthogonal()(numjax.random.key(0), (3, 2, 2)).shape
    (3, 2, 2)
    """
    def init(key: Array, shape: Shape, dtype: Any = dtype) -> Array:
        dtype = dtypes.canonicalize_dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho_matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(
            key, shape[-2:])
        center = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp_zeros(shape, dtype=dtype).at[center + (...,)].set(ortho_matrix)
    return init
