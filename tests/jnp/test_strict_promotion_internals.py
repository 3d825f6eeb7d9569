"""jnp functions that promote nothing internally, so they run under
jax_numpy_dtype_promotion='strict' and jax_numpy_rank_promotion='raise' as in JAX 0.4.30
(values and dtypes recorded from JAX)."""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp

SQUARES = [[1, 1, 1], [4, 2, 1], [9, 3, 1]]  # vander([1, 2, 3], N=3)


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16, jnp.complex64, jnp.int32])
def test_vander_powers_in_the_input_dtype(dtype):
    # JAX's exponents are an iota of x's dtype: nothing to promote.
    with numjax.numpy_dtype_promotion("strict"), numjax.numpy_rank_promotion("raise"):
        out = jnp.vander(jnp.array([1, 2, 3], dtype), N=3)
    assert out.dtype == jnp.dtype(dtype)
    np.testing.assert_allclose(np.asarray(out).astype(np.complex64), SQUARES, rtol=1e-3)


def test_vander_float32_values_against_numpy():
    x = np.array([1.5, -2.25, 3.1, 0.0], np.float32)
    for increasing in (False, True):
        out = jnp.vander(x, N=4, increasing=increasing)
        np.testing.assert_allclose(out, np.vander(x, N=4, increasing=increasing), rtol=1e-6)


def test_linear_ramp_pad_with_numpy_int64_end_values():
    with numjax.numpy_dtype_promotion("strict"):
        out = jnp.pad(jnp.arange(3, dtype=jnp.int32), 2, mode="linear_ramp",
                      end_values=((np.int64(5), np.int64(-3)),))
    assert out.dtype == jnp.int32
    np.testing.assert_array_equal(out, [5, 2, 0, 1, 2, -1, -3])


@pytest.mark.parametrize("args,dtype,expected", [
    ((np.int64(2), jnp.int32(9), 4), jnp.int32, [2, 3, 5, 7]),
    ((jnp.float16(0), 1.0, 3), jnp.float32, [0.0, 0.5, 1.0]),
])
def test_linspace_computes_in_the_given_dtype(args, dtype, expected):
    # A given dtype is the computation's: start and stop are not promoted with it.
    with numjax.numpy_dtype_promotion("strict"):
        out = jnp.linspace(*args, endpoint=dtype is jnp.float32, dtype=dtype)
    assert out.dtype == jnp.dtype(dtype)
    np.testing.assert_array_equal(out, expected)


def test_cov_and_corrcoef_under_rank_promotion_raise():
    # JAX 0.4.30's values; the weights are not broadcast by rank inside cov.
    x = np.array([[1., 2., 4., 7., 3.], [0.5, -1., 2., 2., 9.]], np.float32)
    with numjax.numpy_rank_promotion("raise"):
        np.testing.assert_allclose(jnp.corrcoef(x), [[1.0, 0.14137612], [0.14137612, 1.0]],
                                   rtol=1e-6)
        np.testing.assert_allclose(jnp.cov(x), [[5.3, 1.25], [1.25, 14.75]], rtol=1e-6)
        np.testing.assert_allclose(jnp.cov(x, fweights=np.array([1, 2, 1, 1, 3])),
                                   [[3.267857, 1.0446428], [1.0446428, 20.638393]], rtol=1e-6)
        np.testing.assert_allclose(jnp.corrcoef(x[0], x[1]),
                                   [[1.0, 0.14137612], [0.14137612, 1.0]], rtol=1e-6)
