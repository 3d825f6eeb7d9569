"""Generated code and host memory: products computed in their consumer's layout, product
results reused as `out=` buffers, freed host memory kept for the next allocation."""

import re
import resource
import sys

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.runtime import host_memory

f32 = np.float32


def _rand(*shape, seed=0):
    return jnp.asarray(np.random.default_rng(seed).normal(size=shape).astype(f32))


def test_a_weight_gradient_is_one_product_without_a_transpose():
    loss = lambda w, x: jnp.tanh(x @ w).sum()
    w, x = _rand(5, 3), _rand(4, 5, seed=1)
    f = jax.jit(jax.grad(loss))
    text = f.lower(w, x).as_text()
    assert "transpose" not in text and text.count("dot_general") >= 2
    np.testing.assert_allclose(f(w, x), jax.grad(loss)(w, x), rtol=1e-6)
    # make_jaxpr still shows the transpose the differentiation rule wrote
    assert "transpose" in str(jax.make_jaxpr(jax.grad(loss))(w, x))


DOT_PROGRAMS = {
    # (batch, lhs free, rhs free) -> (batch, rhs free, lhs free): folded
    "matrix": (lambda a, b: lax.transpose(a @ b, (1, 0)), (3, 4), (4, 5), True),
    "batched": (lambda a, b: lax.transpose(
        lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))), (0, 2, 1)),
        (2, 3, 4), (2, 4, 5), True),
    "two_free_dims": (lambda a, b: lax.transpose(
        lax.dot_general(a, b, (((1,), (0,)), ((), ()))), (2, 3, 0, 1)),
        (3, 4, 2), (4, 5, 6), True),
    # other permutations and shared products keep their transpose
    "partial_permutation": (lambda a, b: lax.transpose(
        lax.dot_general(a, b, (((1,), (0,)), ((), ()))), (1, 0, 2)),
        (3, 4, 2), (4, 5), False),
    "product_read_twice": (lambda a, b: (lambda y: (lax.transpose(y, (1, 0)), y * 2.0))(a @ b),
                           (3, 4), (4, 5), False),
}


@pytest.mark.parametrize("name", sorted(DOT_PROGRAMS))
def test_transposed_products_fold_only_when_exact(name):
    fun, a_shape, b_shape, folds = DOT_PROGRAMS[name]
    a, b = _rand(*a_shape), _rand(*b_shape, seed=2)
    f = jax.jit(fun)
    assert ("transpose" not in f.lower(a, b).as_text()) == folds
    for e, j in zip(jax.tree_util.tree_leaves(fun(a, b)),
                    jax.tree_util.tree_leaves(f(a, b)), strict=True):
        assert e.shape == j.shape and e.dtype == j.dtype
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-5, atol=1e-6)
        assert np.asarray(j).flags.c_contiguous or not folds


def test_a_dead_product_takes_the_next_elementwise_result():
    f = jax.jit(lambda x, w, b: jnp.tanh(x @ w + b))
    x, w, b = _rand(4, 3), _rand(3, 5, seed=1), _rand(5, seed=2)
    text = f.lower(x, w, b).as_text()
    product = re.search(r"(\w+) = dot_general\w*\(", text).group(1)
    assert re.search(rf"np\.add\({product}, \w+, out={product}\)", text), text
    np.testing.assert_allclose(f(x, w, b), jnp.tanh(x @ w + b), rtol=1e-6)


def test_a_product_that_is_an_output_is_never_overwritten():
    def fun(x, w):
        y = x @ w
        return y, y + 1.0

    x, w = _rand(3, 3), _rand(3, 3, seed=1)
    y, z = jax.jit(fun)(x, w)
    np.testing.assert_allclose(z, np.asarray(y) + 1.0, rtol=1e-6)
    np.testing.assert_allclose(y, np.asarray(x) @ np.asarray(w), rtol=1e-5)


def test_heap_retention_option_is_validated():
    for bad in (-1, 1.5, True, "64"):
        with pytest.raises(ValueError, match="numjax_host_heap_retain_bytes"):
            jax.config.update("numjax_host_heap_retain_bytes", bad)
    assert jax.config.numjax_host_heap_retain_bytes == 256 << 20


@pytest.mark.skipif(not sys.platform.startswith("linux") or host_memory._mallopt() is None,
                    reason="the heap thresholds are glibc's")
def test_freed_buffers_are_reused_without_page_faults():
    assert host_memory.tuned
    size = (4 << 20) // 4  # 4 MB of float32: above glibc's default mmap threshold

    def churn():
        for _ in range(10):
            a = np.ones(size, f32)
            b = a * 2.0
            del a, b

    churn()  # the first round takes the pages
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    churn()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    # with glibc's defaults each round maps fresh pages: ~2 x 1024 faults per iteration
    assert faults < 500, faults


@pytest.mark.skipif(not sys.platform.startswith("linux") or host_memory._mallopt() is None,
                    reason="the heap thresholds are glibc's")
def test_heap_retention_can_be_switched_off_and_on():
    try:
        jax.config.update("numjax_host_heap_retain_bytes", 0)
        assert not host_memory.tuned
    finally:
        jax.config.update("numjax_host_heap_retain_bytes", 256 << 20)
    assert host_memory.tuned
