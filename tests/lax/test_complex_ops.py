"""complex, real, imag, conj: impl, abstract eval, jvp/transpose (JAX's convention), vmap."""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax

SHAPES = [(), (3,), (2, 4)]


def _rand(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


@pytest.mark.parametrize("shape", SHAPES)
def test_impl(shape: tuple[int, ...]) -> None:
    x, y = _rand(shape), _rand(shape, 1)
    z = lax.complex(jnp.asarray(x), jnp.asarray(y))
    assert z.dtype == np.complex64 and z.shape == shape
    np.testing.assert_array_equal(np.asarray(z), x + 1j * y)
    np.testing.assert_array_equal(np.asarray(lax.real(z)), x)
    np.testing.assert_array_equal(np.asarray(lax.imag(z)), y)
    np.testing.assert_array_equal(np.asarray(lax.conj(z)), x - 1j * y)
    assert lax.conj(jnp.asarray(x)).dtype == np.complex64  # real input: complex embedding
    for f in (lambda v: lax.real(v), lambda v: lax.imag(v), lambda v: lax.conj(v)):
        aval = numjax.eval_shape(f, z)
        assert (aval.shape, aval.dtype) == (f(z).shape, f(z).dtype)


def test_vjps_match_jax() -> None:
    x, y = jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0])
    ct = jnp.array([1 + 2j, 3 + 4j], dtype=jnp.complex64)
    # Values recorded from JAX 0.4.30.
    cx, cy = numjax.vjp(lax.complex, x, y)[1](ct)
    np.testing.assert_array_equal(np.asarray(cx), [1.0, 3.0])
    np.testing.assert_array_equal(np.asarray(cy), [-2.0, -4.0])
    z = lax.complex(x, y)
    (cz,) = numjax.vjp(lax.imag, z)[1](jnp.array([1.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(cz), [-1j, -2j])
    (cz,) = numjax.vjp(lax.conj, z)[1](ct)
    np.testing.assert_array_equal(np.asarray(cz), [1 - 2j, 3 - 4j])
    (cx,) = numjax.vjp(lax.conj, x)[1](ct)
    np.testing.assert_array_equal(np.asarray(cx), [1.0, 3.0])
    (cz,) = numjax.vjp(lax.real, z)[1](jnp.array([1.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(cz), [1 + 0j, 2 + 0j])


def test_jvp_is_linear() -> None:
    x, y, tx, ty = (jnp.asarray(_rand((3,), s)) for s in range(4))
    _, t = numjax.jvp(lax.complex, (x, y), (tx, ty))
    np.testing.assert_allclose(np.asarray(t), np.asarray(tx) + 1j * np.asarray(ty))
    z, tz = lax.complex(x, y), lax.complex(tx, ty)
    for f, ref in ((lax.real, np.real), (lax.imag, np.imag), (lax.conj, np.conj)):
        _, t = numjax.jvp(f, (z,), (tz,))
        np.testing.assert_allclose(np.asarray(t), ref(np.asarray(tz)))
    assert float(numjax.grad(lambda v: lax.real(lax.conj(v)))(1.0)) == 1.0


@pytest.mark.parametrize("dims", [(0, 0), (0, None), (None, 1)])
def test_vmap(dims: tuple[int | None, int | None]) -> None:
    full = [_rand((3, 3), 0), _rand((3, 3), 1)]
    args = [a if d is not None else a[0] for a, d in zip(full, dims, strict=False)]
    out = numjax.vmap(lambda a, b: lax.conj(lax.complex(a, b)), dims)(
        *[jnp.asarray(a) for a in args])
    take = lambda a, d, i: a if d is None else np.take(a, i, d)
    loop = [take(args[0], dims[0], i) - 1j * take(args[1], dims[1], i) for i in range(3)]
    np.testing.assert_allclose(np.asarray(out), np.stack(loop))


def test_errors() -> None:
    with pytest.raises(TypeError, match="complex does not accept dtype int32"):
        lax.complex(jnp.zeros(2), jnp.zeros(2, jnp.int32))
    with pytest.raises(TypeError, match="real does not accept dtype float32"):
        lax.real(jnp.zeros(2))
    with pytest.raises(TypeError, match="conj does not accept dtype int32"):
        lax.conj(jnp.int32(1))


@pytest.mark.parametrize("tangent,expected", [
    # JAX 0.4.30: the jvp of abs's vjp at 3+4j (the second derivative of |z|)
    (1.0 + 0j, 0.12799999 + 0.096j), (1j, -0.096 - 0.072j),
])
def test_second_derivative_of_complex_abs(tangent, expected) -> None:
    z = np.complex64(3 + 4j)

    def vjp_abs(z):
        return numjax.vjp(lax.abs, z)[1](np.float32(1.0))[0]

    assert complex(vjp_abs(z)) == pytest.approx(0.6 - 0.8j)
    out = numjax.jvp(vjp_abs, (z,), (np.complex64(tangent),))[1]
    np.testing.assert_allclose(complex(out), expected, rtol=1e-6, atol=1e-7)
    # |x| = 0: the first derivative is finite (t conj(0) / 1)
    assert float(numjax.jvp(lax.abs, (np.complex64(0),), (np.complex64(1),))[1]) == 0.0
