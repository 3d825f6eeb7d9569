"""Collectives over vmap's named axes, against NumPy computations of the same result."""

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax

X = np.arange(1.0, 5.0, dtype=np.float32)


def vm(f, x=X):
    return np.asarray(jax.vmap(f, axis_name="i")(jnp.asarray(x)))


def test_reductions_and_index():
    np.testing.assert_allclose(vm(lambda x: lax.psum(x, "i")), np.full(4, X.sum()))
    np.testing.assert_allclose(vm(lambda x: lax.pmean(x, "i")), np.full(4, X.mean()))
    np.testing.assert_allclose(vm(lambda x: lax.pmax(x, "i")), np.full(4, X.max()))
    np.testing.assert_allclose(vm(lambda x: lax.pmin(x, "i")), np.full(4, X.min()))
    np.testing.assert_array_equal(vm(lambda x: lax.axis_index("i")), np.arange(4))
    np.testing.assert_allclose(vm(lambda x: lax.psum(1.0, "i")), np.full(4, 4.0))


def test_gather_permute_all_to_all():
    np.testing.assert_allclose(vm(lambda x: lax.all_gather(x, "i")), np.tile(X, (4, 1)))
    perm = [(0, 1), (1, 2), (2, 3)]
    np.testing.assert_allclose(vm(lambda x: lax.ppermute(x, "i", perm)), [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(vm(lambda x: lax.pshuffle(x, "i", [3, 2, 1, 0])), X[::-1])
    m = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    np.testing.assert_allclose(vm(lambda x: lax.all_to_all(x, "i", 0, 0), m), m.T)


def test_nested_names_and_gradients():
    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    inner = jax.vmap(jax.vmap(lambda x: lax.psum(x, "j"), axis_name="j"), axis_name="i")
    np.testing.assert_allclose(inner(m), np.repeat(m.sum(1, keepdims=True), 3, 1))
    outer = jax.vmap(jax.vmap(lambda x: lax.psum(x, "i"), axis_name="j"), axis_name="i")
    np.testing.assert_allclose(outer(m), np.tile(m.sum(0), (2, 1)))
    both = jax.vmap(jax.vmap(lambda x: lax.psum(x, ("i", "j")), axis_name="j"),
                    axis_name="i")
    np.testing.assert_allclose(both(m), np.full((2, 3), m.sum()))

    def loss(xs):
        return jax.vmap(lambda x: x * lax.psum(x, "i"), axis_name="i")(xs).sum()

    # d/dx_k sum_i x_i * S = S + sum_i x_i = 2S
    np.testing.assert_allclose(jax.grad(loss)(X), np.full(4, 2 * X.sum()), rtol=1e-6)
    centered = jax.jit(jax.vmap(lambda x: x - lax.pmean(x, "i"), axis_name="i"))(X)
    np.testing.assert_allclose(centered, X - X.mean())


def test_unbound_axis_name():
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.psum(1.0, "i")
