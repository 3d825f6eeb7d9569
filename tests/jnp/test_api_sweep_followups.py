"""Differences from JAX 0.4.30 found by calling every jnp / jnp.linalg / jax.scipy.linalg
function on arrays of each dtype, with JAX's results recorded as data."""

from __future__ import annotations

import numpy as np
import pytest

import numjax.numpy as jnp
import numjax.scipy.linalg as sla

f32 = np.float32


def test_trapezoid_takes_the_spacings_of_a_multidimensional_x_along_axis():
    rng = np.random.default_rng(0)
    y = rng.normal(size=(3, 5)).astype(f32)
    x = np.cumsum(rng.uniform(size=(3, 5)), 1).astype(f32)
    expected = 0.5 * (np.diff(x, axis=-1) * (y[:, 1:] + y[:, :-1])).sum(-1)
    np.testing.assert_allclose(jnp.trapezoid(y, x), expected, rtol=1e-6)
    np.testing.assert_allclose(jnp.trapezoid(y.T, x.T, axis=0), expected, rtol=1e-6)
    # JAX: "Incompatible shapes for broadcasting" (numjax summed an unrelated broadcast)
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        jnp.trapezoid(jnp.ones(5), jnp.ones((3, 4)))


def test_packbits_packs_the_positive_values():
    out = jnp.packbits(jnp.array([-1, 2, 0, -3, 1, 1, 0, 5]))
    np.testing.assert_array_equal(out, [77])          # JAX 77; NumPy's nonzero rule: 221
    assert out.dtype == np.uint8


def test_linalg_vecdot_tensordot_and_diagonal_keep_jnp_dtypes():
    out = jnp.linalg.vecdot(jnp.array([200, 100], jnp.uint8), jnp.array([2, 3], jnp.uint8))
    assert out.dtype == np.uint8 and int(out) == 188  # JAX: uint8 188 (wraps)
    out = jnp.linalg.vecdot(jnp.array([True, False]), jnp.array([True, True]))
    assert out.dtype == np.bool_ and bool(out)        # JAX: bool True
    out = jnp.linalg.tensordot(jnp.ones((2, 2), bool), jnp.ones((2, 2), jnp.int32))
    assert out.dtype == np.int32 and int(out) == 4    # JAX: int32 4
    out = jnp.linalg.diagonal(jnp.ones((3, 3), bool))
    np.testing.assert_array_equal(out, [True, True, True])
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(jnp.linalg.diagonal(jnp.arange(12.0).reshape(3, 4),
                                                      offset=1), [1.0, 6.0, 11.0])


def test_lu_permutation_is_real_for_complex_input():
    p, lower, upper = sla.lu(jnp.array([[1 + 1j, 2], [3, 4j]], jnp.complex64))
    assert p.dtype == np.float32                      # JAX: float32
    assert lower.dtype == upper.dtype == np.complex64
    np.testing.assert_allclose(p @ lower @ upper, [[1 + 1j, 2], [3, 4j]], atol=1e-6)


def test_intersect1d_promotes_its_inputs():
    out = jnp.intersect1d(jnp.array([1, 2]), jnp.array([2.0, 3.0]))
    np.testing.assert_array_equal(out, [2.0])
    assert out.dtype == np.float32                    # JAX: float32 [2.]
    vals, i1, i2 = jnp.intersect1d(jnp.array([1, 2]), jnp.array([2.0, 3.0]),
                                   return_indices=True)
    np.testing.assert_array_equal(i1, [1])
    np.testing.assert_array_equal(i2, [0])
    assert jnp.intersect1d(jnp.array([True]), jnp.array([2.0])).dtype == np.float32


def test_poly_of_a_square_matrix_is_its_characteristic_polynomial():
    out = jnp.poly(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    assert out.dtype == np.complex64                  # JAX: [1, -5, -2] as complex64
    np.testing.assert_allclose(out, [1.0, -5.0, -2.0], atol=1e-5)
    np.testing.assert_array_equal(jnp.poly(jnp.array(3.0)), [1.0, -3.0])
    for bad in (jnp.zeros((0, 0)), jnp.ones((2, 3)), jnp.ones((2, 2, 2))):
        with pytest.raises(ValueError, match="input must be 1d or non-empty square 2d array"):
            jnp.poly(bad)


BAD_CALLS = {
    # (call, JAX's error type, a fragment of JAX's message)
    "fix_out": (lambda: jnp.fix(jnp.ones(3), jnp.ones(3)), NotImplementedError,
                "The 'out' argument to jnp.fix is not supported."),
    "modf_out": (lambda: jnp.modf(jnp.ones(3), jnp.ones(3)), NotImplementedError,
                 "The 'out' argument to jnp.modf is not supported."),
    "tril_array_k": (lambda: jnp.tril(jnp.ones((3, 3)), jnp.arange(3)), ValueError, "k"),
    "triu_array_k": (lambda: jnp.triu(jnp.ones((3, 3)), jnp.ones((3, 4))), ValueError, "k"),
    "split_float_indices": (lambda: jnp.split(jnp.arange(5.0), jnp.array([1.0, 2.0])),
                            TypeError, "Only integer scalar arrays can be converted"),
    "round_bool": (lambda: jnp.round(jnp.array([True])), TypeError,
                   "round does not accept dtype bool"),
    "around_bool_decimals": (lambda: jnp.around(jnp.array([True]), 1), TypeError,
                             "mul does not accept dtype bool"),
    "take_float_indices": (lambda: jnp.take(jnp.arange(3.0), jnp.array([1.0])), ValueError,
                           "indices must have an integer type"),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_calls_raise_jax_error_types(name):
    call, error, fragment = BAD_CALLS[name]
    with pytest.raises(error, match=fragment):
        call()


def test_take_reads_boolean_indices_as_integers():
    np.testing.assert_array_equal(jnp.take(jnp.arange(3.0), jnp.array([True, False])),
                                  [1.0, 0.0])         # JAX: [1., 0.]


def test_corrcoef_of_complex_rows():
    out = jnp.corrcoef(jnp.array([[1 + 1j, 2, 3], [1, 0, 1j]], jnp.complex64))
    assert out.dtype == np.complex64
    # JAX: [[1, -0.70710677-0.17677672j], [-0.70710677+0.17677672j, 1]]
    np.testing.assert_allclose(out, [[1, -0.70710677 - 0.17677672j],
                                     [-0.70710677 + 0.17677672j, 1]], atol=1e-6)


def test_matrix_rank_compares_rtol_with_the_singular_values_themselves():
    m = jnp.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.1], [0.0, 1.0, 0.0]])
    # JAX 0.4.30 counts s > rtol (absolute, despite the name): 3 here; a relative threshold
    # (rtol * max(s)) would give 2.
    assert int(jnp.linalg.matrix_rank(m, 0.01)) == 3
    assert int(jnp.linalg.matrix_rank(m, jnp.array(0.1))) == 2
    with pytest.warns(DeprecationWarning, match="The tol argument for linalg.matrix_rank"):
        assert int(jnp.linalg.matrix_rank(m, tol=0.1)) == 2


def test_lax_full_like_refuses_an_array_fill_value():
    from numjax import lax
    with pytest.raises(TypeError, match=r"full must be called with scalar fill_value, got "
                                        r"fill_value.shape \(2, 2\)."):
        lax.full_like(jnp.ones(2), jnp.ones((2, 2)))


def test_split_at_an_empty_float_index_array_is_one_piece():
    # lineax splits at np.cumsum(sizes)[:-1], a float64 array, empty for one piece: JAX and
    # NumPy read no index from it.
    (piece,) = jnp.split(jnp.arange(3.0), np.array([], np.float64))
    np.testing.assert_array_equal(piece, [0.0, 1.0, 2.0])


def test_angle_of_integers_is_in_the_default_float_type():
    from numjax.experimental import enable_x64
    with enable_x64():                                   # jaxdiff seed 15101
        assert jnp.angle(jnp.full((2,), True, dtype=jnp.uint16)).dtype == np.float64
        assert jnp.angle(jnp.arange(3.0, dtype=jnp.float32)).dtype == np.float32
    assert jnp.angle(jnp.arange(3)).dtype == np.float32


ANGLE_CASES = [
    # (input, JAX's (dtype, weak_type))
    (lambda: 3, ("float32", False)),
    (lambda: jnp.asarray(3.0), ("float32", False)),
    (lambda: 1 + 1j, ("float32", True)),
    (lambda: jnp.broadcast_to(0.5, (2,)), ("float32", True)),
    (lambda: jnp.zeros(2, jnp.bfloat16), ("bfloat16", False)),   # jaxdiff seed 15202
    (lambda: jnp.bfloat16(1), ("float32", False)),               # a 0-d float: default float
    (lambda: jnp.float16(-1), ("float32", False)),
    (lambda: jnp.arange(3), ("float32", False)),
    (lambda: jnp.array([1 + 1j]), ("float32", False)),
    (lambda: True, ("float32", False)),
    (lambda: jnp.zeros(2, jnp.float16), ("float16", False)),
]


@pytest.mark.parametrize("case", range(len(ANGLE_CASES)))
def test_angle_result_types(case):
    make, (dtype, weak) = ANGLE_CASES[case]
    out = jnp.angle(make())
    assert (out.dtype, out.weak_type) == (np.dtype(dtype), weak)


def test_complex_astype_bool_is_nonzero_and_complex_to_real_warns():
    a = np.array([0.45 + 1.04j, -0.27j, 0j, complex(0, float("nan"))], np.complex64)
    expected = [True, True, False, True]                   # JAX; lax.convert_element_type
    np.testing.assert_array_equal(jnp.asarray(a).astype(bool), expected)  # reads the real part
    np.testing.assert_array_equal(jnp.astype(a, bool), expected)
    with pytest.warns(DeprecationWarning, match="Casting from complex to real dtypes"):
        jnp.asarray(a).astype(jnp.float32)


def test_mT_of_a_vector_raises_jax_value_error():
    with pytest.raises(ValueError, match="x must be at least two-dimensional for "
                                         "matrix_transpose; got ndim=1"):
        _ = jnp.ones(3).mT                                 # jaxdiff seed 15203
    assert jnp.ones((2, 3)).mT.shape == (3, 2)


def test_trapezoid_of_a_complex_infinity_keeps_its_real_part():
    a0 = np.array([[-0.87 - 0.38j, 1.48 - 1.96j, complex(-np.inf, -2.12)]], np.complex64)
    out = np.asarray(jnp.trapezoid(a0))                    # JAX: [-inf+nanj] (seed 15304)
    assert out[0].real == -np.inf and np.isnan(out[0].imag)
    assert float(jnp.trapezoid(jnp.arange(4.0), dx=2)) == 9.0
