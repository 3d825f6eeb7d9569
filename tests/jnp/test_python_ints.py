"""Python ints next to narrow integer arrays, as JAX 0.4.30 takes them: an int that fits the
default integer type is converted to the array's dtype by wrapping (uint16 array + -1 adds
65535); one that does not fit fails as jit's argument parsing does, naming the parameter; an
explicit jnp.array(300, jnp.int8) is NumPy's conversion (NumPy 1 wraps with a warning, NumPy 2
raises). Shape errors of jnp's binary functions are lax's when no rank promotion is needed."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.config import enable_x64

I8 = np.array([1, 2], np.int8)

# (expression, JAX 0.4.30's value, its dtype)
WRAPPED = [
    (lambda: jnp.array([1, 2], jnp.uint16) + -1, [0, 1], "uint16"),
    (lambda: jnp.asarray(I8) + 1000, [-23, -22], "int8"),
    (lambda: jnp.asarray(I8) * 300, [44, 88], "int8"),
    (lambda: jnp.array([1, 2], jnp.uint8) - 256, [1, 2], "uint8"),
    (lambda: jnp.array([1, 2], jnp.uint32) + -1, [0, 1], "uint32"),
    (lambda: jnp.asarray(I8) == 1000, [False, False], "bool"),
    (lambda: jnp.where(jnp.array([True, False]), jnp.asarray(I8), 1000), [1, -24], "int8"),
    (lambda: jnp.maximum(jnp.asarray(I8), 1000), [1, 2], "int8"),
    (lambda: jnp.clip(jnp.asarray(I8), -1000, 1000), [-24, -24], "int8"),
    (lambda: jnp.full((2,), 300, jnp.int8), [44, 44], "int8"),
    (lambda: jnp.full_like(jnp.asarray(I8), 1000), [-24, -24], "int8"),
    (lambda: lax.full((2,), 2**40, jnp.int8), [0, 0], "int8"),
    (lambda: lax.convert_element_type(1000, jnp.int8), -24, "int8"),
    (lambda: jnp.asarray(I8).at[0].set(1000), [-24, 2], "int8"),
]


@pytest.mark.parametrize("index", range(len(WRAPPED)))
def test_in_range_python_ints_wrap_to_narrow_dtypes(index: Any) -> None:
    fn, expected, dtype = WRAPPED[index]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # JAX does not warn for these
        out = fn()
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, expected)


def test_wrapping_under_jit() -> None:
    out = numjax.jit(lambda x: x + 1000)(I8)
    np.testing.assert_array_equal(out, [-23, -22])
    out = numjax.jit(lambda x: x + -1)(np.array([1, 2], np.uint16))
    np.testing.assert_array_equal(out, [0, 1])


@pytest.mark.parametrize("fn,path", [
    (lambda: jnp.multiply(2**100, 3.0), "x1"),
    (lambda: jnp.float32(2) * 2**100, "x2"),
    (lambda: jnp.ones(2) * 2**40, "x2"),
    (lambda: 2**40 + jnp.asarray(I8), "x1"),
    (lambda: jnp.array([1, 2], jnp.uint32) + 2**31, "x2"),
    (lambda: jnp.asarray(I8) == 2**40, "x2"),
    (lambda: jnp.sin(2**40), "x"),
    (lambda: jnp.where(jnp.array([True, False]), jnp.asarray(I8), 2**40), "y"),
    (lambda: jnp.clip(jnp.asarray(I8), 2**40), "min"),
    (lambda: numjax.jit(lambda x: x + 2**40)(jnp.ones(2)), "x2"),
])
def test_python_ints_beyond_the_default_integer_type_fail_as_in_jit(fn: Any, path: Any) -> None:
    with pytest.raises(OverflowError) as info:
        fn()
    assert str(info.value) == ("An overflow was encountered while parsing an argument to a "
                               f"jitted computation, whose argument path is {path}.")


def test_python_ints_fit_int64_under_x64() -> None:
    with enable_x64(True):
        out = jnp.ones(2) * 2**40
        assert out.dtype == np.float64 and out[0] == 2.0**40
        with pytest.raises(OverflowError, match="argument path is x2"):
            jnp.ones(2) * 2**64


@pytest.mark.parametrize("fn,message", [
    (lambda: jnp.array(2**40), "Python int 1099511627776 too large to convert to int32"),
    (lambda: jnp.asarray(2**100), "Python int 1267650600228229401496703205376 too large to "
                                  "convert to int32"),
    (lambda: jnp.zeros(2).at[0].set(2**40),
     "Python int 1099511627776 too large to convert to int32"),
])
def test_python_ints_read_as_arrays_keep_jnp_arrays_error(fn: Any, message: str) -> None:
    with pytest.raises(OverflowError) as info:
        fn()
    assert str(info.value) == message


@pytest.mark.parametrize("fn,wrapped", [
    (lambda: jnp.array(300, jnp.int8), 44),
    (lambda: jnp.asarray(-1, jnp.uint8), 255),
    (lambda: jnp.int8(1000), -24),
    (lambda: jnp.uint8(-1), 255),
])
def test_explicit_dtype_conversion_is_numpys(fn: Any, wrapped: Any) -> None:
    # JAX hands these to NumPy: with NumPy 1 (JAX 0.4.30's recorded run) they wrap with NumPy's
    # DeprecationWarning, with NumPy 2 they are NumPy's OverflowError.
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        with pytest.raises(OverflowError, match="out of bounds"):
            fn()
    else:
        with pytest.warns(DeprecationWarning):
            assert int(fn()) == wrapped


@pytest.mark.parametrize("fn", [
    lambda: jnp.ones(3) + jnp.ones(4),
    lambda: numjax.jit(lambda x: x + jnp.ones(4))(jnp.ones(3)),
    lambda: numjax.jit(jnp.add)(jnp.ones(3), jnp.ones(4)),
    lambda: numjax.vmap(lambda x: x + jnp.ones(4))(jnp.ones((2, 3))),
    lambda: numjax.grad(lambda x: (x + jnp.ones(4)).sum())(jnp.ones(3)),
    lambda: jnp.ones(3, jnp.int32) + jnp.ones(4),
])
def test_incompatible_shapes_of_equal_rank_are_laxs_type_error(fn: Any) -> None:
    with pytest.raises(TypeError) as info:
        fn()
    assert str(info.value) == "add got incompatible shapes for broadcasting: (3,), (4,)."
    with pytest.raises(ValueError, match=r"^Incompatible shapes for broadcasting: shapes="
                                         r"\[\(2, 3\), \(4,\)\]$"):
        jnp.ones((2, 3)) + jnp.ones(4)  # rank promotion first: NumPy's broadcasting error
