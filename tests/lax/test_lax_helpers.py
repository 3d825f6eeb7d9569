"""Small lax functions built on primitives: reciprocal, broadcast_shapes, collapse,
batch_matmul, zeros_like_array, dtype (values, jaxprs and errors recorded from JAX 0.4.30)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax


def test_small_lax_helpers_read_as_jax_s() -> None:
    # values and jaxprs recorded from JAX 0.4.30
    x = jnp.arange(1.0, 7.0).reshape(2, 3)
    np.testing.assert_allclose(lax.reciprocal(x), 1 / np.arange(1.0, 7.0).reshape(2, 3),
                               rtol=1e-7)
    assert str(jax.make_jaxpr(lax.reciprocal)(1.0)) == (
        "{ lambda ; a:f32[]. let b:f32[] = integer_pow[y=-1] a in (b,) }")
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
        lax.reciprocal(jnp.arange(1, 3))
    assert lax.broadcast_shapes((2, 1), (1, 3)) == lax.broadcast_shapes((3,), (2, 1)) == (2, 3)
    with pytest.raises(ValueError, match=r"^Incompatible shapes for broadcasting: "
                                         r"shapes=\[\(2,\), \(3,\)\]$"):
        lax.broadcast_shapes((2,), (3,))
    ones = jnp.ones((2, 3, 4))
    assert [lax.collapse(ones, *a).shape for a in [(0, 2), (1,), (-2,)]] == [
        (6, 4), (2, 12), (2, 12)]
    assert lax.batch_matmul(ones, jnp.ones((2, 4, 5))).shape == (2, 3, 5)
    assert "dot_general[dimension_numbers=(([2], [1]), ([0], [0]))]" in str(
        jax.make_jaxpr(lax.batch_matmul)(ones, jnp.ones((2, 4, 5))))
    zero = lax.zeros_like_array(2.0)
    assert zero.weak_type and zero.dtype == np.float32 and float(zero) == 0.0
    assert (lax.dtype(1.0), lax.dtype(1), lax.dtype(True)) == (np.float32, np.int32, np.bool_)


def test_select_n_takes_any_integer_which() -> None:
    # JAX 0.4.30: `which` may be boolean or any integer type
    x = np.array([1.0, 2.0, 3.0], np.float32)
    out = lax.select_n(np.array([1, 0, 1], np.uint8), x, x * 2)
    np.testing.assert_array_equal(out, [2.0, 2.0, 6.0])
    with pytest.raises(TypeError, match=r"^select `which` must be boolean or integer type, got "
                                        r"float32\.$"):
        lax.select(np.array([1.0, 0.0, 2.0], np.float32), x, x * 2)


@pytest.mark.parametrize("fn,error,message", [
    # JAX 0.4.30's errors: axes are checked against the rank, not wrapped
    (lambda: lax.squeeze(jnp.ones((1, 2, 1)), (-4,)), ValueError,
     "axis -4 is out of bounds for array of dimension 3"),
    (lambda: lax.squeeze(jnp.ones((1, 2, 1)), (3,)), ValueError,
     "axis 3 is out of bounds for array of dimension 3"),
    (lambda: lax.squeeze(jnp.ones((1, 2, 1)), (0, -3)), ValueError,
     "dimensions are not unique: (0, 0)"),
    (lambda: lax.squeeze(jnp.ones(()), (0,)), ValueError,
     "axis 0 is out of bounds for array of dimension 0"),
    (lambda: lax.expand_dims(jnp.ones(2), (0, 0)), ValueError,
     "repeated axis in lax.expand_dims: (0, 0)"),
    (lambda: lax.expand_dims(jnp.ones(2), (0, -3)), ValueError,
     "repeated axis in lax.expand_dims: [0, 0]"),
    (lambda: lax.expand_dims(jnp.ones(2), (2,)), ValueError,
     "axis 2 is out of bounds for array of dimension 2"),
])
def test_squeeze_and_expand_dims_check_their_axes(fn: Any, error: Any, message: str) -> None:
    with pytest.raises(error) as info:
        fn()
    assert str(info.value) == message
    assert lax.squeeze(jnp.ones((1, 2, 1)), (-1,)).shape == (1, 2)
    assert lax.expand_dims(jnp.ones(2), (-1,)).shape == (2, 1)


_B = np.array([True])
_F = np.array([1.5], np.float32)


@pytest.mark.parametrize("fn,message", [
    # JAX 0.4.30's texts (accepted types in its order; n-ary operations name the position)
    (lambda: lax.add(_B, _B), "add does not accept dtype bool at position 0. Accepted dtypes at "
     "position 0 are subtypes of integer, complexfloating, floating."),
    (lambda: lax.mul(_B, _B), "mul does not accept dtype bool at position 0. Accepted dtypes at "
     "position 0 are subtypes of integer, complexfloating, floating."),
    (lambda: lax.neg(_B), "neg does not accept dtype bool. Accepted dtypes are subtypes of "
     "integer, complexfloating, floating."),
    (lambda: lax.integer_pow(_B, 2), "integer_pow does not accept dtype bool. Accepted dtypes "
     "are subtypes of integer, complexfloating, floating."),
    (lambda: lax.pow(_B, _B), "pow does not accept dtype bool at position 0. Accepted dtypes at "
     "position 0 are subtypes of floating, complexfloating."),
    (lambda: lax.abs(_B), "abs does not accept dtype bool. Accepted dtypes are subtypes of "
     "floating, complexfloating, signedinteger."),
    (lambda: lax.bitwise_and(_F, _F), "and does not accept dtype float32 at position 0. "
     "Accepted dtypes at position 0 are subtypes of integer, bool_."),
    (lambda: lax.lt(_F.astype(np.complex64), _F.astype(np.complex64)), "lt does not accept "
     "dtype complex64 at position 0. Accepted dtypes at position 0 are subtypes of integer, "
     "bool_, floating."),
])
def test_dtype_errors_as_jax_words_them(fn: Any, message: str) -> None:
    with pytest.raises(TypeError) as info:
        fn()
    assert str(info.value) == message


@pytest.mark.parametrize("src,shape", [((), (3,)), ((1,), (4, 5)), ((2, 1), (2, 7)),
                                       ((1, 3), (5000, 3)), ((64,), (100, 64))])
def test_broadcasted_copies_small_results_and_views_large_ones(src: Any, shape: Any) -> None:
    from numjax._src.lax import structural

    x = np.arange(np.prod(src), dtype=np.float32).reshape(src)
    out = structural.broadcasted(x, shape)
    np.testing.assert_array_equal(out, np.broadcast_to(x, shape))
    small = np.prod(shape) <= structural.SMALL_BROADCAST
    assert out.flags.writeable == small and np.shares_memory(out, x) == (not small)
