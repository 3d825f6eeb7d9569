"""Values of jnp creation, padding, selection and difference functions recorded from JAX
0.4.30 where they differ from a naive NumPy reading: linspace's interpolation (as JAX compiles
it), float16 arange, integer linear ramps, take_along_axis's clipping of negative indices,
diff of order 0."""

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp

LINSPACES = [
    (lambda: jnp.linspace(0.0, 1.0, 7), [0.0, 0.1666666716337204, 0.3333333432674408, 0.5,
                                         0.6666666865348816, 0.8333333730697632, 1.0],
     "float32"),
    (lambda: jnp.linspace(-3.0, 5.0, 3, endpoint=False),
     [-3.0, -0.3333331346511841, 2.3333334922790527], "float32"),
    (lambda: jnp.linspace(jnp.array([1.0, 2.0]), jnp.array([5.0, 7.0]), 4),
     [[1.0, 2.0], [2.3333334922790527, 3.6666667461395264],
      [3.6666667461395264, 5.333333492279053], [5.0, 7.0]], "float32"),
    (lambda: jnp.linspace(jnp.array([1.0, 2.0]), jnp.array([5.0, 7.0]), 4, axis=1),
     [[1.0, 2.3333334922790527, 3.6666667461395264, 5.0],
      [2.0, 3.6666667461395264, 5.333333492279053, 7.0]], "float32"),
    (lambda: jnp.linspace(0.0, 1.0, 7, dtype=jnp.float16),
     [0.0, 0.1666259765625, 0.333251953125, 0.5, 0.66650390625, 0.8330078125, 1.0],
     "float16"),
    (lambda: jnp.linspace(-5, 7, 4, endpoint=False, dtype=jnp.int32), [-5, -2, 1, 4], "int32"),
    (lambda: jnp.linspace(1.0, 5.0, 1, endpoint=False, retstep=True)[1], 4.0, "float32"),
    (lambda: jnp.linspace(0.0, 1.0, 7, retstep=True)[1], 0.1666666716337204, "float32"),
    (lambda: jnp.arange(0.0, 4.0, 0.3, dtype=jnp.float16)[8:12],
     [2.400390625, 2.701171875, 3.0, 3.30078125], "float16"),
]


@pytest.mark.parametrize("index", range(len(LINSPACES)))
def test_linspace_and_arange_values(index):
    fn, expected, dtype = LINSPACES[index]
    out = fn()
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(out, np.float64), expected)


def test_linspace_is_differentiable_and_batches():
    g = numjax.grad(lambda a: jnp.linspace(a, 2.0, 5).sum())(0.5)
    assert float(g) == 2.5  # sum of (1 - t) over t = 0, 1/4, ..., 1
    out = numjax.vmap(lambda a: jnp.linspace(a, 2.0, 3))(jnp.array([0.0, 1.0]))
    np.testing.assert_array_equal(out, [[0.0, 1.0, 2.0], [1.0, 1.5, 2.0]])


@pytest.mark.parametrize("dtype,end,expected", [
    # jnp.pad(x, 2, "linear_ramp", end_values=-5)[:, 1], JAX 0.4.30 (integer ramps floored)
    ("int32", -5, [-5, -5, -4, 1, -2, -5]),
    ("float32", -5, [-5.0, -4.5, -4.0, 1.0, -2.0, -5.0]),
])
def test_pad_linear_ramp(dtype, end, expected):
    a = np.array([[-3, 5], [7, -2]], dtype)
    for pad in (jnp.pad, numjax.jit(jnp.pad, static_argnums=(1, 2), static_argnames="end_values")):
        out = pad(a, 2, "linear_ramp", end_values=end)
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(out[:, 1], expected)
    np.testing.assert_array_equal(jnp.pad(a, 2, "linear_ramp", end_values=end),
                                  np.pad(a, 2, "linear_ramp", end_values=end))


INDICES = np.array([-11, -10, -9, -5, -1, 0, 1, 5, 9, 10, 11])


@pytest.mark.parametrize("jit", [False, True])
def test_take_along_axis_clip_counts_negative_indices_from_the_end(jit):
    take = numjax.jit(jnp.take_along_axis, static_argnames=("axis", "mode")) if jit else \
        jnp.take_along_axis
    x = jnp.arange(10, dtype=jnp.float32)
    out = take(x, jnp.asarray(INDICES), axis=0, mode="clip")
    np.testing.assert_array_equal(out, [0, 0, 1, 5, 9, 0, 1, 5, 9, 9, 9])  # JAX 0.4.30
    out = take(jnp.arange(6.0).reshape(2, 3), jnp.array([[-4, 5], [-1, 0]]), axis=1, mode="clip")
    np.testing.assert_array_equal(out, [[0.0, 2.0], [5.0, 3.0]])
    # jnp.take clips without that normalization, as in JAX
    np.testing.assert_array_equal(jnp.take(x, jnp.asarray(INDICES), mode="clip"),
                                  [0, 0, 0, 0, 0, 0, 1, 5, 9, 9, 9])
    with pytest.raises(ValueError, match=r'^Unknown gather mode "wrap"(\n|$)'):
        take(x, jnp.asarray(INDICES), axis=0, mode="wrap")


def test_diff_of_order_zero_is_the_input():
    x = jnp.arange(4.0)
    np.testing.assert_array_equal(jnp.diff(x, n=0, prepend=1.0, append=9.0), [0, 1, 2, 3])
    assert jnp.diff(jnp.float32(3.0), n=0).shape == ()  # even 0-d, as NumPy
    assert jnp.diff(jnp.ones(3), n=0, axis=5).shape == (3,)
