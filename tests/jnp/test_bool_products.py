"""Products of a number and a boolean, recorded from JAX 0.4.30: XLA computes a multiply by a
converted boolean as a select, so `inf * False` is 0 (not NaN) and `-2.0 * False` is +0.0
where the boolean needs no broadcasting; a dot whose terms are single products is such a
multiply."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax

nan, inf = np.nan, np.inf


def _same(got: Any, want: Any) -> None:
    got, want = np.asarray(got), np.asarray(want, got.dtype)
    np.testing.assert_array_equal(got, want)
    if got.dtype.kind != "f":
        return
    # the zeros' signs (a NaN's sign is NumPy's: docs/differences.md)
    np.testing.assert_array_equal(np.signbit(got) & ~np.isnan(got),
                                  np.signbit(want) & ~np.isnan(want))


def _operands(lhs_shape: tuple[int, ...], rhs_shape: tuple[int, ...],
              bool_side: str) -> tuple[Any, Any]:
    f_shape, b_shape = (lhs_shape, rhs_shape) if bool_side == "rhs" else (rhs_shape, lhs_shape)
    f = np.array([inf, -2.0, 3.0, -inf][:int(np.prod(f_shape))], np.float32).reshape(f_shape)
    b = (np.arange(int(np.prod(b_shape))) % 2 == 1).reshape(b_shape)
    return (f, b) if bool_side == "rhs" else (b, f)


# (lhs shape, rhs shape, which operand is boolean, JAX's jnp.matmul) with the float operand
# [inf, -2, 3, -inf][:size] and the boolean [False, True, ...]: a contraction of length 1
# selects when the boolean needs no broadcasting into the result.
MATMULS = [
    ((1,), (1,), 'rhs', 0.0),
    ((1,), (1, 1), 'rhs', [nan]),
    ((1,), (1, 2), 'rhs', [0.0, inf]),
    ((2,), (2,), 'rhs', nan),
    ((2,), (2, 1), 'rhs', [nan]),
    ((2,), (2, 2), 'rhs', [nan, inf]),
    ((1, 1), (1,), 'rhs', [nan]),
    ((1, 1), (1, 1), 'rhs', [[0.0]]),
    ((1, 1), (1, 2), 'rhs', [[0.0, inf]]),
    ((1, 2), (2,), 'rhs', [nan]),
    ((1, 2), (2, 1), 'rhs', [[nan]]),
    ((1, 2), (2, 2), 'rhs', [[nan, inf]]),
    ((2, 1), (1,), 'rhs', [nan, -0.0]),
    ((2, 1), (1, 1), 'rhs', [[nan], [-0.0]]),
    ((2, 1), (1, 2), 'rhs', [[nan, inf], [-0.0, -2.0]]),
    ((2, 2), (2,), 'rhs', [nan, -inf]),
    ((2, 2), (2, 1), 'rhs', [[nan], [-inf]]),
    ((2, 2), (2, 2), 'rhs', [[nan, inf], [nan, -inf]]),
    ((1,), (1,), 'lhs', 0.0),
    ((1,), (1, 1), 'lhs', [nan]),
    ((1,), (1, 2), 'lhs', [nan, -0.0]),
    ((2,), (2,), 'lhs', nan),
    ((2,), (2, 1), 'lhs', [nan]),
    ((2,), (2, 2), 'lhs', [nan, -inf]),
    ((1, 1), (1,), 'lhs', [nan]),
    ((1, 1), (1, 1), 'lhs', [[0.0]]),
    ((1, 1), (1, 2), 'lhs', [[nan, -0.0]]),
    ((1, 2), (2,), 'lhs', [nan]),
    ((1, 2), (2, 1), 'lhs', [[nan]]),
    ((1, 2), (2, 2), 'lhs', [[nan, -inf]]),
    ((2, 1), (1,), 'lhs', [0.0, inf]),
    ((2, 1), (1, 1), 'lhs', [[0.0], [inf]]),
    ((2, 1), (1, 2), 'lhs', [[nan, -0.0], [inf, -2.0]]),
    ((2, 2), (2,), 'lhs', [nan, nan]),
    ((2, 2), (2, 1), 'lhs', [[nan], [nan]]),
    ((2, 2), (2, 2), 'lhs', [[nan, -inf], [nan, -inf]]),
]


@pytest.mark.parametrize("lhs_shape, rhs_shape, bool_side, expected", MATMULS)
def test_matmul_with_a_boolean_operand(lhs_shape: Any, rhs_shape: Any, bool_side: str,
                                       expected: Any) -> None:
    a, b = _operands(lhs_shape, rhs_shape, bool_side)
    _same(jnp.matmul(a, b), expected)
    _same(jax.jit(jnp.matmul)(a, b), expected)
    _same(jnp.dot(a, b), expected)  # 1-D and 2-D: the same product


def test_fuzzer_record_log_of_false_times_false() -> None:
    # fuzzer seed 21001: `jnp.log(a1) @ a1` for a1 = [False] is 0.0 in JAX 0.4.30, eagerly,
    # under jit and under vmap (a batched dot of one term per example).
    a1 = np.array([False])
    f = lambda a: jnp.log(a) @ a
    _same(f(a1), 0.0)
    _same(jax.jit(f)(a1), 0.0)
    _same(jax.vmap(f)(np.array([[False], [True]])), [0.0, 0.0])


# (lhs shape, rhs shape, batch dims, boolean operand, JAX's all-NaN-or-zero result) for
# lax.dot_general of an all-inf float operand and an all-False boolean.
DOT_GENERALS = [
    ((2, 1), (2, 1), (((1,), (1,)), ((0,), (0,))), "rhs", 0.0),
    ((2, 1), (2, 1, 1), (((1,), (1,)), ((0,), (0,))), "rhs", nan),
    ((2, 1, 1), (2, 1), (((2,), (1,)), ((0,), (0,))), "rhs", nan),
    ((2, 1, 1), (2, 1, 3), (((2,), (1,)), ((0,), (0,))), "rhs", nan),
    ((2, 3, 1), (2, 1, 1), (((2,), (1,)), ((0,), (0,))), "rhs", nan),
    ((1, 1, 1), (1, 1, 1), (((2,), (1,)), ((0,), (0,))), "rhs", 0.0),
    ((1,), (1, 1, 1), (((0,), (1,)), ((), ())), "rhs", nan),
    ((1, 1), (1, 1), (((0, 1), (0, 1)), ((), ())), "rhs", 0.0),
    ((1,), (2, 1), (((0,), (1,)), ((), ())), "rhs", 0.0),
    ((1, 1), (1, 1, 2), (((0, 1), (0, 1)), ((), ())), "lhs", nan),
    ((1,), (1, 3), (((0,), (0,)), ((), ())), "lhs", nan),
    ((2, 3, 1), (2, 1, 1), (((2,), (1,)), ((0,), (0,))), "lhs", nan),
    ((2, 1, 1), (2, 1, 3), (((2,), (1,)), ((0,), (0,))), "lhs", nan),
    ((2, 2, 1, 1), (2, 2, 1, 1), (((3,), (2,)), ((0, 1), (0, 1))), "rhs", 0.0),
    ((2, 2, 1), (2, 2, 1, 1), (((2,), (2,)), ((0, 1), (0, 1))), "rhs", nan),
]


@pytest.mark.parametrize("lhs_shape, rhs_shape, dims, bool_side, expected", DOT_GENERALS)
def test_dot_general_with_a_boolean_operand(lhs_shape: Any, rhs_shape: Any, dims: Any,
                                            bool_side: str, expected: float) -> None:
    lhs = np.full(lhs_shape, inf, np.float32) if bool_side == "rhs" \
        else np.zeros(lhs_shape, bool)
    rhs = np.zeros(rhs_shape, bool) if bool_side == "rhs" \
        else np.full(rhs_shape, inf, np.float32)
    out = lax.dot_general(lhs, rhs, dims)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.full(out.shape, expected, np.float32))


# (x shape, x value, boolean shape, JAX's jnp.multiply(x, all-False)): a boolean of the
# result's shape selects (+0.0 whatever x is); one that must be broadcast (or reshaped to
# the result's rank) multiplies.
MULTIPLIES = [
    ((2, 3), inf, (2, 3), 0.0),
    ((2, 3), inf, (1, 3), nan),
    ((2, 3), inf, (3,), nan),
    ((1, 3), inf, (3,), nan),
    ((), inf, (2,), 0.0),
    ((2,), inf, (), nan),
    ((), inf, (), 0.0),
    ((2,), -2.0, (2,), 0.0),
    ((2,), -2.0, (1, 2), 0.0),
    ((1, 3), nan, (2, 3), 0.0),
    ((2,), -2.0, (1,), -0.0),
]


@pytest.mark.parametrize("x_shape, x_value, b_shape, expected", MULTIPLIES)
def test_multiply_by_a_boolean(x_shape: Any, x_value: float, b_shape: Any,
                               expected: float) -> None:
    x = np.full(x_shape, x_value, np.float32)
    b = np.zeros(b_shape, bool)
    shape = np.broadcast_shapes(x_shape, b_shape)
    want = np.full(shape, expected, np.float32)
    for out in (jnp.multiply(x, b), jnp.multiply(b, x), jax.jit(jnp.multiply)(x, b),
                jnp.asarray(x) * b):
        assert out.dtype == np.float32 and not out.weak_type
        _same(out, want)


def test_multiply_by_a_boolean_other_types() -> None:
    _same(jnp.multiply(np.array([-2.0 + 1j], np.complex64), np.array([False])), [0j])
    _same(jnp.multiply(np.array([-inf], np.float16), np.array([False])), [0.0])
    # a weak scalar keeps the result weak, as JAX's
    out = jnp.multiply(np.array([False, True]), jnp.inf)
    assert out.weak_type and out.dtype == np.float32
    _same(out, [0.0, inf])
    out = jnp.multiply(np.array([False, True]), 2)
    assert out.weak_type and out.dtype == jnp.int32
    _same(out, [0, 2])
    _same(jnp.float32(inf) * False, 0.0)  # both 0-d: a select
    _same(jnp.asarray(np.array([inf], np.float32)) * False, [nan])  # False broadcast
    _same(jax.vmap(lambda x, y: x * y)(np.array([inf], np.float32), np.array([False])), [0.0])
    # the gradient of the product is the select's: 1 where True, 0 where False
    grad = jax.grad(lambda x: (x * np.array([True, False])).sum())(np.array([inf, 2.0],
                                                                            np.float32))
    _same(grad, [1.0, 0.0])


# (function of x = [inf, -2, nan, 3] and b = [False, False, False, True] under jit, JAX's
# value): the compiler makes a product with a converted boolean of the result's shape a
# select, as XLA's simplifier does; eagerly the conversion is separate and inf * 0 is NaN.
JITTED = [
    (lambda x, b: x * b.astype(jnp.float32), [0.0, 0.0, 0.0, 3.0]),
    (lambda x, b: b.astype(jnp.float32) * x, [0.0, 0.0, 0.0, 3.0]),
    (lambda x, b: x[0] * b.astype(jnp.float32), [0.0, 0.0, 0.0, inf]),
    (lambda x, b: x * b[0].astype(jnp.float32), [nan, -0.0, nan, 0.0]),
    (lambda x, b: x * (b.astype(jnp.int32) > 0).astype(jnp.float32), [0.0, 0.0, 0.0, 3.0]),
]


@pytest.mark.parametrize("fn, expected", JITTED)
def test_jitted_product_with_a_converted_boolean(fn: Any, expected: Any) -> None:
    x = np.array([inf, -2.0, nan, 3.0], np.float32)
    b = np.array([False, False, False, True])
    _same(jax.jit(fn)(x, b), expected)


def test_eager_product_with_a_converted_boolean_is_ieee() -> None:
    x = jnp.array([inf, -2.0], np.float32)
    _same(x * jnp.array([False, False]).astype(jnp.float32), [nan, -0.0])
    # the gradient, eager or jitted, is the boolean
    b = np.array([False, True])
    f = lambda x: (x * b.astype(jnp.float32)).sum()
    _same(jax.grad(f)(x), [0.0, 1.0])
    _same(jax.jit(jax.grad(f))(x), [0.0, 1.0])
