"""Collectives over vmap's named axes, against NumPy computations of the same result."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax

X = np.arange(1.0, 5.0, dtype=np.float32)


def vm(f: Any, x: Any = X) -> Any:
    return np.asarray(jax.vmap(f, axis_name="i")(jnp.asarray(x)))


def test_reductions_and_index() -> None:
    np.testing.assert_allclose(vm(lambda x: lax.psum(x, "i")), np.full(4, X.sum()))
    np.testing.assert_allclose(vm(lambda x: lax.pmean(x, "i")), np.full(4, X.mean()))
    np.testing.assert_allclose(vm(lambda x: lax.pmax(x, "i")), np.full(4, X.max()))
    np.testing.assert_allclose(vm(lambda x: lax.pmin(x, "i")), np.full(4, X.min()))
    np.testing.assert_array_equal(vm(lambda x: lax.axis_index("i")), np.arange(4))
    np.testing.assert_allclose(vm(lambda x: lax.psum(1.0, "i")), np.full(4, 4.0))


def test_gather_permute_all_to_all() -> None:
    np.testing.assert_allclose(vm(lambda x: lax.all_gather(x, "i")), np.tile(X, (4, 1)))
    perm = [(0, 1), (1, 2), (2, 3), (3, 0)]
    np.testing.assert_allclose(vm(lambda x: lax.ppermute(x, "i", perm)), [4.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(vm(lambda x: lax.pshuffle(x, "i", [3, 2, 1, 0])), X[::-1])
    m = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    np.testing.assert_allclose(vm(lambda x: lax.all_to_all(x, "i", 0, 0), m), m.T)


def test_nested_names_and_gradients() -> None:
    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    inner = jax.vmap(jax.vmap(lambda x: lax.psum(x, "j"), axis_name="j"), axis_name="i")
    np.testing.assert_allclose(inner(m), np.repeat(m.sum(1, keepdims=True), 3, 1))
    outer = jax.vmap(jax.vmap(lambda x: lax.psum(x, "i"), axis_name="j"), axis_name="i")
    np.testing.assert_allclose(outer(m), np.tile(m.sum(0), (2, 1)))
    both = jax.vmap(jax.vmap(lambda x: lax.psum(x, ("i", "j")), axis_name="j"),
                    axis_name="i")
    np.testing.assert_allclose(both(m), np.full((2, 3), m.sum()))

    def loss(xs: Any) -> Any:
        return jax.vmap(lambda x: x * lax.psum(x, "i"), axis_name="i")(xs).sum()

    # d/dx_k sum_i x_i * S = S + sum_i x_i = 2S
    np.testing.assert_allclose(jax.grad(loss)(X), np.full(4, 2 * X.sum()), rtol=1e-6)
    centered = jax.jit(jax.vmap(lambda x: x - lax.pmean(x, "i"), axis_name="i"))(X)
    np.testing.assert_allclose(centered, X - X.mean())


def test_unbound_axis_name() -> None:
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.psum(1.0, "i")


INSIDE_HIGHER_ORDER = {
    # collectives inside a primitive that batches a whole jaxpr see the vmap's axis
    "jit_psum": (jax.jit(lambda x: lax.psum(x, "i")), np.full(4, X.sum())),
    "jit_axis_index": (jax.jit(lambda x: x + lax.axis_index("i")), X + np.arange(4)),
    "jit_pmean": (jax.jit(lambda x: x - lax.pmean(x, "i")), X - X.mean()),
    "jit_all_gather": (jax.jit(lambda x: lax.all_gather(x, "i")), np.tile(X, (4, 1))),
    "grad_of_jit": (jax.grad(jax.jit(lambda x: lax.psum(x, "i") * x)),
                    np.full(4, 2 * X.sum())),
    "scan": (lambda x: lax.scan(lambda c, _: (c + lax.psum(x, "i"), None), 0.0, None,
                                length=2)[0], np.full(4, 2 * X.sum())),
    "cond": (lambda x: lax.cond(True, lambda x: lax.psum(x, "i"), lambda x: x, x),
             np.full(4, X.sum())),
    "while": (lambda x: lax.while_loop(lambda c: c[0] < 2,
                                       lambda c: (c[0] + 1, c[1] + lax.psum(x, "i")),
                                       (0, 0.0))[1], np.full(4, 2 * X.sum())),
}


@pytest.mark.parametrize("name", sorted(INSIDE_HIGHER_ORDER))
def test_collectives_inside_jit_and_control_flow_under_vmap(name: str) -> None:
    fun, expected = INSIDE_HIGHER_ORDER[name]
    np.testing.assert_allclose(vm(fun), expected, rtol=1e-6)


def _while_below_index(x: Any) -> Any:
    return lax.while_loop(lambda x: x < lax.axis_index("i"), lambda x: x + 2, x)


# Functions of an unbatched operand that read the axis inside a jaxpr: the result varies along
# the axis all the same. JAX 0.4.30's values for vmap(lambda _, x: f(x), axis_name='i',
# in_axes=(0, None))(zeros(4, int32), 0), each int32.
UNBATCHED_OPERAND = {
    "while": (_while_below_index, [0, 2, 2, 4]),
    "add": (lambda x: lax.axis_index("i") + x, [0, 1, 2, 3]),
    "scan": (lambda x: lax.scan(lambda c, _: (c + lax.axis_index("i"), None), x, None,
                                length=3)[0], [0, 3, 6, 9]),
    "cond": (lambda x: lax.cond(x > 0, lambda x: x, lambda x: x + lax.axis_index("i"), x),
             [0, 1, 2, 3]),
    "psum": (lambda x: lax.psum(x, "i"), [0, 0, 0, 0]),
}


@pytest.mark.parametrize("jitted", [False, True])
@pytest.mark.parametrize("name", sorted(UNBATCHED_OPERAND))
def test_axis_read_inside_a_jaxpr_of_unbatched_operands(name: str, jitted: bool) -> None:
    fun, expected = UNBATCHED_OPERAND[name]
    f = jax.jit(fun) if jitted else fun
    out = jax.vmap(lambda _, x: f(x), axis_name="i", in_axes=(0, None))(
        np.zeros(4, np.int32), 0)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expected)


def test_axis_index_in_a_jit_of_no_arguments() -> None:
    """JAX 0.4.30: [0 1 2], and 1. * the index's gradient through a jit of x * index."""
    out = jax.vmap(lambda _: jax.jit(lambda: lax.axis_index("i"))(), axis_name="i")(np.ones(3))
    np.testing.assert_array_equal(out, [0, 1, 2])
    grads = jax.vmap(jax.grad(lambda x: jax.jit(lambda y: y * lax.axis_index("i"))(x) * 1.0),
                     axis_name="i")(np.ones(3, np.float32))
    np.testing.assert_array_equal(grads, [0.0, 1.0, 2.0])


def test_nested_vmaps_batch_a_jit_over_each_name() -> None:
    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    both = jax.vmap(jax.vmap(jax.jit(lambda x: lax.psum(x, ("i", "j"))), axis_name="j"),
                    axis_name="i")
    np.testing.assert_allclose(both(m), np.full((2, 3), m.sum()))
    outer = jax.vmap(jax.vmap(jax.jit(lambda x: lax.psum(x, "i")), axis_name="j"),
                     axis_name="i")
    np.testing.assert_allclose(outer(m), np.tile(m.sum(0), (2, 1)))


def test_a_jit_outside_any_vmap_still_has_no_axis() -> None:
    with pytest.raises(NameError, match="unbound axis name: i"):
        jax.jit(lambda x: lax.psum(x, "i"))(X)


@pytest.mark.parametrize("perm", [[(0, 1), (1, 2), (2, 3)], [(0, 1)], []])
@pytest.mark.parametrize("transform", ["eager", "jit", "grad"])
def test_vmap_ppermute_needs_a_whole_permutation(perm, transform):
    # JAX 0.4.30's batch rule: AssertionError "Permutation doesn't match the axis size!".
    f = jax.vmap(lambda x: lax.ppermute(x, "i", perm), axis_name="i")
    run = {"eager": f, "jit": jax.jit(f), "grad": jax.grad(lambda x: f(x).sum())}[transform]
    with pytest.raises(AssertionError, match="^Permutation doesn't match the axis size!"):
        run(jnp.asarray(X))
