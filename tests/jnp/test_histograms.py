"""jnp.bincount against JAX 0.4.30's recorded results: negative values count in bin 0, values
past `length` are dropped; eager, jit, vmap and gradients agree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp

# (x, weights, minlength, length, JAX 0.4.30's result)
BINCOUNTS = [
    ([-1, 0, 1, 1], None, 0, 3, [2, 2, 0]),
    ([-2, 0, 1], [5.0, 1.0, 2.0], 0, 3, [6.0, 2.0, 0.0]),
    ([-2, 0, 1], None, 0, None, [2, 1]),
    ([-2, -1], None, 0, None, []),
    ([-2, -1], None, 2, None, [2, 0]),
    ([-1, 0, 5], [1.0, 2.0, 3.0], 0, 3, [3.0, 0.0, 0.0]),
    ([0, 1, 1, 3], None, 0, None, [1, 2, 0, 1]),
]


@pytest.mark.parametrize("x,weights,minlength,length,expected", BINCOUNTS)
def test_bincount(x: list[int], weights: list[float] | None, minlength: int, length: int | None,
                  expected: list[float]) -> None:
    x = jnp.array(x)
    w = None if weights is None else jnp.array(weights)
    out = jnp.bincount(x, w, minlength=minlength, length=length)
    assert out.dtype == (np.float32 if weights is not None else np.int32)
    np.testing.assert_array_equal(out, expected)
    if length is not None:
        jitted = numjax.jit(lambda x, w: jnp.bincount(x, w, minlength=minlength, length=length))
        np.testing.assert_array_equal(jitted(x, w), expected)


def test_bincount_of_negative_int8_values() -> None:
    out = jnp.bincount(jnp.array([-100, 5], jnp.int8), length=6)
    np.testing.assert_array_equal(out, [1, 0, 0, 0, 0, 1])


def test_bincount_under_vmap_and_grad() -> None:
    out = numjax.vmap(lambda x: jnp.bincount(x, length=3))(jnp.array([[-1, 0, 5], [2, 2, -3]]))
    np.testing.assert_array_equal(out, [[2, 0, 0], [1, 0, 2]])
    g = numjax.grad(lambda w: jnp.bincount(jnp.array([-1, 0, 5]), w, length=3).sum())(
        jnp.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(g, [1.0, 1.0, 0.0])


@pytest.mark.parametrize("call,error,message", [
    (lambda: jnp.bincount(jnp.array([True, False])), TypeError,
     "x argument to bincount must have an integer type; got bool"),
    (lambda: jnp.bincount(jnp.array([0, 1]), weights=jnp.array(2.0)), ValueError,
     "shape of weights must match shape of x."),
    (lambda: jnp.bincount(jnp.array([0, 1]), weights=[2, 3]), TypeError,
     "Cannot determine dtype of [2, 3]"),
])
def test_bincount_errors(call: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message
