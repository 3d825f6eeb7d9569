"""jnp's functions of complex arguments against JAX 0.4.30's recorded results: comparisons
order complex numbers lexicographically (real part, then imaginary part), max/min follow them
without propagating NaN, rounding rounds both parts, arccosh takes XLA's branch flipped to a
positive real part, logaddexp wraps the phase; eager, jit and the derivatives agree."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax

A = np.array([1 + 2j, 1 + 1j, 2 + 0j, 1 + 2j, np.nan + 0j, -3 + 4j], np.complex64)
B = np.array([1 + 1j, 1 + 2j, 1 + 5j, 1 + 2j, 0j, 2 - 7j], np.complex64)
nan = float("nan")

# JAX 0.4.30's results for A and B (complex64 values exactly as float32 pairs)
EXPECTED = {
    "less": [False, True, False, False, False, True],
    "less_equal": [False, True, False, True, False, True],
    "greater": [True, False, True, False, False, False],
    "greater_equal": [True, False, True, True, False, False],
    "maximum": [(1 + 2j), (1 + 2j), (2 + 0j), (1 + 2j), 0j, (2 - 7j)],
    "minimum": [(1 + 1j), (1 + 1j), (1 + 5j), (1 + 2j), 0j, (-3 + 4j)],
    "fmax": [(1 + 2j), (1 + 2j), (2 + 0j), (1 + 2j), 0j, (2 - 7j)],
    "fmin": [(1 + 1j), (1 + 1j), (1 + 5j), (1 + 2j), 0j, (-3 + 4j)],
    "relu": [(1 + 2j), (1 + 1j), (2 + 0j), (1 + 2j), 0j, 0j],
    "round": [(2 + 3j), (2 + 2j), (3 + 0j), (2 + 3j), complex(nan, nan), (-5 + 6j)],
    "round1": [(1.600000023841858 + 3.1000001430511475j), (1.600000023841858 + 1.600000023841858j),
               (3.1000001430511475 + 0j), (1.600000023841858 + 3.1000001430511475j),
               complex(nan, nan), (-4.700000286102295 + 6.300000190734863j)],
    "rint": [(2 + 3j), (2 + 2j), (3 + 0j), (2 + 3j), complex(nan, nan), (-4 + 6j)],
    "arctan2": [(1.0172220468521118 + 0.1469467282295227j),
                (0.5535744428634644 - 0.14694665372371674j),
                (0.08992670476436615 - 0.4023595154285431j),
                (0.7853981256484985 + 5.960464477539063e-08j), complex(nan, nan),
                (-0.5900946855545044 - 0.17328687012195587j)],
    "logaddexp": [(1.5625629425048828 + 1.500000238418579j),
                  (1.5625629425048828 + 1.500000238418579j),
                  (2.147840976715088 - 0.3091897964477539j),
                  (1.6931471824645996 + 2.000000238418579j), complex(nan, nan),
                  (2.0000524520874023 - 0.7235522270202637j)],
    "logaddexp2": [(1.9115644693374634 + 1.5j), (1.9115644693374634 + 1.5j),
                   (1.1364920139312744 - 0.42409610748291016j), (2 + 2j), complex(nan, nan),
                   (2.0108723640441895 + 2.1083006858825684j)],
    "softplus": [(0.9063238501548767 + 1.623828649520874j),
                 (1.2135701179504395 + 0.7472884654998779j), (2.1269280910491943 + 0j),
                 (0.9063238501548767 + 1.623828649520874j), complex(nan, nan),
                 (-0.03232646360993385 - 0.03892683982849121j)],
    "arccosh": [(1.5285708904266357 + 1.1437177658081055j),
                (1.0612750053405762 + 0.9045568704605103j), (1.316957950592041 + 0j),
                (1.5285708904266357 + 1.1437177658081055j), complex(nan, nan),
                (2.305509567260742 + 2.204777717590332j)],
    "lax_acosh": [(1.5285708904266357 + 1.1437177658081055j),
                  (1.0612750053405762 + 0.9045568704605103j), (1.316957950592041 + 0j),
                  (1.5285708904266357 + 1.1437177658081055j), complex(nan, nan),
                  (-2.305509567260742 - 2.204777717590332j)],
    "arccosh_jvp": [(0.16089856624603271 - 0.3884434998035431j),
                    (0.3515775799751282 - 0.5688644647598267j), (0.5773502588272095 + 0j),
                    (0.16089856624603271 - 0.3884434998035431j), complex(nan, nan),
                    (-0.11625073850154877 - 0.1612892746925354j)],
    "masked": [(1 + 1j), (-3 + 4j)],
    "searchsorted": [1, 2, 4, 2, 1, 4],
}

FUNCTIONS = {
    "less": lambda a, b: jnp.less(a, b), "less_equal": lambda a, b: a <= b,
    "greater": lambda a, b: a > b, "greater_equal": lambda a, b: jnp.greater_equal(a, b),
    "maximum": jnp.maximum, "minimum": jnp.minimum, "fmax": jnp.fmax, "fmin": jnp.fmin,
    "relu": lambda a, b: numjax.nn.relu(a),
    "round": lambda a, b: jnp.round(a * 1.57), "round1": lambda a, b: jnp.round(a * 1.57, 1),
    "rint": lambda a, b: jnp.rint(a * 1.5),
    "arctan2": jnp.arctan2, "logaddexp": jnp.logaddexp, "logaddexp2": jnp.logaddexp2,
    "softplus": lambda a, b: numjax.nn.softplus(a),
    "arccosh": lambda a, b: jnp.arccosh(a), "lax_acosh": lambda a, b: lax.acosh(a),
    "arccosh_jvp": lambda a, b: numjax.jvp(jnp.arccosh, (a,), (jnp.ones_like(a),))[1],
    "masked": lambda a, b: a[a < b],
    "searchsorted": lambda a, b: jnp.searchsorted(jnp.sort(a), b),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_complex_values_match_jax(name: str) -> None:
    fns = [FUNCTIONS[name]]
    if name != "masked":  # a boolean mask needs concrete values
        fns.append(numjax.jit(FUNCTIONS[name]))
    expected = np.array(EXPECTED[name])
    for fn in fns:
        out = np.asarray(fn(jnp.asarray(A), jnp.asarray(B)))
        assert out.dtype == (np.complex64 if expected.dtype.kind == "c" else out.dtype)
        # elementwise transcendental functions: a few float32 ulps from XLA's
        np.testing.assert_allclose(out, expected, rtol=2e-6, atol=1e-7)


def test_lax_max_min_of_complex_pick_lexicographically_without_nan_propagation() -> None:
    out = lax.max(np.complex64(np.nan + 0j), np.complex64(0j))
    assert complex(out) == 0j
    out = lax.min(np.array([1 + 5j, 2 - 1j], np.complex64), np.array([1 + 4j, 1 + 9j],
                                                                      np.complex64))
    np.testing.assert_array_equal(out, [1 + 4j, 1 + 9j])


def test_arccosh_derivative_follows_the_flipped_branch() -> None:
    # JAX 0.4.30: jnp.arccosh negates lax.acosh where its real part is negative, and so the
    # derivative: d/dz arccosh at -2 + 0.5j is -1 / sqrt(z**2 - 1) (grad of the real part and
    # the jvp agree there)
    z = np.complex64(-2 + 0.5j)
    grad = numjax.grad(lambda z: jnp.arccosh(z).real)(z)
    np.testing.assert_allclose(complex(grad), -0.5157148838043213 - 0.16770213842391968j,
                               rtol=1e-6)
    tangent = numjax.jvp(jnp.arccosh, (z,), (np.complex64(1),))[1]
    np.testing.assert_allclose(complex(tangent), -0.5157148838043213 - 0.16770213842391968j,
                               rtol=1e-6)


@pytest.mark.parametrize("call,error,message", [
    (lambda: jnp.floor_divide(A, B), TypeError,
     "floor_divide does not support complex-valued inputs"),
    (lambda: jnp.copysign(A, B), TypeError, "copysign does not support complex-valued inputs"),
    (lambda: jnp.signbit(A), ValueError, "jax.numpy.signbit is not well defined for complex64"),
    (lambda: jnp.ldexp(A, 2), ValueError,
     "ldexp not supported for input types (dtype('complex64'), dtype('int32'))"),
    (lambda: jnp.fmod(A, B), TypeError, None),
    (lambda: jnp.remainder(A, B), TypeError, None),
    (lambda: jnp.trunc(A), TypeError, None),
    (lambda: jnp.heaviside(A, B), TypeError, None),
    (lambda: lax.lt(A, B), TypeError, None),
])
def test_complex_arguments_refused_as_in_jax(call: Any, error: Any, message: str) -> None:
    with pytest.raises(error) as info:
        call()
    if message is not None:
        assert str(info.value) == message


def test_hypot_of_complex_warns_and_uses_magnitudes() -> None:
    with pytest.warns(DeprecationWarning, match="Passing complex-valued inputs to hypot"):
        out = jnp.hypot(np.complex64(1j), 1.0)
    assert out.dtype == np.float32 and float(out) == np.float32(1.4142135)


@pytest.mark.parametrize("x,y,expected", [
    (3e30, 4e30, 5e30), (0.0, 0.0, 0.0), (np.inf, np.nan, np.inf), (-3.0, 4.0, 5.0),
    (1e-30, 1e-30, 1.4142135e-30),
])
def test_hypot_does_not_overflow(x: Any, y: Any, expected: Any) -> None:
    for fn in (jnp.hypot, numjax.jit(jnp.hypot)):
        np.testing.assert_allclose(fn(np.float32(x), np.float32(y)), np.float32(expected),
                                   rtol=1e-6)


def test_clip_of_complex_warns() -> None:
    with pytest.warns(DeprecationWarning, match="Clip received a complex value"):
        out = jnp.clip(A[:2], 0, 1)
    np.testing.assert_array_equal(out, [1 + 0j, 1 + 0j])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jnp.clip(np.ones(2, np.float32), 0, 1)  # real input: no warning


def test_arccos_at_infinite_and_huge_arguments_keeps_c99_limits() -> None:
    # JAX 0.4.30's complex arccos overflows there: nan - inf j for inf - inf j, inf + 2j,
    # 2 + inf j and even 1e30 + 1e30j (fuzzer seed 21001); numjax gives NumPy's (C99's)
    # values (docs/differences.md).
    z = np.array([complex(np.inf, -np.inf), complex(np.inf, 2), complex(2, np.inf),
                  complex(-np.inf, -2), complex(1e30, 1e30)], np.complex64)
    out = jnp.arccos(z)
    assert out.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(out), np.arccos(z), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(out)[-1], 0.7853982 - 70.11727j, rtol=1e-6)
