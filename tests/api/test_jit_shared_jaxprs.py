"""A jaxpr traced once and used several times inside one compiled program.

Tracing caches make higher-order primitives share one jaxpr between calls (two calls of a
jitted helper, two scans of one body, ...). Every such path is called two and three times with
different operands here, under jit against eager evaluation, so that no compiler pass can merge
the copies (a merged copy returns the first call's result for the second).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax

f32 = np.float32


def _assert_tree_close(actual: Any, expected: Any) -> None:
    a_leaves, a_tree = jax.tree_util.tree_flatten(actual)
    e_leaves, e_tree = jax.tree_util.tree_flatten(expected)
    assert a_tree == e_tree
    for a, e in zip(a_leaves, e_leaves, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(e), rtol=2e-6, atol=1e-6)


def test_jitted_helper_called_twice_inside_jit() -> None:
    # JAX 0.4.30: ([3, 3], [1, 1]).
    g = jax.jit(lambda u: u * 2 + 1)
    first, second = jax.jit(lambda a, b: (g(a), g(b)))(jnp.ones(2), jnp.zeros(2))
    np.testing.assert_array_equal(np.asarray(first), [3.0, 3.0])
    np.testing.assert_array_equal(np.asarray(second), [1.0, 1.0])
    assert "return (d_, d_)" not in jax.jit(lambda a, b: (g(a), g(b))).lower(
        jnp.ones(2), jnp.zeros(2)).compile().as_text()


def _xent(params: Any, x: Any, y: Any) -> Any:
    logits = x @ params
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 3), axis=-1))


def test_two_batch_cross_entropy_value_and_grad() -> None:
    # numjax's own jitted nn functions (log_softmax, one_hot) run twice in one program.
    # Values recorded from JAX 0.4.30 on the same program.
    rng = np.random.default_rng(0)
    p = jnp.asarray(rng.normal(size=(4, 3)).astype(f32))
    x1 = jnp.asarray(rng.normal(size=(5, 4)).astype(f32))
    y1 = jnp.array([0, 1, 2, 1, 0])
    x2 = jnp.asarray(rng.normal(size=(5, 4)).astype(f32) * 3)
    y2 = jnp.array([2, 2, 1, 0, 1])

    def loss(params: Any) -> Any:
        return _xent(params, x1, y1) + _xent(params, x2, y2)

    value, grad = jax.jit(jax.value_and_grad(loss))(p)
    np.testing.assert_allclose(float(value), 4.2612457275390625, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(grad), [
        [0.6374537944793701, -0.9869965314865112, 0.349542498588562],
        [1.8364307880401611, -1.7252850532531738, -0.1111457347869873],
        [0.48552194237709045, 0.25262320041656494, -0.738145112991333],
        [-1.111928105354309, 2.2147769927978516, -1.102849006652832]], rtol=1e-5, atol=1e-6)


@jax.custom_jvp
def _cj(x: Any) -> Any:
    return jnp.sin(x) * 3.0


@_cj.defjvp
def _cj_jvp(primals: Any, tangents: Any) -> Any:
    (x,), (t,) = primals, tangents
    return _cj(x), 3.0 * jnp.cos(x) * t


@jax.custom_vjp
def _cv(x: Any) -> Any:
    return jnp.exp(x) - x


def _cv_fwd(x: Any) -> Any:
    return _cv(x), x


def _cv_bwd(x: Any, ct: Any) -> Any:
    return ((jnp.exp(x) - 1.0) * ct,)


_cv.defvjp(_cv_fwd, _cv_bwd)


def _body(c: Any, x: Any) -> Any:
    c = c * 0.5 + jnp.tanh(x)
    return c, c * x


_remat = jax.checkpoint(lambda x: jnp.sin(jnp.cos(x)) * x)


def _branch_a(x: Any) -> Any:
    return x * 2.0 + 1.0


def _branch_b(x: Any) -> Any:
    return jnp.cos(x) - x


def _pure_host(x: Any) -> Any:
    return jax.pure_callback(lambda v: np.asarray(v) * 3.0 + 1.0,
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x)


# (name, f(x) applied to three different operands in one program).
CALL_PATHS: list[tuple[str, Callable[[Any], Any]]] = [
    ("pjit", jax.jit(lambda x: x * 2 + 1)),
    ("pjit_nested", jax.jit(lambda x: jax.jit(lambda y: y * y - 1)(x) + 1)),
    ("custom_jvp", _cj),
    ("custom_vjp", _cv),
    ("checkpoint", _remat),
    ("cond", lambda x: lax.cond(x.sum() > 0, _branch_a, _branch_b, x)),
    ("switch", lambda x: lax.switch((x.sum() > 0).astype(int), [_branch_a, _branch_b], x)),
    ("scan", lambda x: lax.scan(_body, jnp.zeros(()), x)[1]),
    ("while", lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 1.5 + 1),
                                       (0, x))[1]),
    ("fori_loop", lambda x: lax.fori_loop(0, 3, lambda i, c: c * 0.5 + i, x)),
    ("map", lambda x: lax.map(_branch_b, x)),
    ("pure_callback", _pure_host),
    ("nn.log_softmax", jax.nn.log_softmax),
    ("nn.softplus", jax.nn.softplus),
    ("nn.selu", jax.nn.selu),
    ("nn.elu", jax.nn.elu),
    ("nn.celu", jax.nn.celu),
    ("nn.standardize", jax.nn.standardize),
    ("nn.one_hot", lambda x: jax.nn.one_hot(jnp.abs(x * 2).astype(int) % 3, 3)),
]

OPERANDS = [np.linspace(-1.0, 2.0, 4, dtype=f32), np.linspace(0.5, -3.0, 4, dtype=f32),
            np.array([3.0, -0.25, 0.0, 1.5], f32)]


@pytest.mark.parametrize("times", [2, 3])
@pytest.mark.parametrize("name,fun", CALL_PATHS, ids=[n for n, _ in CALL_PATHS])
def test_shared_jaxpr_called_repeatedly(name: str, fun: Callable[[Any], Any],
                                        times: int) -> None:
    def program(*xs: Any) -> Any:
        return tuple(fun(x) for x in xs)

    xs = [jnp.asarray(x) for x in OPERANDS[:times]]
    expected = tuple(fun(x) for x in xs)
    _assert_tree_close(jax.jit(program)(*xs), expected)
    # The same through a jitted helper that itself calls the path twice.
    twice = jax.jit(lambda a, b: (fun(a), fun(b)))
    _assert_tree_close(jax.jit(lambda *ys: [twice(ys[0], ys[-1]), twice(ys[-1], ys[0])])(*xs),
                       [(expected[0], expected[-1]), (expected[-1], expected[0])])


# Reverse mode of a while_loop is JAX's ValueError; one_hot and callbacks have no gradient.
DIFFERENTIABLE = [(n, f) for n, f in CALL_PATHS if n not in ("nn.one_hot", "pure_callback",
                                                              "while")]


@pytest.mark.parametrize("name,fun", DIFFERENTIABLE, ids=[n for n, _ in DIFFERENTIABLE])
def test_shared_jaxpr_gradients_under_jit(name: str, fun: Callable[[Any], Any]) -> None:
    def loss(a: Any, b: Any) -> Any:
        return jnp.sum(fun(a) * 1.5) + jnp.sum(fun(b) ** 2)

    a, b = jnp.asarray(OPERANDS[0]), jnp.asarray(OPERANDS[1])
    _assert_tree_close(jax.jit(jax.grad(loss, argnums=(0, 1)))(a, b),
                       jax.grad(loss, argnums=(0, 1))(a, b))


@pytest.mark.parametrize("name,fun", CALL_PATHS, ids=[n for n, _ in CALL_PATHS])
def test_shared_jaxpr_vmapped_under_jit(name: str, fun: Callable[[Any], Any]) -> None:
    def both(x: Any, y: Any) -> Any:
        return fun(x), fun(y)

    a, b = jnp.asarray(OPERANDS[0])[:, None], jnp.asarray(OPERANDS[1])[:, None]
    _assert_tree_close(jax.jit(jax.vmap(both))(a, b), jax.vmap(both)(a, b))


def test_debug_callbacks_twice_see_each_operand() -> None:
    seen: list[list[float]] = []
    record = jax.jit(lambda x: jax.debug.callback(lambda v: seen.append(np.asarray(v).tolist()),
                                                  x * 2))
    jax.jit(lambda a, b: (record(a), record(b)))(jnp.ones(2), jnp.arange(2.0))
    jax.effects_barrier()
    assert seen == [[2.0, 2.0], [0.0, 2.0]]
