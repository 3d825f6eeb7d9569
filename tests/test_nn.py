"""numjax.nn and numjax.nn.initializers against values recorded from JAX 0.4.30.

The golden tables were produced by running the same calls under JAX 0.4.30 (jax.nn) on CPU;
the tests never import JAX. Entries are (values, dtype, weak_type).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import nn
from numjax.ad_checkpoint import saved_residuals
from numjax.nn import initializers as init
from numjax.test_util import check_grads

inf, nan = math.inf, math.nan

X = [-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 7.0]
UNARY = ["relu", "relu6", "sigmoid", "softplus", "sparse_plus", "sparse_sigmoid", "soft_sign",
         "silu", "swish", "log_sigmoid", "leaky_relu", "hard_sigmoid", "hard_silu",
         "hard_swish", "hard_tanh", "elu", "celu", "selu", "gelu", "squareplus", "mish"]
INT_OK = ["relu", "relu6", "hard_tanh", "leaky_relu", "sparse_plus", "softplus", "gelu", "elu",
          "squareplus", "soft_sign"]

GOLDEN = {
    ('relu', 'f32'): ([0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 2.5, 7.0], 'float32', False),
    ('relu', 'py'): (1.5, 'float32', True),
    ('relu', 'f16'): ([0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 2.5, 7.0], 'float16', False),
    ('relu6', 'f32'): ([0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 2.5, 6.0], 'float32', False),
    ('relu6', 'py'): (1.5, 'float32', True),
    ('relu6', 'f16'): ([0.0, 0.0, 0.0, 0.0, 0.5, 1.0, 2.5, 6.0], 'float16', False),
    ('sigmoid', 'f32'): (
        [0.047425874, 0.26894143, 0.37754068, 0.5, 0.62245935, 0.7310586, 0.92414182, 0.999089],
        'float32', False),
    ('sigmoid', 'py'): (0.81757444, 'float32', True),
    ('sigmoid', 'f16'): (
        [0.047454834, 0.26879883, 0.37768555, 0.5, 0.62255859, 0.73095703, 0.92431641, 0.99902344],
        'float16', False),
    ('softplus', 'f32'): (
        [0.048587352, 0.31326169, 0.47407699, 0.69314718, 0.97407699, 1.3132617, 2.5788898,
        7.0009112],
        'float32', False),
    ('softplus', 'py'): (1.7014133, 'float32', True),
    ('softplus', 'f16'): (
        [0.048583984, 0.31323242, 0.47412109, 0.69335938, 0.97412109, 1.3134766, 2.578125, 7.0],
        'float16', False),
    ('sparse_plus', 'f32'): ([0.0, 0.0, 0.0625, 0.25, 0.5625, 1.0, 2.5, 7.0], 'float32', False),
    ('sparse_plus', 'py'): (1.5, 'float32', True),
    ('sparse_plus', 'f16'): ([0.0, 0.0, 0.0625, 0.25, 0.5625, 1.0, 2.5, 7.0], 'float16', False),
    ('sparse_sigmoid', 'f32'): ([0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0], 'float32', False),
    ('sparse_sigmoid', 'py'): (1.0, 'float32', True),
    ('sparse_sigmoid', 'f16'): ([0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0], 'float16', False),
    ('soft_sign', 'f32'): (
        [-0.75, -0.5, -0.33333334, 0.0, 0.33333334, 0.5, 0.71428573, 0.875],
        'float32', False),
    ('soft_sign', 'py'): (0.60000002, 'float32', True),
    ('soft_sign', 'f16'): (
        [-0.75, -0.5, -0.33325195, 0.0, 0.33325195, 0.5, 0.71435547, 0.875],
        'float16', False),
    ('silu', 'f32'): (
        [-0.14227763, -0.26894143, -0.18877034, 0.0, 0.31122968, 0.7310586, 2.3103545, 6.9936228],
        'float32', False),
    ('silu', 'py'): (1.2263616, 'float32', True),
    ('silu', 'f16'): (
        [-0.14233398, -0.26879883, -0.18884277, 0.0, 0.3112793, 0.73095703, 2.3105469, 6.9921875],
        'float16', False),
    ('swish', 'f32'): (
        [-0.14227763, -0.26894143, -0.18877034, 0.0, 0.31122968, 0.7310586, 2.3103545, 6.9936228],
        'float32', False),
    ('swish', 'py'): (1.2263616, 'float32', True),
    ('swish', 'f16'): (
        [-0.14233398, -0.26879883, -0.18884277, 0.0, 0.3112793, 0.73095703, 2.3105469, 6.9921875],
        'float16', False),
    ('log_sigmoid', 'f32'): (
        [-3.0485873, -1.3132617, -0.97407699, -0.69314718, -0.47407699, -0.31326169, -0.078889735,
        -0.00091146649],
        'float32', False),
    ('log_sigmoid', 'py'): (-0.20141329, 'float32', True),
    ('log_sigmoid', 'f16'): (
        [-3.0488281, -1.3134766, -0.97412109, -0.69335938, -0.47412109, -0.31323242, -0.078918457,
        -0.00091123581],
        'float16', False),
    ('leaky_relu', 'f32'): (
        [-0.029999999, -0.0099999998, -0.0049999999, 0.0, 0.5, 1.0, 2.5, 7.0],
        'float32', False),
    ('leaky_relu', 'py'): (1.5, 'float32', True),
    ('leaky_relu', 'f16'): (
        [-0.029998779, -0.010002136, -0.0050010681, 0.0, 0.5, 1.0, 2.5, 7.0],
        'float16', False),
    ('hard_sigmoid', 'f32'): (
        [0.0, 0.33333334, 0.41666669, 0.5, 0.58333337, 0.66666669, 0.91666669, 1.0],
        'float32', False),
    ('hard_sigmoid', 'py'): (0.75, 'float32', True),
    ('hard_sigmoid', 'f16'): (
        [0.0, 0.33325195, 0.41650391, 0.5, 0.58300781, 0.66650391, 0.91650391, 1.0],
        'float16', False),
    ('hard_silu', 'f32'): (
        [-0.0, -0.33333334, -0.20833334, 0.0, 0.29166669, 0.66666669, 2.2916667, 7.0],
        'float32', False),
    ('hard_silu', 'py'): (1.125, 'float32', True),
    ('hard_silu', 'f16'): (
        [-0.0, -0.33325195, -0.20825195, 0.0, 0.29150391, 0.66650391, 2.2910156, 7.0],
        'float16', False),
    ('hard_swish', 'f32'): (
        [-0.0, -0.33333334, -0.20833334, 0.0, 0.29166669, 0.66666669, 2.2916667, 7.0],
        'float32', False),
    ('hard_swish', 'py'): (1.125, 'float32', True),
    ('hard_swish', 'f16'): (
        [-0.0, -0.33325195, -0.20825195, 0.0, 0.29150391, 0.66650391, 2.2910156, 7.0],
        'float16', False),
    ('hard_tanh', 'f32'): ([-1.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.0, 1.0], 'float32', False),
    ('hard_tanh', 'py'): (1.0, 'float32', True),
    ('hard_tanh', 'f16'): ([-1.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.0, 1.0], 'float16', False),
    ('elu', 'f32'): (
        [-0.95021296, -0.63212055, -0.39346933, 0.0, 0.5, 1.0, 2.5, 7.0],
        'float32', False),
    ('elu', 'py'): (1.5, 'float32', True),
    ('elu', 'f16'): (
        [-0.95019531, -0.63183594, -0.39331055, 0.0, 0.5, 1.0, 2.5, 7.0],
        'float16', False),
    ('celu', 'f32'): (
        [-0.95021296, -0.63212055, -0.39346933, 0.0, 0.5, 1.0, 2.5, 7.0],
        'float32', False),
    ('celu', 'py'): (1.5, 'float32', True),
    ('celu', 'f16'): (
        [-0.95019531, -0.63183594, -0.39331055, 0.0, 0.5, 1.0, 2.5, 7.0],
        'float16', False),
    ('selu', 'f32'): (
        [-1.6705688, -1.1113307, -0.69175822, 0.0, 0.52535051, 1.050701, 2.6267526, 7.354907],
        'float32', False),
    ('selu', 'py'): (1.5760515, 'float32', True),
    ('selu', 'f16'): (
        [-1.6708984, -1.1103516, -0.69091797, 0.0, 0.52539062, 1.0507812, 2.6269531, 7.3554688],
        'float16', False),
    ('gelu', 'f32'): (
        [-0.0036373436, -0.15880796, -0.154286, 0.0, 0.345714, 0.84119201, 2.4849157, 7.0],
        'float32', False),
    ('gelu', 'py'): (1.3995715, 'float32', False),
    ('gelu', 'f16'): (
        [-0.0036621094, -0.15893555, -0.15429688, 0.0, 0.34570312, 0.84082031, 2.484375, 7.0],
        'float16', False),
    ('squareplus', 'f32'): (
        [0.30277562, 0.61803401, 0.78077638, 1.0, 1.2807764, 1.618034, 2.850781, 7.1400547],
        'float32', False),
    ('squareplus', 'py'): (2.0, 'float32', True),
    ('squareplus', 'f16'): (
        [0.30273438, 0.61816406, 0.78125, 1.0, 1.28125, 1.6181641, 2.8515625, 7.140625],
        'float16', False),
    ('mish', 'f32'): (
        [-0.14564745, -0.30340144, -0.22074378, 0.0, 0.37524524, 0.86509848, 2.4713924, 6.999989],
        'float32', False),
    ('mish', 'py'): (1.4033782, 'float32', True),
    ('mish', 'f16'): (
        [-0.14562988, -0.3034668, -0.22070312, 0.0, 0.37524414, 0.86523438, 2.4726562, 7.0],
        'float16', False),
    ('relu', 'int'): ([0, 0, 3, 8], 'int32', False),
    ('relu6', 'int'): ([0.0, 0.0, 3.0, 6.0], 'float32', True),
    ('hard_tanh', 'int'): ([-1, 0, 1, 1], 'int32', False),
    ('leaky_relu', 'int'): ([-0.02, 0.0, 3.0, 8.0], 'float32', True),
    ('sparse_plus', 'int'): ([0.0, 0.25, 3.0, 8.0], 'float32', True),
    ('softplus', 'int'): ([0.126928, 0.69314718, 3.0485873, 8.0003357], 'float32', False),
    ('gelu', 'int'): ([-0.045402348, 0.0, 2.9963627, 8.0], 'float32', False),
    ('elu', 'int'): ([-0.86466473, 0.0, 3.0, 8.0], 'float32', True),
    ('squareplus', 'int'): ([0.41421354, 1.0, 3.3027756, 8.123106], 'float32', False),
    ('soft_sign', 'int'): ([-0.66666669, 0.0, 0.75, 0.8888889], 'float32', False),
    ('gelu_exact', 'f32'): (
        [-0.0040496886, -0.15865526, -0.15426877, 0.0, 0.34573123, 0.84134471, 2.4844759, 7.0],
        'float32', False),
    ('gelu_exact', 'py'): (1.3997893, 'float32', False),
    ('gelu_exact', 'f16'): (
        [-0.0043945312, -0.15869141, -0.15429688, 0.0, 0.34570312, 0.84130859, 2.484375, 7.0],
        'float16', False),
    ('leaky_relu_0.2', 'f32'): (
        [-0.60000002, -0.2, -0.1, 0.0, 0.5, 1.0, 2.5, 7.0],
        'float32', False),
    ('elu_2', 'f32'): (
        [-1.9004259, -1.2642411, -0.78693867, 0.0, 0.5, 1.0, 2.5, 7.0],
        'float32', False),
    ('celu_0.5', 'f32'): (
        [-0.49876061, -0.43233237, -0.31606027, 0.0, 0.5, 1.0, 2.5, 7.0],
        'float32', False),
    ('squareplus_1', 'f32'): (
        [0.081138849, 0.20710677, 0.309017, 0.5, 0.809017, 1.2071068, 2.5962911, 7.0355339],
        'float32', False),
    ('glu', 'f32'): ([[-1.132622, -0.5], [0.46207091, 0.999089]], 'float32', False),
    ('glu_ax0', 'f32'): ([[-1.867378, -0.7310586, -0.46207091, 0.0]], 'float32', False),
    ('softmax', 'f32'): (
        [[0.024595957, 0.18174092, 0.29964012, 0.49402303], [0.0014810878, 0.002441901,
        0.010943841, 0.98513317]],
        'float32', False),
    ('softmax_ax0', 'f32'): (
        [[0.029312231, 0.11920292, 0.047425874, 0.00091105123], [0.97068775, 0.88079703,
        0.95257413, 0.999089]],
        'float32', False),
    ('softmax_none', 'f32'): (
        [[4.4643799e-05, 0.0003298755, 0.00054387277, 0.00089669466], [0.0014783995, 0.0024374689,
        0.010923977, 0.98334509]],
        'float32', False),
    ('log_softmax', 'f32'): (
        [[-3.705173, -1.7051731, -1.2051731, -0.70517313], [-6.5149784, -6.0149784, -4.5149784,
        -0.014978441]],
        'float32', False),
    ('log_softmax_ax0', 'f32'): (
        [[-3.5297503, -2.1269281, -3.0485873, -7.0009112], [-0.029750418, -0.12692805, -0.04858733,
        -0.00091141637]],
        'float32', False),
    ('softmax_where', 'f32'): (
        [[0.030058887, 0.0, 0.36619222, 0.60374892], [0.0, 0.0, 0.010986943, 0.98901308]],
        'float32', False),
    ('log_softmax_where', 'f32'): (
        [[-3.5045969, -inf, -1.0045969, -0.50459689], [-inf, -inf, -4.5110478, -0.011047743]],
        'float32', False),
    ('softmax', 'f16'): (
        [4.4703484e-05, 0.00032997131, 0.0005440712, 0.00089693069, 0.0014781952, 0.0024394989,
        0.010925293, 0.98388672],
        'float16', False),
    ('logsumexp', 'f32'): (7.0167952, 'float32', False),
    ('logsumexp_ax1', 'f32'): ([0.70517313, 7.0149784], 'float32', False),
    ('logsumexp_ax1_keep', 'f32'): ([[0.70517313], [7.0149784]], 'float32', False),
    ('logsumexp_tuple', 'f32'): (7.0167952, 'float32', False),
    ('logsumexp_where', 'f32'): ([0.50459689, 7.0110478], 'float32', False),
    ('logsumexp_b', 'f32'): ([-0.11096635, 6.9681625], 'float32', False),
    ('logsumexp_b_sign_v', 'f32'): ([-0.11096635, 6.9681625], 'float32', False),
    ('logsumexp_b_sign_s', 'f32'): ([1.0, 1.0], 'float32', False),
    ('logsumexp_ninf', 'f32'): ([-inf, 0.0], 'float32', False),
    ('logsumexp', 'py'): (1.5, 'float32', False),
    ('logsumexp', 'int'): (8.0070934, 'float32', False),
    ('standardize', 'f32'): (
        [[-1.6464576, 0.10976384, 0.54881918, 0.98787457], [-0.87830937, -0.68312955, -0.097589932,
        1.6590289]],
        'float32', False),
    ('standardize_ax0', 'f32'): (
        [[-0.99999839, -0.99999499, -0.99999779, -0.99999964], [0.99999839, 0.99999499, 0.99999779,
        0.99999964]],
        'float32', False),
    ('standardize_mv', 'f32'): (
        [[-1.9999976, -0.99999881, -0.74999911, -0.4999994], [-0.2499997, 0.0, 0.74999911,
        2.9999964]],
        'float32', False),
    ('standardize_where', 'f32'): (
        [[-1.3969973, 0.12699972, 0.507999, 0.88899827], [-1.8888872, -1.6666651, -0.99999905,
        0.99999905]],
        'float32', False),
    ('one_hot', 'int'): (
        [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        'float32', False),
    ('one_hot_ax0', 'int'): ([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]], 'float32', False),
    ('one_hot_int8', 'int'): (
        [[[1, 0], [0, 1], [0, 0], [0, 0]], [[0, 0], [0, 0], [1, 0], [0, 1]]],
        'int8', False),
    ('one_hot_float', 'f32'): (
        [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        'float32', False),
    ('one_hot_bool', 'int'): ([[False, True], [True, False]], 'bool', False),
    ('one_hot_scalar', 'py'): ([0.0, 1.0, 0.0], 'float32', False),
}


def _cases() -> dict[tuple[str, str], Callable[[], Any]]:
    """The calls behind GOLDEN, keyed as it is."""
    x = jnp.array(X, jnp.float32)
    xh = jnp.array(X, jnp.float16)
    xi = jnp.array([-2, 0, 3, 8], jnp.int32)
    m = x.reshape(2, 4)
    w = jnp.array([[True, False, True, True], [False, False, True, True]])
    b = jnp.array([[1.0, -1.0, 2.0, 0.0], [0.5, 0.5, -3.0, 1.0]])
    c: dict[tuple[str, str], Callable[[], Any]] = {}
    for n in UNARY:
        f = getattr(nn, n)
        c[n, "f32"] = lambda f=f: f(x)
        c[n, "py"] = lambda f=f: f(1.5)
        c[n, "f16"] = lambda f=f: f(xh)
    for n in INT_OK:
        c[n, "int"] = lambda f=getattr(nn, n): f(xi)
    c["gelu_exact", "f32"] = lambda: nn.gelu(x, approximate=False)
    c["gelu_exact", "py"] = lambda: nn.gelu(1.5, approximate=False)
    c["gelu_exact", "f16"] = lambda: nn.gelu(xh, approximate=False)
    c["leaky_relu_0.2", "f32"] = lambda: nn.leaky_relu(x, 0.2)
    c["elu_2", "f32"] = lambda: nn.elu(x, 2.0)
    c["celu_0.5", "f32"] = lambda: nn.celu(x, 0.5)
    c["squareplus_1", "f32"] = lambda: nn.squareplus(x, 1.0)
    c["glu", "f32"] = lambda: nn.glu(m)
    c["glu_ax0", "f32"] = lambda: nn.glu(m, axis=0)
    c["softmax", "f32"] = lambda: nn.softmax(m)
    c["softmax_ax0", "f32"] = lambda: nn.softmax(m, axis=0)
    c["softmax_none", "f32"] = lambda: nn.softmax(m, axis=None)
    c["log_softmax", "f32"] = lambda: nn.log_softmax(m)
    c["log_softmax_ax0", "f32"] = lambda: nn.log_softmax(m, axis=0)
    c["softmax_where", "f32"] = lambda: nn.softmax(m, where=w)
    c["log_softmax_where", "f32"] = lambda: nn.log_softmax(m, where=w)
    c["softmax", "f16"] = lambda: nn.softmax(xh)
    c["logsumexp", "f32"] = lambda: nn.logsumexp(m)
    c["logsumexp_ax1", "f32"] = lambda: nn.logsumexp(m, axis=1)
    c["logsumexp_ax1_keep", "f32"] = lambda: nn.logsumexp(m, axis=1, keepdims=True)
    c["logsumexp_tuple", "f32"] = lambda: nn.logsumexp(m, axis=(0, 1))
    c["logsumexp_where", "f32"] = lambda: nn.logsumexp(m, axis=1, where=w)
    c["logsumexp_b", "f32"] = lambda: nn.logsumexp(m, axis=1, b=b)
    c["logsumexp_b_sign_v", "f32"] = lambda: nn.logsumexp(m, axis=1, b=b, return_sign=True)[0]
    c["logsumexp_b_sign_s", "f32"] = lambda: nn.logsumexp(m, axis=1, b=b, return_sign=True)[1]
    c["logsumexp_ninf", "f32"] = lambda: nn.logsumexp(
        jnp.array([[-jnp.inf, -jnp.inf], [0.0, -jnp.inf]]), axis=1)
    c["logsumexp", "py"] = lambda: nn.logsumexp(1.5)
    c["logsumexp", "int"] = lambda: nn.logsumexp(xi)
    c["standardize", "f32"] = lambda: nn.standardize(m)
    c["standardize_ax0", "f32"] = lambda: nn.standardize(m, axis=0)
    c["standardize_mv", "f32"] = lambda: nn.standardize(m, mean=1.0, variance=4.0)
    c["standardize_where", "f32"] = lambda: nn.standardize(m, where=w)
    c["one_hot", "int"] = lambda: nn.one_hot(jnp.array([0, 2, 5, -1]), 3)
    c["one_hot_ax0", "int"] = lambda: nn.one_hot(jnp.array([0, 2, 1]), 3, axis=0)
    c["one_hot_int8", "int"] = lambda: nn.one_hot(jnp.array([[0, 1], [2, 3]]), 4,
                                                  dtype=jnp.int8, axis=1)
    c["one_hot_float", "f32"] = lambda: nn.one_hot(jnp.array([0.0, 1.5, 2.0]), 3)
    c["one_hot_bool", "int"] = lambda: nn.one_hot(jnp.array([1, 0]), 2, dtype=bool)
    c["one_hot_scalar", "py"] = lambda: nn.one_hot(1, 3)
    return c


CASES = _cases()


def _tol(dtype: str) -> float:
    return {"float16": 2e-3, "bfloat16": 1e-2}.get(dtype, 2e-6)


def _check(out: Any, expected: tuple[Any, str, bool]) -> None:
    values, dtype, weak = expected
    assert str(out.dtype) == dtype
    assert out.weak_type == weak
    want = np.array(values, dtype=np.dtype(dtype) if "float" not in dtype else np.float64)
    got = np.asarray(out)
    assert got.shape == want.shape
    if got.dtype.kind in "fc":
        tol = _tol(dtype)
        np.testing.assert_allclose(got.astype(want.dtype), want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("key", list(GOLDEN), ids=lambda k: "-".join(k))
def test_matches_jax(key: tuple[str, str]) -> None:
    _check(CASES[key](), GOLDEN[key])


@pytest.mark.parametrize("name", ["sigmoid", "silu", "swish"])
def test_integer_input_rejected(name: str) -> None:
    msg = ("logistic does not accept dtype int32. Accepted dtypes are subtypes of floating, "
           "complexfloating.")
    with pytest.raises(TypeError, match=msg):
        getattr(nn, name)(jnp.array([1, 2]))


# ---- derivatives ----------------------------------------------------------------------------

# Points away from every function's kinks (0, +-1, 6, -3, 3).
XG = jnp.array([-2.5, -0.7, 0.3, 1.6, 4.2], jnp.float32)
SMOOTH = ["sigmoid", "softplus", "soft_sign", "silu", "log_sigmoid", "elu", "celu", "selu",
          "gelu", "squareplus", "mish"]
PIECEWISE = ["relu", "relu6", "sparse_plus", "sparse_sigmoid", "leaky_relu", "hard_sigmoid",
             "hard_silu", "hard_tanh"]


@pytest.mark.parametrize("name", SMOOTH + PIECEWISE)
def test_grads_match_finite_differences(name: str) -> None:
    f = getattr(nn, name)
    check_grads(f, (XG,), order=2 if name in SMOOTH else 1, modes=("fwd", "rev"))


@pytest.mark.parametrize("f", [
    lambda x: nn.gelu(x, approximate=False),
    lambda x: nn.glu(x[:4].reshape(2, 2), axis=0),
    lambda x: nn.softmax(x),
    lambda x: nn.log_softmax(x),
    lambda x: nn.logsumexp(x),
    lambda x: nn.logsumexp(x, b=jnp.array([1.0, 2.0, 0.5, 3.0, 1.0])),
    lambda x: nn.standardize(x),
    lambda x: nn.softmax(x, where=jnp.array([True, False, True, True, False])),
], ids=["gelu_exact", "glu", "softmax", "log_softmax", "logsumexp", "logsumexp_b",
        "standardize", "softmax_where"])
def test_grads_of_reductions(f: Callable[[Any], Any]) -> None:
    check_grads(f, (XG,), order=1, modes=("fwd", "rev"))


def _vgrad(f: Callable[[Any], Any], x: Any) -> np.ndarray:
    return np.asarray(numjax.vmap(numjax.grad(f))(jnp.array(x)))


def test_kink_gradients_match_jax() -> None:
    x = [0.0, 6.0, -1.0, 3.0, 7.0]
    np.testing.assert_array_equal(_vgrad(nn.relu, x), [0, 1, 0, 1, 1])
    np.testing.assert_array_equal(_vgrad(nn.relu6, x), [0, 0, 0, 1, 0])
    np.testing.assert_array_equal(_vgrad(nn.hard_tanh, [-1.0, 1.0, 0.5, 2.0]), [1, 1, 1, 0])
    assert float(numjax.grad(nn.leaky_relu)(0.0)) == 1.0
    # The untaken branch of elu must not poison the gradient with inf * 0.
    assert float(numjax.grad(nn.elu)(100.0)) == 1.0
    assert float(numjax.grad(nn.elu)(-100.0)) == 0.0
    np.testing.assert_allclose(_vgrad(nn.gelu, x), [0.5, 1.0, -0.08296407, 1.0115839, 1.0],
                               rtol=1e-5)
    np.testing.assert_allclose(_vgrad(lambda v: nn.gelu(v, False), x),
                               [0.5, 1.0, -0.08331549, 1.0119456, 1.0], rtol=1e-5)


def test_logsumexp_at_minus_infinity() -> None:
    g = numjax.grad(nn.logsumexp)(jnp.array([0.0, -jnp.inf, 1.0]))
    np.testing.assert_allclose(np.asarray(g), [0.26894143, 0.0, 0.7310586], rtol=1e-6)
    assert np.isnan(np.asarray(numjax.grad(nn.logsumexp)(jnp.array([-jnp.inf, -jnp.inf])))).all()
    assert float(nn.logsumexp(jnp.array([-jnp.inf, -jnp.inf]))) == -inf
    # Large inputs do not overflow.
    np.testing.assert_allclose(float(nn.logsumexp(jnp.array([1000.0, 1000.0]))),
                               1000.0 + math.log(2), rtol=1e-6)


def test_logsumexp_sign_and_negative_sums() -> None:
    assert np.isnan(float(nn.logsumexp(jnp.array([1.0, 2.0]), b=jnp.array([1.0, -1.0]))))
    out = nn.logsumexp(jnp.array([1 + 1j, 2 - 1j]))
    assert out.dtype == np.complex64
    np.testing.assert_allclose(complex(out), 1.9063238 - 0.62382865j, rtol=1e-6)


def test_softmax_where_gradients_match_jax() -> None:
    where = jnp.array([True, False, True])
    x = jnp.array([1.0, 2.0, 3.0])
    g = numjax.grad(lambda v: nn.softmax(v, where=where)[0])(x)
    np.testing.assert_allclose(np.asarray(g), [0.10499357, 0.0, -0.10499357], rtol=1e-6)
    g = numjax.grad(lambda v: nn.log_softmax(v, where=where)[0])(x)
    np.testing.assert_allclose(np.asarray(g), [0.88079709, 0.0, -0.88079703], rtol=1e-6)


def test_softmax_infinities() -> None:
    assert np.isnan(np.asarray(nn.softmax(jnp.array([1.0, jnp.inf])))).all()
    assert np.isnan(np.asarray(nn.softmax(jnp.array([-jnp.inf, -jnp.inf])))).all()
    np.testing.assert_array_equal(np.asarray(nn.log_softmax(jnp.array([0.0, -jnp.inf]))),
                                  [0.0, -inf])


def test_bfloat16() -> None:
    out = nn.softmax(jnp.array([1.0, 2.0, 3.0], jnp.bfloat16))
    assert out.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(out, np.float32), [0.09033203, 0.24511719, 0.66796875],
                               rtol=1e-2)
    out = nn.gelu(jnp.array([1.0, 2.0, 3.0], jnp.bfloat16))
    assert out.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(out, np.float32), [0.84375, 1.953125, 3.0], rtol=1e-2)
    out = nn.logsumexp(jnp.array([1.0, 2.0, 3.0], jnp.bfloat16))
    assert out.dtype == jnp.bfloat16 and abs(float(out) - 3.40625) < 2e-2


# ---- transformations ------------------------------------------------------------------------


@pytest.mark.parametrize("name", UNARY + ["gelu_exact", "softmax", "log_softmax", "logsumexp",
                                          "standardize", "glu"])
def test_jit_matches_eager(name: str) -> None:
    f = (lambda v: nn.gelu(v, approximate=False)) if name == "gelu_exact" else getattr(nn, name)
    x = jnp.array(X).reshape(2, 4)
    np.testing.assert_allclose(np.asarray(numjax.jit(f)(x)), np.asarray(f(x)), rtol=2e-6,
                               atol=1e-7)


@pytest.mark.parametrize("f", [
    nn.relu, nn.gelu, nn.softmax, nn.log_softmax, nn.logsumexp, nn.standardize, nn.glu,
    lambda r: nn.softmax(r, where=r > 0),
    lambda r: nn.logsumexp(r, b=r + 4.0, return_sign=True),
    lambda r: nn.one_hot(jnp.argmax(r), 4),
], ids=["relu", "gelu", "softmax", "log_softmax", "logsumexp", "standardize", "glu",
        "softmax_where", "logsumexp_sign", "one_hot"])
def test_vmap_matches_loop(f: Callable[[Any], Any]) -> None:
    m = jnp.array(X).reshape(2, 4)
    batched = numjax.vmap(f)(m)
    looped = [f(m[i]) for i in range(2)]
    for out, *rows in zip(numjax.tree_util.tree_leaves(batched),
                          *[numjax.tree_util.tree_leaves(r) for r in looped], strict=False):
        np.testing.assert_allclose(np.asarray(out), np.stack([np.asarray(r) for r in rows]),
                                   rtol=2e-6)


def test_vmap_of_grad_of_log_softmax_loss() -> None:
    logits = jnp.array(X).reshape(2, 4)
    labels = jnp.array([1, 3])

    def loss(lg: Any, y: Any) -> Any:
        return -jnp.sum(nn.log_softmax(lg) * nn.one_hot(y, 4))

    g = numjax.vmap(numjax.grad(loss))(logits, labels)
    want = np.asarray(nn.softmax(logits)) - np.eye(4)[[1, 3]]
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-7)


# ---- one_hot --------------------------------------------------------------------------------


def test_one_hot_edge_cases() -> None:
    assert nn.one_hot(jnp.arange(3), 0).shape == (3, 0)
    assert nn.one_hot(jnp.zeros((0,), jnp.int32), 3).shape == (0, 3)
    assert nn.one_hot(jnp.zeros((2, 3), jnp.int32), 4, axis=1).shape == (2, 4, 3)
    assert nn.one_hot(jnp.zeros((2, 3), jnp.int32), 4, axis=-3).shape == (4, 2, 3)
    named = numjax.vmap(lambda i: nn.one_hot(i, 3, axis="i"), axis_name="i")(jnp.arange(3))
    np.testing.assert_array_equal(np.asarray(named), [1.0, 1.0, 1.0])


def test_one_hot_errors() -> None:
    with pytest.raises(ValueError, match="Expected num_classes to match the size of axis i, "
                                         "but 4 != 3"):
        numjax.vmap(lambda i: nn.one_hot(i, 4, axis="i"), axis_name="i")(jnp.arange(3))
    with pytest.raises(numjax.errors.ConcretizationTypeError,
                       match="The error arose in jax.nn.one_hot argument `num_classes`."):
        numjax.jit(lambda n: nn.one_hot(jnp.arange(3), n))(3)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        nn.one_hot(jnp.arange(3), 3.0)
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        nn.one_hot(jnp.arange(3), 3, axis=2)


# ---- errors and deprecations ----------------------------------------------------------------


def test_bad_inputs_raise_jax_errors() -> None:
    with pytest.raises(AssertionError, match="axis size must be divisible by 2"):
        nn.glu(jnp.ones(3))
    with pytest.raises(TypeError, match="Argument 'a' of type <class 'str'> is not a valid JAX "
                                        "type"):
        nn.relu("a")
    for f, name in [(nn.relu, "maximum"), (nn.gelu, "gelu"), (nn.soft_sign, "soft_sign"),
                    (nn.logsumexp, "logsumexp"), (nn.softmax, "max")]:
        with pytest.raises(TypeError, match=f"(?m)^{name} requires ndarray or scalar arguments, "
                                            "got <class 'list'> at position 0.$"):
            f([1.0])
    with pytest.raises(TypeError, match="standardize requires ndarray, scalar, or None "
                                        "arguments, got <class 'list'> at position 0."):
        nn.standardize(jnp.array([1.0, 3.0]), mean=[1.0])
    with pytest.raises(ValueError, match="duplicate value in 'axis': \\(0, 0\\)"):
        nn.logsumexp(jnp.ones((2, 2)), axis=(0, 0))
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        nn.logsumexp(jnp.ones((2, 2)), axis=2)
    with pytest.raises(ValueError, match="axis -1 is out of bounds for array of dimension 0"):
        nn.softmax(1.0)


def test_deprecations() -> None:
    with pytest.raises(AttributeError, match="jax.nn.normalize is deprecated. Use "
                                             "jax.nn.standardize instead."):
        nn.normalize  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'foo'"):
        nn.foo  # noqa: B018
    for f in (nn.softmax, nn.log_softmax):
        with pytest.warns(DeprecationWarning, match="argument to .*softmax is deprecated, and "
                                                    "no longer has any effect"):
            f(jnp.array([1.0, 2.0]), initial=0.0)
    assert nn.tanh is jnp.tanh


# ---- initializers ---------------------------------------------------------------------------


INIT_GOLDEN = {
    'uniform': (
        [[0.0057450044, 0.00099686021, 0.0074196588], [0.0089417826, 0.0059656654, 0.0045325183]],
        'float32', False),
    'uniform_scale': (
        [[5.7450047, 0.99686027, 7.4196587], [8.941783, 5.9656658, 4.5325184]],
        'float32', False),
    'normal': (
        [[0.37568769, -2.5666852, 1.2988362], [2.4981189, 0.48894006, -0.2348993]],
        'float32', False),
    'truncated_normal': (
        [[0.35840502, -2.3710959, 1.2314161], [2.3128183, 0.46627533, -0.22416548]],
        'float32', False),
    'truncated_normal_lu': (
        [[-0.088465773, -0.80029929, 0.13572346], [0.34533817, -0.058914177, -0.252956]],
        'float32', False),
    'glorot_uniform': (
        [[0.1632223, -0.87704402, 0.53012073], [0.86360133, 0.21156673, -0.10242009]],
        'float32', False),
    'glorot_normal': (
        [[0.12884755, -0.85241526, 0.44269735], [0.83146429, 0.16762722, -0.080588087]],
        'float32', False),
    'lecun_uniform': (
        [[0.18248807, -0.98056501, 0.59269297], [0.96553564, 0.2365388, -0.11450914]],
        'float32', False),
    'lecun_normal': (
        [[0.14405595, -0.95302922, 0.49495068], [0.92960531, 0.18741292, -0.090100214]],
        'float32', False),
    'he_uniform': (
        [[0.25807709, -1.3867283, 0.83819443], [1.3654735, 0.33451638, -0.16194038]],
        'float32', False),
    'he_normal': (
        [[0.20372589, -1.3477869, 0.69996601], [1.3146605, 0.26504192, -0.12742096]],
        'float32', False),
    'he_normal_conv': (
        [[[[0.88887924, -0.82524288, 0.33940572], [0.4566133, -0.29999742, 0.52734607]]],
        [[[0.35194826, -1.3965852, -0.16438138], [-0.74647915, -0.51709294, 0.20971592]]]],
        'float32', False),
    'vs_fan_out_normal': (
        [[[0.84157294, -0.77759737, 0.31372803], [0.42318195, -0.27711201, 0.48975611]],
        [[0.32539892, -1.4627055, -0.15159079], [-0.69991595, -0.48007628, 0.19348261]]],
        'float32', False),
    'vs_batch': (
        [[[0.83913064, -0.79806721, 0.37543622], [0.49346879, -0.3339625, 0.56026733]],
        [[0.38846177, -1.0531766, -0.18595257], [-0.74243051, -0.55080968, 0.23620829]]],
        'float32', False),
    'glorot_uniform_f16': (
        [[-0.42333984, 1.0175781, 1.0517578], [-0.40625, -0.54296875, 0.29077148]],
        'float16', False),
    'lecun_normal_f16_call': (
        [[-0.38647461, 1.2744141, 1.3955078], [-0.36938477, -0.50927734, 0.26000977]],
        'float16', False),
    'zeros': ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], 'float32', False),
    'ones_i32': ([1, 1], 'int32', False),
    'constant': ([[-7.0, -7.0, -7.0], [-7.0, -7.0, -7.0]], 'float32', False),
    'constant_f16': ([0.5, 0.5], 'float16', False),
    'orthogonal': (
        [[-0.3497299, 0.32172829, -0.879875], [-0.69250298, 0.54376835, 0.47408402], [-0.63097429,
        -0.7751174, -0.032625824]],
        'float32', False),
    'orthogonal_wide': (
        [[0.52259827, 1.8067387, 0.68013734], [-1.8171707, 0.69825816, -0.45861351]],
        'float32', False),
    'delta_orthogonal': (
        [[[0.0, 0.0], [0.0, 0.0]], [[0.98293364, 0.18396065], [0.18396065, -0.98293364]], [[0.0,
        0.0], [0.0, 0.0]]],
        'float32', False),
    'glorot_uniform_c64': (
        [[(0.51827115-0.53539044j), (-0.89578968+0.33514407j)], [(-0.092383675+0.53769773j),
        (0.16246073-0.69406015j)]],
        'complex64', False),
    'glorot_normal_c64': (
        [[(0.45794767-0.47307441j), (-1.0498608+0.39278707j)], [(-0.073852554+0.42984158j),
        (0.14053163-0.60037529j)]],
        'complex64', False),
}


def _init_cases() -> dict[str, Callable[[], Any]]:
    k = numjax.random.PRNGKey(0)
    return {
        "uniform": lambda: init.uniform()(k, (2, 3)),
        "uniform_scale": lambda: init.uniform(10.0)(k, (2, 3)),
        "normal": lambda: init.normal(2.0)(k, (2, 3)),
        "truncated_normal": lambda: init.truncated_normal(2.0)(k, (2, 3)),
        "truncated_normal_lu": lambda: init.truncated_normal(1.0, lower=-1.0, upper=0.5)(
            k, (2, 3)),
        "glorot_uniform": lambda: init.glorot_uniform()(k, (2, 3)),
        "glorot_normal": lambda: init.glorot_normal()(k, (2, 3)),
        "lecun_uniform": lambda: init.lecun_uniform()(k, (2, 3)),
        "lecun_normal": lambda: init.lecun_normal()(k, (2, 3)),
        "he_uniform": lambda: init.he_uniform()(k, (2, 3)),
        "he_normal": lambda: init.he_normal()(k, (2, 3)),
        "he_normal_conv": lambda: init.he_normal()(k, (2, 1, 2, 3)),
        "vs_fan_out_normal": lambda: init.variance_scaling(
            3.0, "fan_out", "normal", in_axis=0, out_axis=(1, 2))(k, (2, 2, 3)),
        "vs_batch": lambda: init.variance_scaling(
            1.0, "fan_avg", "uniform", batch_axis=(0,))(k, (2, 2, 3)),
        "glorot_uniform_f16": lambda: init.glorot_uniform(dtype=np.float16)(k, (2, 3)),
        "lecun_normal_f16_call": lambda: init.lecun_normal()(k, (2, 3), np.float16),
        "zeros": lambda: init.zeros(k, (2, 3)),
        "ones_i32": lambda: init.ones(k, (2,), jnp.int32),
        "constant": lambda: init.constant(-7)(k, (2, 3)),
        "constant_f16": lambda: init.constant(0.5, np.float16)(k, (2,)),
        "orthogonal": lambda: init.orthogonal()(k, (3, 3)),
        "orthogonal_wide": lambda: init.orthogonal(2.0)(k, (2, 3)),
        "delta_orthogonal": lambda: init.delta_orthogonal()(k, (3, 2, 2)),
        "glorot_uniform_c64": lambda: init.glorot_uniform(dtype=np.complex64)(k, (2, 2)),
        "glorot_normal_c64": lambda: init.glorot_normal(dtype=np.complex64)(k, (2, 2)),
    }


INIT_CASES = _init_cases()


@pytest.mark.parametrize("name", list(INIT_GOLDEN))
def test_initializer_matches_jax(name: str) -> None:
    values, dtype, weak = INIT_GOLDEN[name]
    out = INIT_CASES[name]()
    assert str(out.dtype) == dtype and out.weak_type == weak
    # Same key, same draws: equal up to rounding (float16 truncated normal: to one ulp).
    tol = 4e-3 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(np.asarray(out), np.array(values, out.dtype), rtol=tol, atol=tol)


def test_initializer_statistics() -> None:
    key = numjax.random.key(1)
    fan_in, fan_out = 200, 300
    for make, var, bound in [
        (init.he_normal, 2 / fan_in, 2 * math.sqrt(2 / fan_in) / 0.8796256610342398),
        (init.lecun_normal, 1 / fan_in, 2 * math.sqrt(1 / fan_in) / 0.8796256610342398),
        (init.glorot_normal, 2 / (fan_in + fan_out),
         2 * math.sqrt(2 / (fan_in + fan_out)) / 0.8796256610342398),
        (init.he_uniform, 2 / fan_in, math.sqrt(6 / fan_in)),
        (init.lecun_uniform, 1 / fan_in, math.sqrt(3 / fan_in)),
        (init.glorot_uniform, 2 / (fan_in + fan_out), math.sqrt(6 / (fan_in + fan_out))),
    ]:
        w = np.asarray(make()(key, (fan_in, fan_out)))
        assert w.shape == (fan_in, fan_out) and w.dtype == np.float32
        assert abs(w.mean()) < 0.05 * math.sqrt(var)
        assert abs(w.var() / var - 1) < 0.03
        assert np.abs(w).max() <= bound * (1 + 1e-6)
    w = np.asarray(init.normal(0.5)(key, (400, 100)))
    assert abs(w.std() / 0.5 - 1) < 0.02
    w = np.asarray(init.uniform(3.0)(key, (400, 100)))
    assert 0 <= w.min() and w.max() < 3 and abs(w.mean() - 1.5) < 0.02


def test_orthogonal_initializers() -> None:
    key = numjax.random.key(2)
    w = np.asarray(init.orthogonal()(key, (5, 3)), np.float64)
    np.testing.assert_allclose(w.T @ w, np.eye(3), atol=1e-5)
    w = np.asarray(init.orthogonal(scale=2.0)(key, (3, 5)), np.float64)
    np.testing.assert_allclose(w @ w.T, 4 * np.eye(3), atol=1e-5)
    w = np.asarray(init.orthogonal(column_axis=0)(key, (3, 2, 2)), np.float64)
    flat = np.moveaxis(w, 0, -1).reshape(4, 3)
    np.testing.assert_allclose(flat.T @ flat, np.eye(3), atol=1e-5)
    w = np.asarray(init.delta_orthogonal()(key, (3, 3, 2, 4)))
    center = w[1, 1]
    np.testing.assert_allclose(center @ center.T, np.eye(2), atol=1e-5)
    assert np.count_nonzero(w) == np.count_nonzero(center)


def test_initializer_protocol_and_dtypes() -> None:
    key = numjax.random.key(3)
    orthogonal = init.orthogonal()
    for f in (init.zeros, init.ones, init.constant(1.0), init.glorot_uniform(),
              init.he_normal(), orthogonal):
        assert isinstance(f, init.Initializer)
        assert f(key, (2, 3)).dtype == np.float32
        if f is not orthogonal:
            assert f(key, (2, 3), jnp.bfloat16).dtype == jnp.bfloat16
        assert numjax.jit(f, static_argnums=1)(key, (2, 3)).shape == (2, 3)
    # orthogonal's QR goes to LAPACK, which has no bfloat16: JAX 0.4.30 raises.
    with pytest.raises(NotImplementedError, match="Unsupported dtype bfloat16"):
        init.orthogonal()(key, (2, 3), jnp.bfloat16)
    assert init.xavier_uniform is init.glorot_uniform and init.xavier_normal is init.glorot_normal
    assert init.kaiming_uniform is init.he_uniform and init.kaiming_normal is init.he_normal
    # float64 requests are canonicalized without x64.
    assert init.normal()(key, (2,), jnp.float64).dtype == np.float32


@pytest.mark.parametrize("make, shape, message", [
    (lambda: init.glorot_uniform(), (3,),
     "Can't compute input and output sizes of a 1-dimensional weights tensor. Must be at "
     "least 2D."),
    (lambda: init.variance_scaling(1.0, "fan_x", "normal"), (2, 3),
     "invalid mode for variance scaling initializer: fan_x"),
    (lambda: init.variance_scaling(1.0, "fan_in", "cauchy"), (2, 3),
     "invalid distribution for variance scaling initializer: cauchy"),
    (lambda: init.orthogonal(), (3,), "orthogonal initializer requires at least a 2D shape"),
    (lambda: init.delta_orthogonal(), (3, 3),
     "Delta orthogonal initializer requires a 3D, 4D or 5D shape."),
    (lambda: init.delta_orthogonal(), (3, 3, 2),
     "`fan_in` must be less or equal than `fan_out`. "),
])
def test_initializer_errors(make: Callable[[], Any], shape: tuple[int, ...], message: str
                            ) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        make()(numjax.random.PRNGKey(0), shape)


# jax_softmax_custom_jvp: JAX 0.4.30's residuals of reverse mode through nn.softmax at
# [5.5, 1.3, -4.2, 0.9] (count, total size) and its gradient of softmax(x)[0]. The default
# keeps exp(x - max), the sum and its -2 power; softmax's own rule keeps only the output.
SOFTMAX_FLAG = [
    (False, 3, 6),
    (True, 1, 4),
]
SOFTMAX_GRAD0 = [0.023893773555755615, -0.01426998246461153, -5.83181536057964e-05,
                 -0.00956545490771532]


@pytest.mark.parametrize(("flag", "count", "size"), SOFTMAX_FLAG)
def test_softmax_custom_jvp_flag(flag: bool, count: int, size: int) -> None:
    x = jnp.array([5.5, 1.3, -4.2, 0.9])
    with numjax.softmax_custom_jvp(flag):
        res = saved_residuals(nn.softmax, x)
        assert (len(res), sum(a.size for a, _ in res)) == (count, size)
        np.testing.assert_allclose(numjax.grad(lambda x: nn.softmax(x)[0])(x), SOFTMAX_GRAD0,
                                   rtol=1e-5)
        m = jnp.array([True, False, True, True])
        check_grads(lambda x: nn.softmax(x, where=m), (x,), order=2, modes=["fwd", "rev"],
                    atol=1e-2, rtol=1e-2)
        jitted = numjax.jit(numjax.grad(lambda x: nn.softmax(x)[1]))(x)
        np.testing.assert_allclose(jitted, numjax.grad(lambda x: nn.softmax(x)[1])(x), rtol=1e-5)
