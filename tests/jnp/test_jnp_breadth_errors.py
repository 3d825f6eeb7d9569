"""Error types and messages of the added jnp functions, as JAX 0.4.30 raises them (texts
recorded from jax.numpy; JAX is not imported here), including data-dependent output shapes
under tracing, which need a static size= argument."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import errors

_x = jnp.arange(6.0)

# name -> (thunk, exception type, start of JAX's message)
ERRORS: dict[str, tuple[Callable[[], Any], type[BaseException], str]] = {
    "select_len": (lambda: jnp.select([_x > 1], [_x, _x]), ValueError,
                   "condlist must have length equal to choicelist (1 vs 2)"),
    "select_empty": (lambda: jnp.select([], []), ValueError, "condlist must be non-empty"),
    "arange_bool": (lambda: jnp.arange(True), TypeError,
                    "iota does not accept dtype bool. Accepted dtypes are subtypes of integer, "
                    "floating, complexfloating."),
    "arange_negative_float": (lambda: jnp.arange(-3.0), TypeError,
                              "iota shape must have every element be nonnegative, got (-3,)."),
    "arange_zero_start": (lambda: jnp.arange(0, -2), TypeError,
                          "iota shape must have every element be nonnegative, got (-2,)."),
    "split_unequal": (lambda: jnp.split(_x, 4), ValueError,
                      "array split does not result in an equal division: rest is 2"),
    "rot90_axes": (lambda: jnp.rot90(jnp.ones((2, 2)), axes=(0, 0)), ValueError,
                   "Axes must be different"),
    "pad_mode": (lambda: jnp.pad(_x, 1, mode="foo"), NotImplementedError,
                 "Unimplemented padding mode 'foo' for np.pad."),
    "pad_negative": (lambda: jnp.pad(_x, -1), ValueError, "index can't contain negative values"),
    "pad_empty_axis": (lambda: jnp.pad(jnp.ones((0, 2)), 1, mode="edge"), ValueError,
                       "Cannot apply 'edge' padding to empty axis"),
    "quantile_method": (lambda: jnp.quantile(_x, 0.5, method="foo"), ValueError,
                        "method can only be 'linear', 'lower', 'higher', 'midpoint', or "
                        "'nearest'"),
    "tensordot_axes": (lambda: jnp.tensordot(jnp.ones(2), jnp.ones(2), axes=3), TypeError,
                       "Number of tensordot axes (axes 3) exceeds input ranks ((2,) and (2,))"),
    "cross_dim": (lambda: jnp.cross(jnp.ones(4), jnp.ones(4)), ValueError,
                  "Dimension must be either 2 or 3 for cross product"),
    "gcd_float": (lambda: jnp.gcd(1.0, 2.0), ValueError,
                  "Arguments to jax.numpy.gcd must be integers."),
    "fill_diagonal_inplace": (lambda: jnp.fill_diagonal(jnp.ones((2, 2)), 1),
                              NotImplementedError,
                              "JAX arrays are immutable, must use inplace=False"),
    "place_inplace": (lambda: jnp.place(_x, _x > 1, 0), ValueError,
                      "jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
                      "immutable."),
    "put_inplace": (lambda: jnp.put(_x, 0, 1), ValueError,
                    "jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                    "immutable."),
    "take_raise": (lambda: jnp.take(_x, jnp.array([0]), mode="raise"), NotImplementedError,
                   "The 'raise' mode to jnp.take is not supported."),
    "diagonal_1d": (lambda: jnp.diagonal(_x), ValueError,
                    "diagonal requires an array of at least two dimensions."),
    "diag_3d": (lambda: jnp.diag(jnp.ones((2, 2, 2))), ValueError,
                "diag input must be 1d or 2d"),
    "meshgrid_indexing": (lambda: jnp.meshgrid(_x, indexing="foo"), ValueError,
                          "Valid values for indexing are 'xy' and 'ij', got foo"),
    "bincount_float": (lambda: jnp.bincount(_x), TypeError,
                       "x argument to bincount must have an integer type; got float32"),
    "searchsorted_side": (lambda: jnp.searchsorted(_x, 1.0, side="middle"), ValueError,
                          "'middle' is an invalid value for keyword 'side'."),
    "unstack_scalar": (lambda: jnp.unstack(jnp.float32(1)), ValueError,
                       "Unstack requires arrays with rank > 0, however a scalar array was "
                       "passed."),
    "block_tuple": (lambda: jnp.block((_x, _x)), ValueError,
                    "jax.numpy.block does not allow tuples, got"),
    "ravel_multi_index_raise": (lambda: jnp.ravel_multi_index((jnp.array([5]),), (3,)),
                                ValueError, "invalid entry in coordinates array"),
    "take_along_axis_ndim": (lambda: jnp.take_along_axis(jnp.ones((2, 2)), jnp.zeros(2, int),
                                                         axis=0), ValueError,
                             "indices and arr must have the same number of dimensions; 1 vs. 2"),
    "average_axis": (lambda: jnp.average(jnp.ones((2, 2)), weights=jnp.ones(2)), ValueError,
                     "Axis must be specified when shapes of a and weights differ."),
    "diff_negative": (lambda: jnp.diff(_x, n=-1), ValueError,
                      "order must be non-negative but got -1"),
    "interp_shape": (lambda: jnp.interp(1.0, _x, _x[:3]), ValueError,
                     "xp and fp must be one-dimensional arrays of equal size"),
    "partition_kth": (lambda: jnp.partition(_x, 10), ValueError,
                      "axis 10 is out of bounds for array of dimension 6"),
    "nanargmax_empty": (lambda: jnp.nanargmax(jnp.ones((0,))), ValueError,
                        "attempt to get argmax of an empty sequence"),
    "cumulative_sum_axis": (lambda: jnp.cumulative_sum(jnp.ones((2, 2))), ValueError,
                            "The input array has rank 2, however axis was not set to an "
                            "explicit value."),
    "convolve_2d": (lambda: jnp.convolve(jnp.ones((2, 2)), _x), ValueError,
                    "convolve() only support 1-dimensional inputs."),
    "convolve_empty": (lambda: jnp.convolve(jnp.ones((0,)), _x), ValueError,
                       "convolve: inputs cannot be empty, got shapes (0,) and (6,)."),
    "vectorize_signature": (lambda: jnp.vectorize(lambda a: a, signature="(n)->(")(_x),
                            ValueError, "not a valid gufunc signature: (n)->("),
    "extract_size": (lambda: jnp.extract(jnp.array([True, False, True]), jnp.arange(3.0),
                                         size=4), ValueError,
                     "size must be positive and not greater than the size of the array axis; "
                     "got size=4 for a.shape[axis]=3"),
    "fill_diagonal_wrap": (lambda: jnp.fill_diagonal(jnp.zeros((5, 2)), 4, wrap=True,
                                                     inplace=False), NotImplementedError,
                           "wrap=True is not implemented, must use wrap=False"),
    "nanpercentile_list": (lambda: jnp.nanpercentile(_x, [25, 75]), TypeError,
                           "nanpercentile requires ndarray or scalar arguments, got <class "
                           "'list'>"),
    "zeros_two_ints": (lambda: jnp.zeros(2, 3), TypeError,
                       "Cannot interpret '3' as a data type.\n\nDid you accidentally write "
                       "`jax.numpy.zeros(2, 3)` when you meant `jax.numpy.zeros((2, 3))`, i.e. "
                       "with a single tuple argument for the shape?"),
    "ones_two_ints": (lambda: jnp.ones(2, 3), TypeError,
                      "Cannot interpret '3' as a data type.\n\nDid you accidentally write "
                      "`jax.numpy.ones(2, 3)` when you meant `jax.numpy.ones((2, 3))`"),
    "empty_two_ints": (lambda: jnp.empty(2, 3), TypeError,
                       "Cannot interpret '3' as a data type.\n\nDid you accidentally write "
                       "`jax.numpy.empty(2, 3)` when you meant `jax.numpy.empty((2, 3))`"),
    "zeros_generator": (lambda: jnp.zeros(i for i in range(2)), TypeError,
                        "expected sequence object with len >= 0 or a single integer"),
    "rot90_1d": (lambda: jnp.rot90(jnp.ones(3)), ValueError,
                 "rot90 requires its first argument to have ndim at least two, but got first "
                 "argument of shape (3,), which has ndim 1"),
    "broadcast_to_fewer_dims": (lambda: jnp.broadcast_to(jnp.ones((3, 4, 5)), (4, 5)),
                                ValueError, "Cannot broadcast to shape with fewer dimensions: "
                                "arr_shape=(3, 4, 5) shape=(4, 5)"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_jax(name: str) -> None:
    thunk, exc, message = ERRORS[name]
    with pytest.raises(exc, match="^" + re.escape(message)):
        thunk()


_UNIQUE_MSG = ("Abstract tracer value encountered where concrete value is expected: traced "
               "array with shape float32[6].\nThe error arose for the first argument of "
               "jnp.unique(). To make jnp.unique() compatible with JIT and other transforms, "
               "you can specify a concrete value for the size argument, which will determine "
               "the output size.")

# Data-dependent output shapes under jit: ConcretizationTypeError (or its subclasses).
TRACED: dict[str, tuple[Callable[..., Any], tuple[Any, ...], type[BaseException], str]] = {
    "unique": (jnp.unique, (_x,), errors.ConcretizationTypeError, _UNIQUE_MSG),
    "union1d": (jnp.union1d, (_x, _x), errors.ConcretizationTypeError,
                "Abstract tracer value encountered where concrete value is expected: traced "
                "array with shape float32[6]."),
    "setdiff1d": (jnp.setdiff1d, (_x, _x), errors.ConcretizationTypeError, ""),
    "intersect1d": (jnp.intersect1d, (_x, _x), errors.ConcretizationTypeError, ""),
    "repeat": (lambda r: jnp.repeat(_x, r), (jnp.ones(6, int),),
               errors.ConcretizationTypeError, ""),
    "bincount": (jnp.bincount, (jnp.arange(3),), errors.ConcretizationTypeError, ""),
    "choose_raise": (lambda a: jnp.choose(a, [_x, _x]), (jnp.zeros(6, int),),
                     errors.ConcretizationTypeError, ""),
    "split": (lambda n: jnp.split(_x, n), (2,), errors.ConcretizationTypeError, ""),
    "tile": (lambda r: jnp.tile(_x, r), (2,), errors.TracerArrayConversionError, ""),
    "compress": (lambda c: jnp.compress(c, _x), (_x > 2,), errors.ConcretizationTypeError, ""),
    "nonzero_method": (lambda a: a.nonzero(), (_x,), errors.ConcretizationTypeError, ""),
    "delete": (lambda i: jnp.delete(_x, i), (jnp.array([1]),),
               errors.ConcretizationTypeError, ""),
}


@pytest.mark.parametrize("name", sorted(TRACED))
def test_traced_output_shape_errors(name: str) -> None:
    fn, args, exc, message = TRACED[name]
    with pytest.raises(exc) as info:
        numjax.jit(fn)(*args)
    assert str(info.value).startswith(message)


def test_size_argument_makes_traced_calls_work() -> None:
    x = jnp.array([3.0, 1.0, 3.0, 2.0])
    out = numjax.jit(lambda a: jnp.unique(a, size=5, fill_value=-1.0))(x)
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0, -1.0, -1.0])
    vals, idx, inv, counts = numjax.jit(lambda a: jnp.unique(
        a, size=4, return_index=True, return_inverse=True, return_counts=True))(x)
    np.testing.assert_array_equal(vals, [1.0, 2.0, 3.0, 1.0])
    np.testing.assert_array_equal(idx, [1, 3, 0, 1])
    np.testing.assert_array_equal(inv, [2, 0, 2, 1])
    np.testing.assert_array_equal(counts, [1, 1, 2, 0])
    out = numjax.jit(lambda r: jnp.repeat(jnp.arange(3), r, total_repeat_length=5))(
        jnp.array([2, 0, 2]))
    np.testing.assert_array_equal(out, [0, 0, 2, 2, 2])
    out = numjax.jit(lambda a: jnp.bincount(a, length=4))(jnp.array([0, 3, 3, 7]))
    np.testing.assert_array_equal(out, [1, 0, 0, 2])
    out = numjax.jit(lambda a: jnp.setdiff1d(a, jnp.array([3.0]), size=3))(x)
    np.testing.assert_array_equal(out, [1.0, 2.0, 0.0])
    out = numjax.jit(lambda c: jnp.extract(c, jnp.arange(4.0), size=3, fill_value=9.0))(
        x > 1.5)
    np.testing.assert_array_equal(out, [0.0, 2.0, 3.0])
    out = numjax.jit(lambda s: jnp.roll(jnp.arange(5), s))(2)
    np.testing.assert_array_equal(out, np.roll(np.arange(5), 2))
    out = numjax.jit(lambda i: jnp.delete(jnp.arange(5), i, assume_unique_indices=True))(
        jnp.array([3, 0]))
    np.testing.assert_array_equal(out, [1, 2, 4])


def test_copysign_broadcasts_a_scalar_magnitude():
    import numpy as np

    import numjax.numpy as jnp
    np.testing.assert_array_equal(jnp.copysign(1.0, jnp.array([-1.0, 2.0])), [-1.0, 1.0])
