"""Stax: neural-network layers as (init_fun, apply_fun) pairs (`jax.example_libraries.stax`).

`init_fun(rng, input_shape) -> (output_shape, params)` and
`apply_fun(params, inputs, **kwargs) -> outputs`; combinators (`serial`, `parallel`) build
layers from layers. Shapes may use -1 for a batch size not known yet, as in JAX.

>>> from numjax import random
>>> import numjax.numpy as jnp
>>> init_fun, apply_fun = serial(Dense(4), Relu, Dense(2), LogSoftmax)
>>> out_shape, params = init_fun(random.PRNGKey(0), (-1, 3))
>>> out_shape, apply_fun(params, jnp.ones((5, 3))).shape
((-1, 2), (5, 2))
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src.lax.convolution import (
    _conv_transpose_pads,
    conv_general_dilated,
    conv_transpose,
    padtype_to_pads,
)
from numjax._src.lax.elementwise import add as lax_add
from numjax._src.lax.elementwise import max as lax_max
from numjax._src.lax.windowed import reduce_window
from numjax._src.nn.functions import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from numjax._src.nn.initializers import glorot_normal, normal, ones, zeros
from numjax._src.numpy.creation import ones as jnp_ones
from numjax._src.numpy.lax_numpy import dot, where
from numjax._src.numpy.selection import isscalar
from numjax._src.numpy.shape import concatenate, expand_dims, ndim, reshape
from numjax._src.numpy.ufuncs import exp, tanh
from numjax._src.random.keys import split
from numjax._src.random.samplers import bernoulli

Layer = tuple[Callable[..., Any], Callable[..., Any]]

glorot = glorot_normal
randn = normal
logsoftmax = log_softmax

__all__ = [
    "AvgPool", "BatchNorm", "Conv", "Conv1DTranspose", "ConvTranspose", "Dense", "Dropout",
    "Elu", "Exp", "FanInConcat", "FanInSum", "FanOut", "Flatten", "Gelu", "GeneralConv",
    "GeneralConvTranspose", "Identity", "LeakyRelu", "LogSoftmax", "MaxPool", "Relu", "Selu",
    "Sigmoid", "Softmax", "Softplus", "SumPool", "Tanh", "elementwise", "elu", "gelu", "glorot",
    "glorot_normal", "leaky_relu", "log_softmax", "logsoftmax", "normal", "ones", "parallel",
    "randn", "relu", "selu", "serial", "shape_dependent", "sigmoid", "softmax", "softplus",
    "standardize", "zeros",
]


def Dense(out_dim: int, W_init: Any = glorot_normal(), b_init: Any = normal()) -> Layer:
    """A fully connected layer: `inputs @ W + b`.

    >>> from numjax import random
    >>> Dense(3)[0](random.PRNGKey(0), (-1, 5))[0]
    (-1, 3)
    """

    def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:
        k1, k2 = split(rng)
        W = W_init(k1, (input_shape[-1], out_dim))
        b = b_init(k2, (out_dim,))
        return tuple(input_shape[:-1]) + (out_dim,), (W, b)

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        W, b = params
        return dot(inputs, W) + b

    return init_fun, apply_fun


# ---- convolutions ----------------------------------------------------------------------------


def _kernel_shape(lhs_spec: str, rhs_spec: str, out_chan: int, filter_shape: Sequence[int],
                  input_shape: Sequence[int]) -> list[int]:
    """The kernel's shape in `rhs_spec` order: spatial sizes from `filter_shape` in order."""
    spatial = iter(filter_shape)
    in_chan = input_shape[lhs_spec.index("C")]
    return [out_chan if c == "O" else in_chan if c == "I" else next(spatial) for c in rhs_spec]


def _conv_output_shape(dimension_numbers: Sequence[str], input_shape: Sequence[int],
                       kernel_shape: Sequence[int], strides: Sequence[int], padding: Any,
                       transpose: bool) -> tuple[Any, ...]:
    """The output shape of a (transposed) convolution in `out_spec` order.

    Spatial dimensions are matched by letter and take the kernel's spatial order, as in JAX;
    entries are NumPy integers like JAX's (its shape arithmetic runs on NumPy arrays), and a
    batch size of -1 passes through.
    """
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    letters = [c for c in rhs_spec if c not in "OI"]
    ins = [input_shape[lhs_spec.index(c)] for c in letters]
    ks = [kernel_shape[rhs_spec.index(c)] for c in letters]
    if transpose:
        if isinstance(padding, str):
            padding = [_conv_transpose_pads(k, s, padding) for k, s in zip(ks, strides,
                                                                           strict=True)]
        spatial = [(n - 1) * s - k + 2 + lo + hi
                   for n, k, s, (lo, hi) in zip(ins, ks, strides, padding, strict=True)]
    else:
        if isinstance(padding, str):
            padding = padtype_to_pads(ins, ks, strides, padding)
        spatial = [max((n + lo + hi - k) // s + 1, 0)
                   for n, k, s, (lo, hi) in zip(ins, ks, strides, padding, strict=True)]
    sizes = dict(zip(letters, spatial, strict=True))
    sizes["N"] = input_shape[lhs_spec.index("N")]
    sizes["C"] = kernel_shape[rhs_spec.index("O")]
    return tuple(np.int64(sizes[c]) for c in out_spec)


def _general_conv(dimension_numbers: Sequence[str], out_chan: int, filter_shape: Sequence[int],
                  strides: Sequence[int] | None, padding: Any, W_init: Any, b_init: Any,
                  transpose: bool) -> Layer:
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = strides or one
    if W_init is None:
        W_init = glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:
        kernel_shape = _kernel_shape(lhs_spec, rhs_spec, out_chan, filter_shape, input_shape)
        output_shape = _conv_output_shape(dimension_numbers, input_shape, kernel_shape, strides,
                                          padding, transpose)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        W, b = params
        if transpose:
            out = conv_transpose(inputs, W, strides, padding,
                                     dimension_numbers=dimension_numbers)
        else:
            out = conv_general_dilated(inputs, W, strides, padding, one, one,
                                           dimension_numbers=dimension_numbers)
        return out + b

    return init_fun, apply_fun


def GeneralConv(dimension_numbers: Sequence[str], out_chan: int, filter_shape: Sequence[int],
                strides: Sequence[int] | None = None, padding: Any = "VALID", W_init: Any = None,
                b_init: Any = normal(1e-6)) -> Layer:
    """A convolution layer with layouts given as `(lhs_spec, rhs_spec, out_spec)` strings.

    >>> from numjax import random
    >>> GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 3))[0](random.PRNGKey(0), (1, 2, 5, 5))[0]
    (np.int64(1), np.int64(4), np.int64(3), np.int64(3))
    """
    return _general_conv(dimension_numbers, out_chan, filter_shape, strides, padding, W_init,
                         b_init, transpose=False)


def GeneralConvTranspose(dimension_numbers: Sequence[str], out_chan: int,
                         filter_shape: Sequence[int], strides: Sequence[int] | None = None,
                         padding: Any = "VALID", W_init: Any = None,
                         b_init: Any = normal(1e-6)) -> Layer:
    """A transposed-convolution layer (`lax.conv_transpose`) with string layouts.

    >>> from numjax import random
    >>> layer = GeneralConvTranspose(("NHC", "HIO", "NHC"), 4, (3,), (2,))
    >>> layer[0](random.PRNGKey(0), (1, 5, 2))[0]
    (np.int64(1), np.int64(11), np.int64(4))
    """
    return _general_conv(dimension_numbers, out_chan, filter_shape, strides, padding, W_init,
                         b_init, transpose=True)


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))
Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


# ---- normalization, elementwise and pooling layers -------------------------------------------


def BatchNorm(axis: Any = (0, 1, 2), epsilon: float = 1e-5, center: bool = True,
              scale: bool = True, beta_init: Any = zeros, gamma_init: Any = ones) -> Layer:
    """Standardizes over `axis` (batch statistics), then scales by gamma and shifts by beta.

    >>> from numjax import random
    >>> BatchNorm(axis=0)[0](random.PRNGKey(0), (4, 3))[1][0].shape
    (3,)
    """
    axis = (axis,) if isscalar(axis) else axis

    def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params: Any, x: Any, **kwargs: Any) -> Any:
        beta, gamma = params
        # Parameters lack the normalized axes: re-insert them as broadcast axes.
        ed = tuple(None if i in axis else slice(None) for i in range(ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if scale:
            z = gamma[ed] * z
        if center:
            z = z + beta[ed]
        return z

    return init_fun, apply_fun


def elementwise(fun: Callable[..., Any], **fun_kwargs: Any) -> Layer:
    """A parameterless layer applying `fun(inputs, **fun_kwargs)`.

    >>> import numjax.numpy as jnp
    >>> elementwise(jnp.abs)[1]((), jnp.array([-2.0]))
    Array([2.], dtype=float32)
    """

    def init_fun(rng: Any, input_shape: Any) -> Any:
        return input_shape, ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        return fun(inputs, **fun_kwargs)

    return init_fun, apply_fun


Tanh = elementwise(tanh)
Relu = elementwise(relu)
Exp = elementwise(exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _with_unit_axes(dims: tuple[int, ...], axes: Sequence[int]) -> tuple[int, ...]:
    for i in sorted(axes):
        dims = dims[:i] + (1,) + dims[i:]
    return dims


def _window_sizes(dims: tuple[int, ...], strides: tuple[int, ...], padding: Any) -> Any:
    """A rescaler dividing window sums by the number of non-padding elements in each window."""

    def rescale(outputs: Any, inputs: Any, spec: str | None) -> Any:
        non_spatial = (0, inputs.ndim - 1) if spec is None else (spec.index("N"),
                                                                 spec.index("C"))
        spatial_shape = tuple(n for i, n in enumerate(inputs.shape) if i not in non_spatial)
        counts = reduce_window(jnp_ones(spatial_shape, dtype=inputs.dtype), 0.0, lax_add,
                                   dims, strides, padding)
        for i in sorted(non_spatial):
            counts = expand_dims(counts, i)
        return outputs / counts

    return rescale


def _pooled_shape(input_shape: Sequence[int], dims: Sequence[int], strides: Sequence[int],
                  pads: Sequence[tuple[int, int]], padding: Any) -> tuple[Any, ...]:
    """A pooling layer's output shape, with JAX's integer types: its shape arithmetic keeps
    NumPy integers (those of a Conv's output shape, the pads it computes for 'SAME'), and a
    negative size (from a batch size of -1) becomes the Python int 0 (`max(size, 0)`)."""
    same = isinstance(padding, str) and padding.upper() != "VALID"
    out: list[Any] = []
    for d, w, s, (lo, hi) in zip(input_shape, dims, strides, pads, strict=True):
        size = (int(d) + lo + hi - w) // s + 1
        out.append(0 if size < 0 else np.int64(size) if same or isinstance(d, np.integer)
                   else size)
    return tuple(out)


def _pooling_layer(reducer: Callable[..., Any], init_val: Any,
                   rescaler: Callable[..., Any] | None = None) -> Callable[..., Layer]:
    def PoolingLayer(window_shape: tuple[int, ...], strides: tuple[int, ...] | None = None,
                     padding: Any = "VALID", spec: str | None = None) -> Layer:
        """A pooling layer over the spatial axes (all but `spec`'s N and C; default NHWC)."""
        window_shape = tuple(window_shape)
        strides = tuple(strides or (1,) * len(window_shape))
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        non_spatial = ((0, len(window_shape) + 1) if spec is None
                       else (spec.index("N"), spec.index("C")))
        dims = _with_unit_axes(window_shape, non_spatial)
        full_strides = _with_unit_axes(strides, non_spatial)

        def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:
            pads = padtype_to_pads(input_shape, dims, full_strides, padding)
            return _pooled_shape(input_shape, dims, full_strides, pads, padding), ()

        def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
            out = reduce_window(inputs, init_val, reducer, dims, full_strides, padding)
            return rescale(out, inputs, spec) if rescale else out

        return init_fun, apply_fun

    return PoolingLayer


MaxPool = _pooling_layer(lax_max, -np.inf)
SumPool = _pooling_layer(lax_add, 0.0)
AvgPool = _pooling_layer(lax_add, 0.0, _window_sizes)


# ---- shape and routing layers ----------------------------------------------------------------


def _flatten() -> Layer:
    def init_fun(rng: Any, input_shape: Sequence[int]) -> Any:
        return (input_shape[0], functools.reduce(operator.mul, input_shape[1:], 1)), ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        return reshape(inputs, (inputs.shape[0], -1))

    return init_fun, apply_fun


Flatten = _flatten()  # keeps the leading axis, flattens the rest
Identity = elementwise(lambda x: x)


def FanOut(num: int) -> Layer:
    """Passes its input on `num` times, as a list.

    >>> FanOut(2)[0](None, (3,))[0]
    [(3,), (3,)]
    """
    return (lambda rng, input_shape: ([input_shape] * num, ()),
            lambda params, inputs, **kwargs: [inputs] * num)


# Python's sum, as in JAX: the inputs are added left to right, starting from 0.
FanInSum: Layer = (lambda rng, input_shape: (input_shape[0], ()),
                   lambda params, inputs, **kwargs: sum(inputs))


def FanInConcat(axis: int = -1) -> Layer:
    """Concatenates its list of inputs along `axis`.

    >>> FanInConcat()[0](None, [(2, 3), (2, 4)])[0]
    (2, 7)
    """

    def init_fun(rng: Any, input_shape: Sequence[Sequence[int]]) -> Any:
        ax = axis % len(input_shape[0])
        first = tuple(input_shape[0])
        size = sum(shape[ax] for shape in input_shape)
        return first[:ax] + (size,) + first[ax + 1:], ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        return concatenate(inputs, axis)

    return init_fun, apply_fun


def Dropout(rate: float, mode: str = "train") -> Layer:
    """Dropout in 'train' mode (identity otherwise); `apply_fun` needs `rng=key` in any mode.

    As in JAX, `rate` is the probability of *keeping* an element, and kept elements are
    divided by it.

    >>> import numjax.numpy as jnp
    >>> from numjax import random
    >>> Dropout(0.5, mode="test")[1]((), jnp.ones(2), rng=random.PRNGKey(0))
    Array([1., 1.], dtype=float32)
    """

    def init_fun(rng: Any, input_shape: Any) -> Any:
        return input_shape, ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError(
                "Dropout layer requires apply_fun to be called with a PRNG key argument. That "
                "is, instead of `apply_fun(params, inputs)`, call it like `apply_fun(params, "
                "inputs, rng)` where `rng` is a PRNG key (e.g. from `jax.random.key`).")
        if mode == "train":
            keep = bernoulli(rng, rate, inputs.shape)
            return where(keep, inputs / rate, 0)
        return inputs

    return init_fun, apply_fun


# ---- combinators -----------------------------------------------------------------------------


def serial(*layers: Layer) -> Layer:
    """Composes layers in sequence; params are a list, one entry per layer.

    >>> from numjax import random
    >>> serial(Dense(4), Relu)[0](random.PRNGKey(0), (2, 3))[0]
    (2, 4)
    """
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers, strict=True) if layers else ((), ())

    def init_fun(rng: Any, input_shape: Any) -> Any:
        params = []
        for init in init_funs:
            rng, layer_rng = split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        rng = kwargs.pop("rng", None)
        rngs = split(rng, nlayers) if rng is not None else (None,) * nlayers
        for fun, param, layer_rng in zip(apply_funs, params, rngs, strict=True):
            inputs = fun(param, inputs, rng=layer_rng, **kwargs)
        return inputs

    return init_fun, apply_fun


def parallel(*layers: Layer) -> Layer:
    """Applies the i-th layer to the i-th of a sequence of inputs (see `FanOut`, `FanInSum`).

    >>> from numjax import random
    >>> shapes, params = parallel(Dense(4), Relu)[0](random.PRNGKey(0), [(2, 3), (5,)])
    >>> shapes
    ((2, 4), (5,))
    """
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers, strict=True) if layers else ((), ())

    def init_fun(rng: Any, input_shape: Any) -> Any:
        rngs = split(rng, nlayers)
        # A zip of (output shapes, params), as JAX returns: unpacks into the two tuples.
        outs = [init(r, shape)
                for init, r, shape in zip(init_funs, rngs, input_shape, strict=False)]
        return zip(*outs, strict=False)

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        rng = kwargs.pop("rng", None)
        rngs = split(rng, nlayers) if rng is not None else (None,) * nlayers
        return [f(p, x, rng=r, **kwargs)
                for f, p, x, r in zip(apply_funs, params, inputs, rngs, strict=False)]

    return init_fun, apply_fun


def shape_dependent(make_layer: Callable[[Any], Layer]) -> Layer:
    """A layer built by `make_layer(input_shape)` once the input shape is known.

    >>> from numjax import random
    >>> layer = shape_dependent(lambda shape: Dense(shape[-1]))
    >>> layer[0](random.PRNGKey(0), (2, 3))[0]
    (2, 3)
    """

    def init_fun(rng: Any, input_shape: Any) -> Any:
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)

    return init_fun, apply_fun
