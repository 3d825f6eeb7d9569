"""jnp.unravel_index as JAX 0.4.30 computes it (outputs recorded from JAX): floor division
from the last dimension, indices past either end clipped, sizes that may be traced."""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp

# (indices, shape, JAX's coordinates, their dtype)
CASES = [
    (jnp.array([5, 1, -1, -6, -7, 6, 100, -100]), (3, 2),
     [[2, 0, 2, 0, 0, 2, 2, 0], [1, 1, 1, 0, 0, 1, 1, 0]], np.int32),
    (jnp.array([5, 1, -100], np.int8), (3, 2), [[2, 0, 0], [1, 1, 0]], np.int8),
    # JAX 0.4.30 compares uint8 indices with -1 wrapped to 255 and zeroes every coordinate in
    # range ([[0, 0, 2], [0, 0, 1]]); numjax does not (docs/differences.md).
    (jnp.array([5, 1, 200], np.uint8), (3, 2), [[2, 0, 2], [1, 1, 1]], np.uint8),
    (jnp.array([5, 1]), 4, [[3, 1]], np.int32),
    (jnp.array([5]), np.array([3, 2]), [[2], [1]], np.int32),
    (jnp.array([0, 1]), (0, 2), [[0, 0], [0, 1]], np.int32),
    (jnp.array([1.5]), (2, 3), [[0.0], [1.5]], np.float32),
]


@pytest.mark.parametrize("indices,shape,expected,dtype", CASES)
def test_unravel_index_as_jax(indices, shape, expected, dtype):
    out = jnp.unravel_index(indices, shape)
    assert len(out) == len(expected)
    for got, want in zip(out, expected, strict=True):
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)


def test_unravel_index_with_traced_sizes():
    # Under jit the shape's entries are traced (weak int32): the coordinates keep int16.
    out = numjax.jit(jnp.unravel_index)(jnp.array([5, 1, -1], np.int16), (3, 2))
    assert [o.dtype for o in out] == [np.int16, np.int16]
    np.testing.assert_array_equal(out[0], [2, 0, 2])
    np.testing.assert_array_equal(out[1], [1, 1, 1])


def test_unravel_index_of_a_python_int_is_weak():
    out = jnp.unravel_index(7, (3, 4))
    assert [int(o) for o in out] == [1, 3]
    assert all(o.weak_type for o in out)


def test_unravel_index_rejects_a_nested_shape():
    with pytest.raises(ValueError, match=r"^unravel_index: shape should be a scalar or 1D "
                                         r"sequence\.$"):
        jnp.unravel_index(jnp.array([0]), ((2, 3),))
