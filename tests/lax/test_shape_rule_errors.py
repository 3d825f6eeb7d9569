"""lax's checks of shapes, dimension numbers and index dtypes: the exception type and text JAX
0.4.30 gives for each bad call (recorded from JAX), in JAX's order of checks."""

from __future__ import annotations

import re

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax

X2 = np.ones(2, np.float32)
X22 = np.ones((2, 2), np.float32)
X34 = np.ones((3, 4), np.float32)
IMG = np.ones((1, 1, 10, 10), np.float32)
KER = np.ones((1, 1, 3, 3), np.float32)
PAD_TEXT = ("padding argument to conv_general_dilated should be a string or a sequence of "
            "(low, high) pairs, got ")
SHAPE_TEXT = "Shapes must be 1D sequences of concrete values of integer type, got "
DS_TEXT = "index arguments to dynamic_slice must be integers of the same type, got: "
DUS_TEXT = "index arguments to dynamic_update_slice must be integers of the same type, got "

# name: (call, JAX's exception type, JAX's message)
BAD_CALLS = {
    "argmin_float_index_dtype": (
        lambda: lax.argmin(np.ones((2, 2)), axis=0, index_dtype=np.float32), TypeError,
        "index_dtype must be an integer type, but got float32"),
    "argmax_bool_index_dtype": (
        lambda: lax.argmax(np.ones((2, 2)), axis=0, index_dtype=np.bool_), TypeError,
        "index_dtype must be an integer type, but got bool"),
    "argmin_empty_axis": (
        lambda: lax.argmin(np.ones((0, 2)), axis=0, index_dtype=np.int32), ValueError,
        "argmin and argmax require non-empty reduced dimension. operand.shape=(0, 2) axis=0"),
    "argmax_empty_axis_jit": (
        lambda: numjax.jit(lambda x: lax.argmax(x, 0, np.int32))(np.ones((0, 2))), ValueError,
        "argmin and argmax require non-empty reduced dimension. operand.shape=(0, 2) axis=0"),
    # lax takes the axis as it is: -1 is not counted from the end.
    "argmin_negative_axis": (
        lambda: lax.argmin(np.ones((2, 3)), axis=-1, index_dtype=np.int32), ValueError,
        "Invalid axis -1 for operand shape (2, 3)"),
    "argmax_axis_too_large": (
        lambda: lax.argmax(np.ones((2, 3)), axis=2, index_dtype=np.int32), ValueError,
        "Invalid axis 2 for operand shape (2, 3)"),
    # A NumPy scalar index keeps its dtype (int16 here): no joining with the other's.
    "dynamic_slice_mixed_int_types": (
        lambda: lax.dynamic_slice(X34, (np.int32(1), np.int16(2)), (2, 2)), TypeError,
        DS_TEXT + "int32, int16"),
    "dynamic_slice_float_index": (
        lambda: lax.dynamic_slice(X34, (np.int32(1), np.float32(2)), (2, 2)), TypeError,
        DS_TEXT + "int32, float32"),
    "dynamic_slice_int16_and_python_int": (
        lambda: lax.dynamic_slice(X34, (np.int16(1), 2), (2, 2)), TypeError,
        DS_TEXT + "int16, int32"),
    "dynamic_slice_uint8_and_python_int": (
        lambda: lax.dynamic_slice(X34, (np.uint8(1), 2), (2, 2)), TypeError,
        DS_TEXT + "uint8, int32"),
    "dynamic_slice_int8_array_and_python_int": (
        lambda: lax.dynamic_slice(X34, (jnp.int8(1), -1), (2, 2)), TypeError,
        DS_TEXT + "int8, int32"),
    "dynamic_update_slice_mixed_int_types": (
        lambda: lax.dynamic_update_slice(X34, np.zeros((2, 2), np.float32),
                                         (np.int32(1), np.int16(2))), TypeError,
        DUS_TEXT + "int32, int16"),
    "dynamic_update_slice_float_index": (
        lambda: lax.dynamic_update_slice(X34, np.zeros((2, 2), np.float32), (np.int32(1), 2.0)),
        TypeError, DUS_TEXT + "int32, float32"),
    "broadcast_in_dim_lower_rank_target": (
        lambda: lax.broadcast_in_dim(X22, shape=[2], broadcast_dimensions=[0, 1]), TypeError,
        "broadcast_in_dim target broadcast shape must have equal or higher rank to the operand "
        "shape; got operand ndim 2 and target broadcast ndim 1."),
    "broadcast_in_dim_dims_out_of_range": (
        lambda: lax.broadcast_in_dim(X2, shape=[2, 3], broadcast_dimensions=[2]), TypeError,
        "broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, got (2,) "
        "for operand ndim 1 and shape (2, 3)."),
    "broadcast_in_dim_float_shape": (
        lambda: lax.broadcast_in_dim(1.0, (2.0, 3), ()), TypeError,
        "broadcast_in_dim shape must have every element be an integer type, got "
        "(<class 'float'>, <class 'int'>)."),
    "broadcast_float_sizes": (
        lambda: lax.broadcast(1.0, (2.0,)), TypeError,
        "broadcast_in_dim shape must have every element be an integer type, got "
        "(<class 'float'>,)."),
    "reshape_array_entry": (
        lambda: lax.reshape(np.ones(3), (np.array([3, 1]),)), TypeError,
        SHAPE_TEXT + "(array([3, 1]),)."),
    "reshape_float_entries": (
        lambda: lax.reshape(np.ones(3), (1.5, 2.0)), TypeError, SHAPE_TEXT + "(1.5, 2.0)."),
    "reshape_none_entry": (
        lambda: lax.reshape(np.ones(3), (None,)), TypeError, SHAPE_TEXT + "(None,)."),
    "reshape_negative_size": (
        lambda: lax.reshape(np.ones(6), (-1, 2)), TypeError,
        "reshape new_sizes must all be positive, got (-1, 2)."),
    "full_float_shape": (
        lambda: lax.full((2.0, 3), 1.0), TypeError, SHAPE_TEXT + "(2.0, 3)."),
    "broadcasted_iota_float_shape": (
        lambda: lax.broadcasted_iota(np.int32, (2.0, 3), 0), TypeError, SHAPE_TEXT + "(2.0, 3)."),
    "reduce_window_init_not_scalar": (
        lambda: lax.reduce_window(np.ones((4, 4), np.int32), np.zeros((1,), np.int32), lax.max,
                                  (2, 2), (2, 2), "VALID", (1, 1), (1, 1)), TypeError,
        "reduce_window expected init_values to be scalars but init_values have shapes [(1,)]."),
    "reduce_window_output_tree": (
        lambda: lax.reduce_window(np.ones((1,)), 0., lambda x, _: [x], padding="VALID",
                                  window_dimensions=(1,), window_strides=(1,)), ValueError,
        "reduce_window output must have the same tree structure as the operands PyTreeDef(*) "
        "vs. PyTreeDef([*])"),
    "conv_strides_arity": (
        lambda: lax.conv(jnp.zeros((1, 1, 3, 3)), np.zeros((1, 1, 1, 1)), [1], "SAME"),
        ValueError, "conv_general_dilated window and window_strides must have the same number "
                    "of dimensions, but got 2 and 1"),
    "conv_strides_arity_explicit_pads": (
        lambda: lax.conv_general_dilated(IMG, KER, (1,), ((0, 0), (0, 0))), ValueError,
        "conv_general_dilated window and window_strides must have the same number of "
        "dimensions, but got 2 and 1"),
    "conv_ranks_with_dimension_numbers": (
        lambda: lax.conv_general_dilated(
            np.ones((1, 1, 1)), np.ones((1, 1, 1, 1)), (1,), ((0, 0),), (1,), (1,),
            lax.ConvDimensionNumbers((0, 1, 2), (0, 1, 2), (0, 1, 2)), 1, 1, None),
        ValueError, "conv_general_dilated lhs and rhs must have the same number of dimensions, "
                    "but got (1, 1, 1) and (1, 1, 1, 1)."),
    "conv_ranks_default_dimension_numbers": (
        lambda: lax.conv_general_dilated(np.ones((1, 1, 1)), np.ones((1, 1, 1, 1)), (1,),
                                         ((0, 0),)), TypeError,
        "convolution requires lhs and rhs ndim to be equal, got 3 and 4."),
    "conv_padding_pair_not_pairs": (
        lambda: lax.conv_general_dilated(IMG, KER, (1, 1), (3, 3)), ValueError,
        PAD_TEXT + "(3, 3)"),
    "conv_padding_int": (
        lambda: lax.conv_general_dilated(IMG, KER, (1, 1), 3), ValueError, PAD_TEXT + "3"),
    "conv_patches_padding_pair": (
        lambda: lax.conv_general_dilated_patches(jnp.ones((1, 10, 10, 5), jnp.bfloat16), (5, 5),
                                                 window_strides=(1, 1), padding=(3, 3)),
        ValueError, PAD_TEXT + "(3, 3)"),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_lax_calls_raise_jax_errors(name):
    call, error, message = BAD_CALLS[name]
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error
    assert str(info.value) == message


@pytest.mark.parametrize("starts,expected", [
    ((np.int16(1), np.int16(2)), [6, 7, 10, 11]),
    ((np.int16(-1), np.int16(2)), [10, 11]),  # counted from the end, then clamped
    ((1, np.int64(2)), [6, 7, 10, 11]),  # both int32 once canonical
])
def test_dynamic_slice_static_indices_of_one_type(starts, expected):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = lax.dynamic_slice(x, starts, (2 if len(expected) == 4 else 1, 2))
    np.testing.assert_array_equal(np.ravel(out), expected)


def test_dynamic_index_with_an_int16_index():
    # The other dimensions start at a zero of the index's dtype, as in JAX: no type clash.
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(lax.dynamic_index_in_dim(x, np.int16(1)), x[1:2])
    np.testing.assert_array_equal(lax.dynamic_slice_in_dim(x, np.int16(1), 2, axis=1), x[:, 1:3])
    out = lax.dynamic_update_slice_in_dim(x, np.zeros((1, 4), np.float32), np.uint8(2), 0)
    np.testing.assert_array_equal(out[2], np.zeros(4))


def test_traced_reshape_size_names_the_argument():
    with pytest.raises(TypeError) as info:
        numjax.jit(lambda n: lax.reshape(jnp.ones(3), (n, 1)))(3)
    lines = str(info.value).splitlines()
    assert lines[0].startswith(SHAPE_TEXT + "(Traced<ShapedArray(int32[], weak_type=True)>")
    assert lines[1] == ("If using `jit`, try using `static_argnums` or applying `jit` to "
                        "smaller subfunctions.")
    assert lines[2].endswith("This concrete value was not available in Python because it "
                             "depends on the value of the argument n.")


def test_vmapped_rev_rejects_a_negative_dimension() -> None:
    # JAX 0.4.30 rejects rev(x, (-1,)) under vmap as without it; the batch rule used to shift
    # -1 to 0 and reverse the batch axis (fuzzer seed 22001: vmap of
    # associative_scan(min, x, axis=-1, reverse=True) over 0-d examples).
    msg = re.escape("rev dimensions must have every element be nonnegative, got (-1,).")
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    scan = numjax.vmap(lambda v: lax.associative_scan(lax.min, v, axis=-1, reverse=True))
    for f, arg in ((numjax.vmap(lambda v: lax.rev(v, (-1,))), x),
                   (numjax.jit(numjax.vmap(lambda v: lax.rev(v, (-1,)))), x),
                   (scan, np.array([5, 3], np.int32)), (numjax.jit(scan), np.array([5, 3]))):
        with pytest.raises(TypeError, match=msg):
            f(arg)
    np.testing.assert_array_equal(numjax.vmap(lambda v: lax.rev(v, (0,)))(x), x[:, ::-1])
