"""Activation functions, softmax and friends: JAX's `jax.nn` functions.

As in JAX, most are jitted (so jit's argument checks and weak types apply), built from jnp and
lax operations; relu and relu6 carry a custom jvp so their derivative at the kinks is 0.
"""

from __future__ import annotations

import operator
import warnings
from functools import partial
from typing import Any

import numpy as np

from numjax._src import config, dtypes
from numjax._src.api.custom_derivatives import custom_jvp
from numjax._src.api.jit import jit
from numjax._src.core import errors
from numjax._src.core.trace import Tracer
from numjax._src.lax import parallel
from numjax._src.lax.elementwise import add as lax_add
from numjax._src.lax.elementwise import exp as lax_exp
from numjax._src.lax.elementwise import log as lax_log
from numjax._src.lax.elementwise import logistic, mul, rsqrt, sub
from numjax._src.lax.elementwise import sign as lax_sign
from numjax._src.lax.parallel import axis_index
from numjax._src.lax.special import erf
from numjax._src.lax.structural import broadcasted_iota, stop_gradient
from numjax._src.lax.structural import expand_dims as lax_expand_dims
from numjax._src.lax.structural import full_like as lax_full_like
from numjax._src.lax.structural import select as lax_select
from numjax._src.numpy.complex_fns import real
from numjax._src.numpy.creation import array, asarray
from numjax._src.numpy.lax_numpy import clip
from numjax._src.numpy.lax_numpy import where as jnp_where
from numjax._src.numpy.manipulation import split
from numjax._src.numpy.reductions import max as jnp_max
from numjax._src.numpy.reductions import mean as jnp_mean
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.scalar_types import float_
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import (
    exp,
    expm1,
    isfinite,
    log,
    logaddexp,
    maximum,
    minimum,
    sqrt,
    square,
    subtract,
    tanh,
)
from numjax._src.numpy.util import canonicalize_axis, check_arraylike, promote_args_inexact
from numjax._src.typing import Array, ArrayLike


class _Unspecified:
    def __repr__(self) -> str:
        return "_UNSPECIFIED"


_UNSPECIFIED: Any = _Unspecified()


@custom_jvp
@jit
def relu(x: ArrayLike) -> Array:
    """Rectified linear unit, `max(x, 0)`; its derivative at 0 is taken as 0.

    >>> import numjax.nn, numjax.numpy as jnp
    >>> numjax.nn.relu(jnp.array([-1., 0., 2.]))
    Array([0., 0., 2.], dtype=float32)
    """
    return maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax_select(x > 0, g, lax_full_like(g, 0)))


@custom_jvp
@jit
def relu6(x: ArrayLike) -> Array:
    """ReLU capped at 6, `min(max(x, 0), 6)`; its derivative at 0 and 6 is 0.

    >>> import numjax.nn
    >>> numjax.nn.relu6(7.)
    Array(6., dtype=float32, weak_type=True)
    """
    return minimum(maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: lax_select((x > 0) & (x < 6), g, lax_full_like(g, 0)))


@jit
def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """`(x + sqrt(x**2 + b)) / 2`, a smooth ReLU (arXiv:2112.11687).

    >>> import numjax.nn
    >>> numjax.nn.squareplus(0.)
    Array(1., dtype=float32, weak_type=True)
    """
    check_arraylike("squareplus", x)
    check_arraylike("squareplus", b)
    x, b = asarray(x), asarray(b)
    return (x + sqrt(square(x) + b)) / 2


@jit
def softplus(x: ArrayLike) -> Array:
    """`log(1 + exp(x))`, computed stably as `logaddexp(x, 0)`.

    >>> import numjax.nn
    >>> numjax.nn.softplus(0.)
    Array(0.6931472, dtype=float32, weak_type=True)
    """
    return logaddexp(x, 0)


@jit
def sparse_plus(x: ArrayLike) -> Array:
    """0 below -1, `(x + 1)**2 / 4` on (-1, 1), x from 1 on: a sparse twin of softplus.

    >>> import numjax.nn
    >>> numjax.nn.sparse_plus(0.)
    Array(0.25, dtype=float32, weak_type=True)
    """
    check_arraylike("sparse_plus", x)
    x = asarray(x)
    return jnp_where(x <= -1.0, 0.0, jnp_where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def soft_sign(x: ArrayLike) -> Array:
    """`x / (|x| + 1)`.

    >>> import numjax.nn
    >>> numjax.nn.soft_sign(1.)
    Array(0.5, dtype=float32, weak_type=True)
    """
    check_arraylike("soft_sign", x)
    x = asarray(x)
    return x / (jnp_abs(x) + 1)


@partial(jit, inline=True)
def sigmoid(x: ArrayLike) -> Array:
    """Logistic sigmoid, `1 / (1 + exp(-x))`.

    >>> import numjax.nn
    >>> numjax.nn.sigmoid(0.)
    Array(0.5, dtype=float32, weak_type=True)
    """
    return logistic(x)


@jit
def sparse_sigmoid(x: ArrayLike) -> Array:
    """`clip((x + 1) / 2, 0, 1)`: the derivative of `sparse_plus`.

    >>> import numjax.nn
    >>> numjax.nn.sparse_sigmoid(0.)
    Array(0.5, dtype=float32, weak_type=True)
    """
    return 0.5 * clip(x + 1.0, 0.0, 2.0)


@jit
def silu(x: ArrayLike) -> Array:
    """Sigmoid linear unit (swish), `x * sigmoid(x)`.

    >>> import numjax.nn
    >>> numjax.nn.silu(0.)
    Array(0., dtype=float32, weak_type=True)
    """
    check_arraylike("silu", x)
    x = asarray(x)
    return x * sigmoid(x)


swish = silu


@jit
def mish(x: ArrayLike) -> Array:
    """`x * tanh(softplus(x))` (arXiv:1908.08681).

    >>> import numjax.nn
    >>> numjax.nn.mish(0.)
    Array(0., dtype=float32, weak_type=True)
    """
    check_arraylike("mish", x)
    x = asarray(x)
    return x * tanh(softplus(x))


@jit
def log_sigmoid(x: ArrayLike) -> Array:
    """`log(sigmoid(x))`, computed as `-softplus(-x)`.

    >>> import numjax.nn
    >>> numjax.nn.log_sigmoid(0.)
    Array(-0.6931472, dtype=float32, weak_type=True)
    """
    check_arraylike("log_sigmoid", x)
    x = asarray(x)
    return -softplus(-x)


@jit
def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Exponential linear unit: x above 0, `alpha * (exp(x) - 1)` elsewhere.

    >>> import numjax.nn
    >>> numjax.nn.elu(-1.)
    Array(-0.63212055, dtype=float32, weak_type=True)
    """
    check_arraylike("elu", x)
    x = asarray(x)
    # expm1 of the clamped input: the untaken branch must not overflow (inf * 0 in the grad).
    return jnp_where(x > 0, x, alpha * expm1(jnp_where(x > 0, 0.0, x)))


@jit
def leaky_relu(x: ArrayLike, negative_slope: ArrayLike = 1e-2) -> Array:
    """x from 0 on, `negative_slope * x` below.

    >>> import numjax.nn
    >>> numjax.nn.leaky_relu(-2.)
    Array(-0.02, dtype=float32, weak_type=True)
    """
    check_arraylike("leaky_relu", x)
    x = asarray(x)
    return jnp_where(x >= 0, x, negative_slope * x)


@jit
def hard_tanh(x: ArrayLike) -> Array:
    """x clipped to [-1, 1].

    >>> import numjax.nn
    >>> numjax.nn.hard_tanh(3.)
    Array(1., dtype=float32, weak_type=True)
    """
    check_arraylike("hard_tanh", x)
    x = asarray(x)
    return jnp_where(x > 1, 1, jnp_where(x < -1, -1, x))


@jit
def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Continuously differentiable ELU: `max(x, 0) + alpha * expm1(min(x, 0) / alpha)`.

    >>> import numjax.nn
    >>> numjax.nn.celu(-1., alpha=2.)
    Array(-0.78693867, dtype=float32, weak_type=True)
    """
    return maximum(x, 0.0) + alpha * expm1(minimum(x, 0.0) / alpha)


# The fixed point constants of self-normalizing networks (arXiv:1706.02515).
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@jit
def selu(x: ArrayLike) -> Array:
    """Scaled ELU with the self-normalizing constants.

    >>> import numjax.nn
    >>> numjax.nn.selu(1.)
    Array(1.050701, dtype=float32, weak_type=True)
    """
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def gelu(x: ArrayLike, approximate: bool = True) -> Array:
    """Gaussian error linear unit: `x * Phi(x)`, or its tanh approximation (the default).

    >>> import numjax.nn
    >>> numjax.nn.gelu(1., approximate=False)
    Array(0.8413447, dtype=float32)
    """
    [x_arr] = promote_args_inexact("gelu", x)
    dt = x_arr.dtype
    if approximate:
        # The constants are NumPy scalars of x's dtype, so the result is never weakly typed.
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(dt)
        cdf = 0.5 * (1.0 + tanh(sqrt_2_over_pi * (x_arr + 0.044715 * x_arr**3)))
        return x_arr * cdf
    sqrt_2 = np.sqrt(2).astype(dt)
    return array(x_arr * (erf(x_arr / sqrt_2) + 1) / 2, dtype=dt)


@partial(jit, static_argnames=("axis",))
def glu(x: ArrayLike, axis: int = -1) -> Array:
    """Gated linear unit: the first half of `x` along `axis` times the sigmoid of the second.

    >>> import numjax.nn, numjax.numpy as jnp
    >>> numjax.nn.glu(jnp.array([2., 0.]))
    Array([1.], dtype=float32)
    """
    check_arraylike("glu", x)
    x = asarray(x)
    if x.shape[axis] % 2:
        raise AssertionError("axis size must be divisible by 2")  # JAX's error type and text
    x1, x2 = split(x, 2, axis)
    return x1 * sigmoid(x2)


def _reduction_dims(ndim: int, axis: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The reduced dimensions of `axis`, canonical (for re-expanding) and sorted."""
    if axis is None:
        dims = tuple(range(ndim))
    elif isinstance(axis, tuple | list):
        dims = tuple(canonicalize_axis(a, ndim) for a in axis)
        if len(set(dims)) != len(dims):
            raise ValueError(f"duplicate value in 'axis': {axis}")
    else:
        dims = (canonicalize_axis(operator.index(axis), ndim),)
    return tuple(sorted(dims)), dims


def logsumexp(a: ArrayLike, axis: Any = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: bool = False,
              where: ArrayLike | None = None) -> Array | tuple[Array, Array]:
    """`log(sum(b * exp(a)))` over `axis`, shifted by the maximum so it cannot overflow.

    With `return_sign`, returns `(log|s|, sign(s))` for `s = sum(b * exp(a))`; otherwise a
    negative `s` gives NaN. The shift is a constant under differentiation, and an all `-inf`
    slice is shifted by 0, so gradients stay finite next to `-inf` entries.

    >>> import numjax.nn, numjax.numpy as jnp
    >>> numjax.nn.logsumexp(jnp.array([0., 0.]))
    Array(0.6931472, dtype=float32)
    """
    if b is not None:
        a_arr, b_arr = promote_args_inexact("logsumexp", a, b)
        a_arr = jnp_where(b_arr != 0, a_arr, -np.inf)
    else:
        (a_arr,) = promote_args_inexact("logsumexp", a)
        b_arr = a_arr
    pos_dims, dims = _reduction_dims(a_arr.ndim, axis)
    amax = jnp_max(real(a_arr), axis=dims, keepdims=keepdims, where=where,
                   initial=-np.inf)
    amax = stop_gradient(lax_select(isfinite(amax), amax, lax_full_like(amax, 0)))
    amax_with_dims = amax if keepdims else lax_expand_dims(amax, pos_dims)
    exp_a = lax_exp(sub(a_arr, amax_with_dims.astype(a_arr.dtype)))
    if b is not None:
        exp_a = mul(exp_a, b_arr)
    sumexp = exp_a.sum(axis=dims, keepdims=keepdims, where=where)
    sign = lax_sign(sumexp)
    is_complex = np.issubdtype(a_arr.dtype, np.complexfloating)
    if return_sign or not is_complex:
        sumexp = abs(sumexp)
    out = lax_add(lax_log(sumexp), amax.astype(sumexp.dtype))
    if return_sign:
        return out, sign
    if b is not None and not is_complex:
        with config.debug_nans(False):  # the NaN is the intended result, not an accident
            out = jnp_where(sign < 0, array(np.nan, dtype=out.dtype), out)
    return out


def _warn_initial(name: str, initial: Any) -> None:
    if initial is not _UNSPECIFIED:
        warnings.warn(f"The initial argument to {name} is deprecated, and no longer has any "
                      "effect.", DeprecationWarning, stacklevel=3)


def log_softmax(x: ArrayLike, axis: int | tuple[int, ...] | None = -1,
                where: ArrayLike | None = None, initial: Any = _UNSPECIFIED) -> Array:
    """`x - logsumexp(x)` along `axis`; entries outside `where` are `-inf`.

    >>> import numjax.nn, numjax.numpy as jnp
    >>> numjax.nn.log_softmax(jnp.array([0., 0.]))
    Array([-0.6931472, -0.6931472], dtype=float32)
    """
    _warn_initial("log_softmax", initial)
    return _log_softmax(x, axis, where)


@partial(jit, static_argnames=("axis",))
def _log_softmax(x: ArrayLike, axis: Any, where: ArrayLike | None) -> Array:
    check_arraylike("log_softmax", x)
    x = asarray(x)
    x_max = jnp_max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp_where(where, x, -np.inf)
    shifted = x_safe - stop_gradient(x_max)
    shifted_logsumexp = log(jnp_sum(exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_logsumexp
    return result if where is None else jnp_where(where, result, -np.inf)


def softmax(x: ArrayLike, axis: int | tuple[int, ...] | None = -1,
            where: ArrayLike | None = None, initial: Any = _UNSPECIFIED) -> Array:
    """`exp(x) / sum(exp(x))` along `axis`; entries outside `where` are 0.

    The maximum is subtracted first (as a constant under differentiation). With
    `jax_softmax_custom_jvp` set, the derivative is softmax's own rule instead.

    >>> import numjax.nn, numjax.numpy as jnp
    >>> numjax.nn.softmax(jnp.array([0., 0.]))
    Array([0.5, 0.5], dtype=float32)
    """
    _warn_initial("softmax", initial)
    if config.softmax_custom_jvp.value:
        return _softmax(x, axis, where)
    return _softmax_unnormalized_grad(x, axis, where)


def _softmax_unnormalized_grad(x: ArrayLike, axis: int | tuple[int, ...] | None,
                               where: ArrayLike | None) -> Array:
    x_max = jnp_max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp_where(where, x, -np.inf)
    unnormalized = exp(x_safe - stop_gradient(x_max))
    result = unnormalized / jnp_sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp_where(where, result, 0)


@partial(custom_jvp, nondiff_argnums=(1,))
def _softmax(x: ArrayLike, axis: int | tuple[int, ...] | None, where: ArrayLike | None) -> Array:
    x_max = jnp_max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp_where(where, x, -np.inf)
    unnormalized = exp(x_safe - x_max)
    result = unnormalized / jnp_sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp_where(where, result, 0)


@_softmax.defjvp
def _softmax_jvp(axis: int | tuple[int, ...] | None, primals: tuple[Any, ...],
                 tangents: tuple[Any, ...]) -> tuple[Array, Array]:
    # dy = y * (dx - <y, dx>): the output is the only residual the derivative needs.
    (x, where), (x_dot, _) = primals, tangents
    y = _softmax(x, axis, where)
    return y, y * (x_dot - (y * x_dot).sum(axis, where=where, keepdims=True))


@partial(jit, static_argnames=("axis",))
def standardize(x: ArrayLike, axis: int | tuple[int, ...] | None = -1,
                mean: ArrayLike | None = None, variance: ArrayLike | None = None,
                epsilon: ArrayLike = 1e-5, where: ArrayLike | None = None) -> Array:
    """`(x - mean) / sqrt(variance + epsilon)`, the moments taken along `axis` unless given.

    >>> import numjax.nn, numjax.numpy as jnp
    >>> numjax.nn.standardize(jnp.array([1., 3.]))
    Array([-0.999995,  0.999995], dtype=float32)
    """
    check_arraylike("standardize", x)
    for i, v in enumerate((mean, variance, where)):
        if v is not None and not _is_arraylike(v):
            raise TypeError("standardize requires ndarray, scalar, or None arguments, got "
                            f"{type(v)} at position {i}.")
    if mean is None:
        mean = jnp_mean(x, axis, keepdims=True, where=where)
    if variance is None:
        variance = jnp_mean(square(x), axis, keepdims=True, where=where) - square(mean)
    return subtract(x, asarray(mean)) * rsqrt(asarray(variance) + epsilon)


def _is_arraylike(x: Any) -> bool:
    try:
        check_arraylike("standardize", x)
    except TypeError:
        return False
    return True


def _concrete_num_classes(num_classes: Any) -> Any:
    if isinstance(num_classes, Tracer):
        value = num_classes.to_concrete_value()
        if value is None:
            raise errors.ConcretizationTypeError(
                num_classes, "The error arose in jax.nn.one_hot argument `num_classes`.\n")
        return operator.index(value)
    return num_classes


def one_hot(x: Any, num_classes: int, *, dtype: Any = float_, axis: Any = -1) -> Array:
    """`x == arange(num_classes)`, the new axis at `axis`, as `dtype`.

    Out-of-range and negative entries give all-zero rows. `axis` may be a vmap/pmap axis
    name, whose size must be `num_classes`.

    >>> import numjax.nn, numjax.numpy as jnp
    >>> numjax.nn.one_hot(jnp.array([0, 2, 5]), 3)
    Array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 0., 0.]], dtype=float32)
    """
    num_classes = _concrete_num_classes(num_classes)
    try:
        operator.index(axis)
    except TypeError:
        # A named axis: each member of the mapped axis holds one class. Read outside jit,
        # where the vmap binding the name is the current trace (JAX reads it as psum(1, axis)).
        axis_size = parallel.axis_size(axis)
        if num_classes != axis_size:
            raise ValueError(f"Expected num_classes to match the size of axis {axis}, "
                             f"but {num_classes} != {axis_size}") from None
        # Not jitted: numjax cannot yet batch a collective inside a jit called under vmap.
        return asarray(asarray(x) == axis_index(axis),
                           dtype=dtypes.canonicalize_dtype(dtype))
    return _one_hot(x, num_classes, dtype=dtype, axis=axis)


@partial(jit, static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x: Any, num_classes: int, *, dtype: Any, axis: int) -> Array:
    dtype = dtypes.canonicalize_dtype(dtype)
    num_classes = operator.index(num_classes)
    x = asarray(x)
    out_axis = canonicalize_axis(axis, x.ndim + 1)
    lhs = lax_expand_dims(x, (axis,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(out_axis, num_classes)
    rhs = broadcasted_iota(x.dtype, rhs_shape, out_axis)
    return asarray(lhs == rhs, dtype=dtype)


@jit
def hard_sigmoid(x: ArrayLike) -> Array:
    """`relu6(x + 3) / 6`.

    >>> import numjax.nn
    >>> numjax.nn.hard_sigmoid(0.)
    Array(0.5, dtype=float32, weak_type=True)
    """
    return relu6(x + 3.0) / 6.0


@jit
def hard_silu(x: ArrayLike) -> Array:
    """`x * hard_sigmoid(x)` (hard swish).

    >>> import numjax.nn
    >>> numjax.nn.hard_silu(3.)
    Array(3., dtype=float32, weak_type=True)
    """
    check_arraylike("hard_silu", x)
    x = asarray(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu
