"""numjax.test_util: check_grads passes correct derivatives and catches wrong rules."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.core import trace
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad, batching
from numjax._src.lax.rules import FLOAT, unary
from numjax.test_util import check_close, check_grads, check_jvp, check_vjp, numerical_jvp

rng = np.random.default_rng(0)
X = rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32)
Y = rng.uniform(0.5, 1.5, (4, 2)).astype(np.float32)


def _test_primitive(name: str, kernel: Any) -> Primitive:
    """An elementwise float primitive for these tests only: kept out of the global registry so
    the rule-coverage test does not see it."""
    p = unary(name, kernel, FLOAT)
    trace.primitives.remove(p)
    return p


# sin with the derivative of its own negation: a wrong jvp.
bad_sin_p = _test_primitive("bad_sin", np.sin)
ad.defjvp(bad_sin_p, lambda t, x: lax.mul(t, lax.neg(lax.cos(x))))

# sin whose derivative is right but whose second derivative is wrong: the jvp calls cos through a
# primitive whose own jvp has the wrong sign.
bad_cos_p = _test_primitive("bad_cos", np.cos)
ad.defjvp(bad_cos_p, lambda t, x: lax.mul(t, lax.sin(x)))
sin2_p = _test_primitive("sin2", np.sin)
ad.defjvp(sin2_p, lambda t, x: lax.mul(t, bad_cos_p.bind(x)))


# 3x as a linear primitive with a transpose that is off by a factor: forward mode is right,
# reverse mode is wrong. A 0.1% error is below finite differences' gradient tolerance; only the
# jvp/vjp consistency check (both modes) catches it.
def _scaled_linear(name: str, transpose_factor: float) -> Primitive:
    p = Primitive(name)
    trace.primitives.remove(p)
    p.def_impl(lambda x: x * np.asarray(3, x.dtype))
    p.def_abstract_eval(lambda a: a)
    p.def_batch(batching.vectorized_batch(p))
    ad.linear_jvp(p)
    p.def_transpose(lambda ct, x: [lax.mul(ct, np.asarray(3 * transpose_factor, ct.dtype))])
    return p


triple_bad_p = _scaled_linear("triple_bad", 1.5)
triple_slightly_bad_p = _scaled_linear("triple_slightly_bad", 1.001)
triple_p = _scaled_linear("triple", 1.0)


@pytest.mark.parametrize("order", [1, 2, 3])
def test_passes_on_correct_derivatives(order: int) -> None:
    check_grads(jnp.sin, (X,), order)
    check_grads(lambda a, b: jnp.tanh(a @ b), (X, Y), order)


def test_scalars_pytrees_and_fixed_integer_arguments() -> None:
    check_grads(lambda x: x * x, (0.5,), 2)
    check_grads(lambda d: d["a"] * jnp.exp(d["b"][0]), ({"a": X, "b": [X]},), 2)
    # Integer arguments are held fixed, as in JAX (where their tangents are float0).
    check_grads(lambda x, n: lax.integer_pow(x, 2) * n, (X, np.int32(3)), 2)
    check_grads(lambda x: (jnp.sin(x), jnp.argmax(x)), (X,), 2)


def test_lower_precision_and_x64() -> None:
    check_grads(jnp.sin, (X.astype(jnp.bfloat16),), 2)
    check_grads(jnp.sin, (X.astype(np.float16),), 2)
    with numjax.experimental.enable_x64():
        check_grads(jnp.sin, (X.astype(np.float64),), 2)
        check_grads(jnp.sin, (X,), 2)  # float32 inputs, float64 differences


def test_complex() -> None:
    z = (X + 1j * X[::-1]).astype(np.complex64)
    check_grads(lambda z: lax.real(z * z), (z,), 2)
    check_grads(lambda z: z * lax.conj(z), (z,), 2)


def test_wrong_jvp_is_caught() -> None:
    with pytest.raises(AssertionError, match="JVP tangent"):
        check_grads(bad_sin_p.bind, (X,), 1, modes=["fwd"])
    with pytest.raises(AssertionError, match="VJP cotangent projection"):
        check_grads(bad_sin_p.bind, (X,), 1, modes=["rev"])


def test_wrong_second_derivative_is_caught_at_order_two() -> None:
    check_grads(sin2_p.bind, (X,), 1)
    with pytest.raises(AssertionError, match="JVP of JVP tangent"):
        check_grads(sin2_p.bind, (X,), 2, modes=["fwd"])
    with pytest.raises(AssertionError, match="VJP of VJP cotangent projection"):
        check_grads(sin2_p.bind, (X,), 2, modes=["rev"])


def test_wrong_transpose_is_caught() -> None:
    check_grads(triple_p.bind, (X,), 2)
    check_grads(triple_bad_p.bind, (X,), 1, modes=["fwd"])
    with pytest.raises(AssertionError, match="VJP cotangent projection"):
        check_grads(triple_bad_p.bind, (X,), 1, modes=["rev"])


def test_small_transpose_error_is_caught_by_jvp_vjp_consistency() -> None:
    check_grads(triple_slightly_bad_p.bind, (X,), 1, modes=["rev"])  # below FD tolerance
    with pytest.raises(AssertionError, match="VJP does not transpose JVP"):
        check_grads(triple_slightly_bad_p.bind, (X,), 1)


def test_check_jvp_and_check_vjp_directly() -> None:
    check_jvp(jnp.exp, functools.partial(numjax.jvp, jnp.exp), (X,))
    check_vjp(jnp.exp, functools.partial(numjax.vjp, jnp.exp), (X,))
    with pytest.raises(AssertionError, match="mine tangent"):
        check_jvp(jnp.exp, lambda p, t: (jnp.exp(*p), 2 * jnp.exp(*p) * t[0]), (X,),
                  err_msg="mine")


def test_tolerances() -> None:
    # An error of 10% passes a 5% tolerance (scaled by the 12 elements, as in JAX) and fails
    # the float32 default.
    off = lambda p, t: (jnp.sin(*p), 1.1 * jnp.cos(*p) * t[0])
    check_jvp(jnp.sin, off, (X,), atol=5e-2, rtol=5e-2)
    check_jvp(jnp.sin, off, (X,), atol={np.float32: 5e-2}, rtol={np.float32: 5e-2})
    with pytest.raises(AssertionError):
        check_jvp(jnp.sin, off, (X,))


def test_numerical_jvp_and_check_close() -> None:
    out = numerical_jvp(jnp.square, (X,), (np.ones_like(X),))
    np.testing.assert_allclose(out, 2 * X, rtol=1e-2)
    check_close({"a": X}, {"a": X.copy()})
    with pytest.raises(AssertionError, match="shapes differ"):
        check_close(X, X[0])


def test_bad_mode() -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        check_grads(jnp.sin, (X,), 1, modes=["backward"])
