"""Values of jnp's elementwise functions that JAX 0.4.30 defines beyond plain NumPy: the custom
derivatives of logaddexp/logaddexp2 (and softplus, built on them) at NaN and infinite operands,
and the compiler's division-by-constant rewrite that jit (and jnp.round) show."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp

nan, inf = float("nan"), float("inf")

# (x1, x2, JAX 0.4.30's jvp tangent of logaddexp for tangents (1, 2), and of logaddexp2)
LOGADDEXP_TANGENTS = [
    (nan, 0.0, nan, nan),
    (inf, 0.0, 3.0, 3.0),
    (-inf, 0.0, 2.0, 2.0),
    (inf, inf, 3.0, 3.0),
    (-inf, -inf, nan, nan),
    (inf, -inf, 1.0, 1.0),
    (nan, inf, nan, nan),
    (1.0, 2.0, 1.7310585, 1.6666667),
]


@pytest.mark.parametrize("x1,x2,t_e,t_2", LOGADDEXP_TANGENTS)
def test_logaddexp_derivatives(x1: Any, x2: Any, t_e: Any, t_2: Any) -> None:
    args = (np.float32(x1), np.float32(x2))
    tangents = (np.float32(1.0), np.float32(2.0))
    for fn, expected in ((jnp.logaddexp, t_e), (jnp.logaddexp2, t_2)):
        for f in (fn, numjax.jit(fn)):
            _, tangent = numjax.jvp(f, args, tangents)
            np.testing.assert_allclose(float(tangent), expected, rtol=1e-6)


def test_logaddexp_gradients_at_infinities() -> None:
    grad = numjax.grad(jnp.logaddexp, argnums=(0, 1))
    assert [float(g) for g in grad(np.float32(inf), np.float32(0.0))] == [1.0, 1.0]
    assert [float(g) for g in grad(np.float32(inf), np.float32(-inf))] == [1.0, 0.0]


def test_softplus_derivative_at_nan_is_nan() -> None:
    x = np.float32(nan)
    assert np.isnan(numjax.grad(numjax.nn.softplus)(x))
    assert np.isnan(numjax.jvp(numjax.nn.softplus, (x,), (np.float32(1.0),))[1])
    _, t = numjax.jvp(numjax.nn.softplus, (np.float32(inf),), (np.float32(1.0),))
    assert float(t) == 1.0


def test_logaddexp_is_a_custom_jvp_function() -> None:
    text = str(numjax.make_jaxpr(jnp.logaddexp)(1.0, 2.0))
    assert "custom_jvp_call" in text
    assert jnp.logaddexp(1.0, 2.0).weak_type and not jnp.logaddexp2(1.0, 2.0).weak_type


X = np.array([31.0, 1.0, 7.0, 5.0], np.float32)


@pytest.mark.parametrize("fn,eager,jitted", [
    # JAX 0.4.30: under jit a division by a constant multiplies by its float32 reciprocal
    (lambda x: x / 10.0, [3.0999999046325684, 0.10000000149011612, 0.699999988079071, 0.5],
     [3.1000001430511475, 0.10000000149011612, 0.699999988079071, 0.5]),
    (lambda x: x / 3.0, [10.333333015441895, 0.3333333432674408, 2.3333332538604736,
                         1.6666666269302368],
     [10.333333969116211, 0.3333333432674408, 2.3333334922790527, 1.6666667461395264]),
    (lambda x: x / np.array([10.0, 3.0, 7.0, 49.0], np.float32),
     [3.0999999046325684, 0.3333333432674408, 1.0, 0.10204081982374191],
     [3.1000001430511475, 0.3333333432674408, 1.0, 0.10204081237316132]),
    (lambda x: x.astype(jnp.float16) / 3.0, [10.3359375, 0.333251953125, 2.333984375,
                                             1.6669921875],
     [10.328125, 0.333251953125, 2.33203125, 1.666015625]),
    # bfloat16, and a constant numerator, are left alone
    (lambda x: x.astype(jnp.bfloat16) / 3.0, [10.3125, 0.333984375, 2.328125, 1.6640625],
     [10.3125, 0.333984375, 2.328125, 1.6640625]),
    (lambda x: 1.0 / x, [0.032258063554763794, 1.0, 0.1428571492433548, 0.20000000298023224],
     [0.032258063554763794, 1.0, 0.1428571492433548, 0.20000000298023224]),
])
def test_division_by_a_constant_under_jit(fn: Any, eager: Any, jitted: Any) -> None:
    np.testing.assert_array_equal(np.asarray(fn(jnp.asarray(X)), np.float64), eager)
    np.testing.assert_array_equal(np.asarray(numjax.jit(fn)(X), np.float64), jitted)
    # the divisor as an argument is a division
    np.testing.assert_array_equal(
        numjax.jit(lambda x, c: x / c)(X, np.float32(10.0)), X / np.float32(10.0))


@pytest.mark.parametrize("x,decimals,dtype,expected", [
    ([3.14, 1.57 * 2, 0.31415], 1, "float32", [3.1000001430511475, 3.1000001430511475,
                                             0.30000001192092896]),
    ([3.14159, 2.71828], 2, "float32", [3.1399998664855957, 2.7200000286102295]),
    ([3.14159, 2.71828], 3, "float32", [3.142000198364258, 2.7180001735687256]),
    ([3.14159, 2.71828], 2, "float16", [3.140625, 2.720703125]),
    ([314.159, 25.0], -1, "float32", [310.0, 20.0]),
])
def test_round_to_decimals_matches_jax(x: Any, decimals: Any, dtype: Any, expected: Any) -> None:
    a = jnp.asarray(np.array(x, dtype))
    for fn in (jnp.round, numjax.jit(jnp.round, static_argnums=1)):
        out = fn(a, decimals)
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(np.asarray(out, np.float64), expected)


I = np.array([-3, -2, -1, 0, 1, 2, 3], np.int32)


@pytest.mark.parametrize("exponent", [-2, np.int32(-2), np.array(-2), jnp.array(-2)],
                         ids=["int", "np.int32", "np 0-d", "0-d Array"])
def test_concrete_negative_integer_exponent_of_integers_is_an_error(exponent: Any) -> None:
    # JAX 0.4.30 reads a concrete integer exponent as lax.integer_pow's static power
    with pytest.raises(TypeError, match=r"^Integers cannot be raised to negative powers, got "
                       r"integer_pow\(ShapedArray\(int32\[7\]\), -2\)$"):
        jnp.power(I, exponent)


def test_traced_negative_integer_exponent_wraps_as_in_jax() -> None:
    # inside jit jnp.array(-1) is traced: JAX's binary exponentiation gives x ** 63, wrapped
    expected = [-2111105451, 0, -1, 0, 1, 0, 2111105451]
    np.testing.assert_array_equal(numjax.jit(lambda i: i ** jnp.array(-1))(I), expected)
    np.testing.assert_array_equal(numjax.jit(lambda i, e: i ** e)(I, jnp.array(-1)), expected)


def test_float_base_keeps_an_integer_exponent() -> None:
    f = jnp.array([0.0, 1.5, -2.0])
    assert str(numjax.make_jaxpr(lambda x: jnp.power(x, jnp.array(2)))(f)) == (
        "{ lambda ; a:f32[3]. let b:f32[3] = pow a 2 in (b,) }")
    assert str(numjax.make_jaxpr(lambda x: jnp.power(x, 3))(f)) == (
        "{ lambda ; a:f32[3]. let b:f32[3] = integer_pow[y=3] a in (b,) }")
    g = numjax.grad(lambda x: jnp.power(x, jnp.array(2)).sum())(f)
    np.testing.assert_array_equal(g, [0.0, 3.0, -4.0])


B = np.array([True, False, True])


@pytest.mark.parametrize("fn,expected", [
    # JAX 0.4.30: shifts promote booleans to int32
    (lambda b: b << b, [2, 0, 2]), (lambda b: jnp.left_shift(b, b), [2, 0, 2]),
    (lambda b: jnp.right_shift(b, b), [0, 0, 0]),
    (lambda b: jnp.bitwise_left_shift(b, True), [2, 0, 2]),
])
def test_shifts_of_booleans(fn: Any, expected: Any) -> None:
    for f in (fn, numjax.jit(fn)):
        out = f(jnp.asarray(B))
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("fn,message", [
    (lambda: numjax.lax.shift_left(B, B), "shift_left does not accept dtype bool at position 0. "
     "Accepted dtypes at position 0 are subtypes of integer."),
    (lambda: jnp.left_shift(jnp.ones(2), 1), "shift_left does not accept dtype float32 at "
     "position 0. Accepted dtypes at position 0 are subtypes of integer."),
])
def test_shift_errors(fn: Any, message: str) -> None:
    with pytest.raises(TypeError) as info:
        fn()
    assert str(info.value) == message


def test_select_reads_conditions_as_booleans() -> None:
    v = jnp.array([-2.93, -0.75])
    # JAX 0.4.30: nonzero conditions are true
    np.testing.assert_allclose(jnp.select([v, v < 1], [v, v], 1), [-2.93, -0.75])
    np.testing.assert_allclose(jnp.select([jnp.array([0, 2])], [v], 1), [1.0, -0.75])


def test_nextafter_has_no_derivative() -> None:
    with pytest.raises(NotImplementedError,
                       match="^Differentiation rule for 'nextafter' not implemented(\n|$)"):
        numjax.grad(lambda x: jnp.nextafter(x, 2.0))(1.0)


def test_custom_jvp_rules_get_integer_zeros_for_integer_inputs() -> None:
    # JAX 0.4.30 hands a custom rule zeros of an integer input's own dtype, not float0
    import numjax.scipy.special as jsp
    a = np.float32(-1.85)
    for x in (np.uint32(3), np.int32(3)):
        for grad in (numjax.grad, lambda f: numjax.jit(numjax.grad(f))):
            g = grad(lambda a, x=x: jsp.xlogy(x, a))(a)
            np.testing.assert_allclose(g, -1.6216216, rtol=1e-6)


@pytest.mark.parametrize("fn,dtype,weak", [
    (lambda: jnp.fft.fftn(0.5), "complex64", True),
    (lambda: jnp.fft.fftn(jnp.float32(0.5)), "complex64", False),
    (lambda: jnp.fft.ifftn(jnp.float32(0.5)), "complex64", False),
])
def test_fft_of_a_0d_value_is_complex(fn: Any, dtype: Any, weak: Any) -> None:
    out = fn()
    assert out.dtype == np.dtype(dtype) and out.weak_type == weak and complex(out) == 0.5


def test_tri_defaults_to_float32_under_x64() -> None:
    from numjax._src.config import enable_x64
    with enable_x64(True):
        assert jnp.tri(3, k=-1).dtype == np.float32
        assert jnp.tri(2, dtype=int).dtype == np.int64
