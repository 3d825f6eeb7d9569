"""Behaviours recorded from JAX 0.4.30: None in jnp.array, tobytes of a traced array, and the
weak type of jnp.pad's result in every mode."""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp

MODES = ["constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum", "reflect",
         "symmetric", "wrap", "empty"]


def test_none_in_array_is_nan_with_a_future_warning():
    with pytest.warns(FutureWarning, match=r"^None encountered in jnp\.array\(\); this is "
                                           r"currently treated as NaN\. In the future this "
                                           r"will result in an error\.$"):
        out = jnp.array([0.0, None])
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [0.0, np.nan])


def test_tobytes_of_a_traced_array_is_a_concretization_error():
    with pytest.raises(numjax.errors.ConcretizationTypeError) as info:
        numjax.jit(lambda x: x.tobytes())(np.arange(3))
    assert ("The tobytes() method was called on traced array with shape int32[3].."
            in str(info.value))
    assert jnp.arange(3).tobytes() == np.arange(3, dtype=np.int32).tobytes()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("width", [0, 1])
def test_pad_keeps_a_weak_type(mode, width):
    # JAX: weak for every mode and width (the fill values take the array's weak type).
    weak = jnp.pad(jnp.array(1.0)[None], width, mode=mode)
    assert weak.weak_type and weak.dtype == np.float32
    strong = jnp.pad(jnp.ones(1, np.float32), width, mode=mode)
    assert not strong.weak_type


@pytest.mark.parametrize("grid,expected", [
    (lambda: jnp.mgrid[()], []), (lambda: jnp.mgrid[:], []), (lambda: jnp.ogrid[:], []),
    (lambda: jnp.ogrid[:3], [0, 1, 2]), (lambda: jnp.mgrid[1:3], [1, 2]),
])
def test_grids_of_nothing_are_empty(grid, expected):
    # JAX: a missing stop is 0, and mgrid of no slices is an empty int32 array.
    out = grid()
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expected)


def test_ogrid_of_no_slices_is_an_empty_list():
    assert jnp.ogrid[()] == []


@pytest.mark.parametrize("axis,size,fill,values", [
    (0, 5, np.array([7, 8, 9], np.int32), [[0, 2, 5], [3, 1, 3], [7, 8, 9], [7, 8, 9],
                                           [7, 8, 9]]),
    (1, 4, np.array([7, 8, 9], np.int32), [[1, 3, 3, 7], [1, 3, 3, 8], [2, 0, 5, 9]]),
    (0, 4, np.int32(-1), [[0, 2, 5], [3, 1, 3], [-1, -1, -1], [-1, -1, -1]]),
])
def test_unique_pads_with_a_fill_slice_along_the_axis(axis, size, fill, values):
    # JAX 0.4.30's values: the fill value along an axis is one slice of the array.
    x = np.array([[3, 1, 3], [3, 1, 3], [0, 2, 5]], np.int32)
    out = jnp.unique(x, axis=axis, size=size, fill_value=fill)
    np.testing.assert_array_equal(out, values)


@pytest.mark.parametrize("expr,expected", [
    (lambda: jnp.arange(0, None, 1), []), (lambda: jnp.arange(3, None, 1), [0, 1, 2]),
    (lambda: jnp.arange(3, None, 2), [0, 2]), (lambda: jnp.mgrid[3:], [0, 1, 2]),
    (lambda: jnp.ogrid[2:], [0, 1]),
])
def test_arange_reads_a_missing_stop_as_numpy_does(expr, expected):
    # JAX 0.4.30: arange(3, None, 1) counts to 3; a grid slice's missing stop is passed on.
    out = expr()
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expected)


def test_mgrid_promotes_its_axes_by_standard_rules_under_strict():
    with numjax.numpy_dtype_promotion("strict"):
        out = jnp.mgrid[0:1:3j, 0:2]
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out[0], [[0, 0], [0.5, 0.5], [1, 1]])
    np.testing.assert_array_equal(out[1], [[0, 1], [0, 1], [0, 1]])


def test_traced_grid_bounds_name_the_slice():
    with pytest.raises(numjax.errors.ConcretizationTypeError, match="slice start of jnp.ogrid"):
        numjax.jit(lambda n: jnp.ogrid[n:3])(1)


@pytest.mark.parametrize("convert", [lambda x: jnp.astype(x, None),
                                     lambda x: jnp.asarray(x).astype(None)])
def test_astype_none_is_the_default_float(convert):
    # JAX 0.4.30: astype(int32 array, None) is float32 (was kept int32).
    out = convert(np.ones(3, np.int32))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [1, 1, 1])


def _pad_with(vector, pad_width, iaxis, kwargs):
    pad_value = kwargs.get("padder", 10)
    vector = vector.at[: pad_width[0]].set(pad_value)
    return vector.at[-pad_width[1]:].set(pad_value)


# JAX 0.4.30: jnp.pad with a function as its mode (NumPy's protocol, the function returning the
# padded 1-d slice).
PAD_FUNCTIONS = [
    (lambda: jnp.pad(np.arange(6).reshape(2, 3), 2, _pad_with), "int32",
     [[10] * 7, [10] * 7, [10, 10, 0, 1, 2, 10, 10], [10, 10, 3, 4, 5, 10, 10], [10] * 7,
      [10] * 7]),
    (lambda: jnp.pad(np.arange(24).reshape(2, 3, 4), 1, _pad_with, padder=100)[0], "int32",
     [[100] * 6] * 5),
    (lambda: numjax.jit(lambda a: jnp.pad(a, ((1, 0), (0, 2)),
                                          lambda v, w, i, kw: v * (i + 1) + w[0]))(
        jnp.ones((2, 2), jnp.float32)), "float32",
     [[2.0, 2.0, 2.0, 2.0], [4.0, 4.0, 2.0, 2.0], [4.0, 4.0, 2.0, 2.0]]),
    (lambda: jnp.pad(jnp.array([1.5, 2.5]), 1, lambda v, w, i, kw: v + 1), "float32",
     [1.0, 2.5, 3.5, 1.0]),
]


@pytest.mark.parametrize("index", range(len(PAD_FUNCTIONS)))
def test_pad_with_a_function(index):
    fn, dtype, expected = PAD_FUNCTIONS[index]
    out = fn()
    assert out.dtype == np.dtype(dtype) and not out.weak_type
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_pad_mean_of_booleans_converts_the_unrounded_mean() -> None:
    # JAX 0.4.30 rounds the statistics of integer arrays only: a boolean's mean of 1/3 is
    # True (fuzzer seed 22101; numjax rounded it to False).
    a0 = np.array([[True, True], [False, False], [True, False]])
    out = jnp.pad(a0, 1, mode="mean")
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out.astype(int), [[1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0],
                                                    [1, 1, 0, 1], [1, 1, 1, 1]])
    np.testing.assert_array_equal(
        jnp.pad(np.array([[True, False, False]]), 1, mode="mean", stat_length=2).astype(int),
        [[1, 1, 0, 0, 0]] * 3)
    np.testing.assert_array_equal(jnp.pad(np.array([1, 2, 2], np.int32), 1, mode="mean"),
                                  [2, 1, 2, 2, 2])
