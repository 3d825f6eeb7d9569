"""jnp.place as in JAX 0.4.30 (results recorded from JAX): the mask may be traced; values
repeat cyclically over the masked positions."""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp

A = np.arange(8, dtype=np.float32).reshape(2, 4)
M = np.array([[True, False, True, True], [False, False, True, False]])


@pytest.mark.parametrize("vals,expected", [
    (np.array([10., 20.], np.float32), [[10, 1, 20, 10], [4, 5, 20, 7]]),
    (np.array([10., 20., 30., 40., 50., 60.], np.float32), [[10, 1, 20, 30], [4, 5, 40, 7]]),
    (3.0, [[3, 1, 3, 3], [4, 5, 3, 7]]),
])
def test_place_eager_and_jitted(vals, expected):
    out = jnp.place(A, M, vals, inplace=False)
    np.testing.assert_array_equal(out, expected)
    # Under jit the mask is traced: the positions are padded to a static count.
    jitted = numjax.jit(lambda a, m, v: jnp.place(a, m, v, inplace=False))(A, M, vals)
    np.testing.assert_array_equal(jitted, expected)
    assert jitted.dtype == np.float32


def test_place_with_an_empty_mask_keeps_the_array():
    np.testing.assert_array_equal(
        jnp.place(A, np.zeros_like(M), np.array([1.], np.float32), inplace=False), A)


@pytest.mark.parametrize("mask,vals,message", [
    (M, np.array([], np.float32), "Cannot place values from an empty array"),
    (M[:, :2], np.array([1.], np.float32), "place: arr and mask must be the same size"),
])
def test_place_errors(mask, vals, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        jnp.place(A, mask, vals, inplace=False)
