"""jnp.interp as JAX 0.4.30 computes it (values recorded from JAX): 'extrapolate' ends,
periodic interpolation, dtypes (x with xp, fp on its own), errors, and finite gradients where
sample points nearly coincide."""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp

XP = np.array([1.0, 2.0, 3.0], np.float32)
FP = np.array([10.0, 20.0, 30.0], np.float32)
X = np.array([0.0, 0.5, 1.0, 1.25, 2.0, 2.9, 3.0, 3.5, 4.0], np.float32)

CASES = {
    "default_ends": ({}, [10, 10, 10, 12.5, 20, 29, 30, 30, 30]),
    "given_ends": ({"left": -1.0, "right": 99}, [-1, -1, 10, 12.5, 20, 29, 30, 99, 99]),
    "extrapolate_left": ({"left": "extrapolate"}, [0, 5, 10, 12.5, 20, 29, 30, 30, 30]),
    "extrapolate_right": ({"right": "extrapolate"}, [10, 10, 10, 12.5, 20, 29, 30, 35, 40]),
    "extrapolate_both": ({"left": "extrapolate", "right": "extrapolate"},
                         [0, 5, 10, 12.5, 20, 29, 30, 35, 40]),
    "period": ({"period": 2.5}, [25, 30, 10, 12.5, 20, 29, 30, 10, 15]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_interp_values(name):
    kwargs, expected = CASES[name]
    out = jnp.interp(X, XP, FP, **kwargs)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    np.testing.assert_allclose(numjax.jit(lambda x: jnp.interp(x, XP, FP, **kwargs))(X),
                               expected, rtol=1e-6)


def test_interp_dtypes():
    ints = jnp.interp(np.array([1, 2, 5]), np.array([0, 3, 6]), np.array([0, 9, 3]))
    assert ints.dtype == np.float32
    np.testing.assert_allclose(ints, [3, 6, 5])
    # x and xp in float16, fp float32: float32 (JAX: 29.00390625 at x = 2.9 in float16).
    half = jnp.interp(X.astype(np.float16), XP.astype(np.float16), FP)
    assert half.dtype == np.float32
    np.testing.assert_allclose(half[5], 29.00390625, rtol=1e-6)
    assert jnp.interp(X, XP, FP.astype(np.float16)).dtype == np.float32


@pytest.mark.parametrize("args,kwargs,message", [
    ((0.0, np.arange(2.0), np.arange(3.0)), {},
     "xp and fp must be one-dimensional arrays of equal size"),
    ((0.0, np.arange(3.0), np.arange(3.0)), {"left": "interpolate"},
     "the only valid string value of `left` is 'extrapolate', but got: 'interpolate'"),
    ((0.0, np.arange(3.0), np.arange(3.0)), {"right": "interpolate"},
     "the only valid string value of `right` is 'extrapolate', but got: 'interpolate'"),
    ((1j, 1j * np.arange(3.0), np.arange(3.0)), {},
     "jnp.interp: complex x values not supported."),
])
def test_interp_errors(args, kwargs, message):
    with pytest.raises(ValueError) as info:
        jnp.interp(*args, **kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize("kwargs", [{}, {"period": 1.0}, {"left": 0.0, "right": 0.0},
                                    {"left": "extrapolate", "right": "extrapolate"}])
def test_interp_gradient_is_finite_for_nearly_equal_points(kwargs):
    # Segments narrower than spacing(eps) are steps, so no division by ~0 (JAX: all finite).
    z = np.exp(np.linspace(-90, -20, 50)).astype(np.float32)
    g = numjax.grad(lambda z: jnp.sum(jnp.interp(z, z, jnp.ones_like(z), **kwargs)))(z)
    assert np.all(np.isfinite(g))
