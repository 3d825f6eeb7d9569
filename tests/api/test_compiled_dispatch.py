"""A compiled program runs its kernels and nothing else: no primitive is dispatched eagerly
while it runs (each eager dispatch is a Python-level call costing microseconds, which a
sampler's loop body would pay per operation per iteration)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.core import trace


@pytest.fixture
def eager_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the primitives dispatched eagerly while the test runs."""
    calls: list[str] = []
    original = trace.eager_apply

    def counting(primitive: Any, args: Any, params: Any) -> Any:
        calls.append(primitive.name)
        return original(primitive, args, params)

    monkeypatch.setattr(trace, "eager_apply", counting)
    yield calls


def _log_density(q: Any) -> Any:
    # Powers of every kind (integer_pow with 2, 3 and -1), a dot, a gather.
    scale = jnp.array([1.0, 2.0, 0.5])
    return (-0.5 * jnp.sum((q / scale) ** 2) - 0.1 * jnp.sum(q ** 3) ** 2
            + 0.01 * jnp.sum(1.0 / (1.0 + q ** 2)) + q @ jnp.ones(3) * 0.0 + q[jnp.array(1)])


def _hmc(key: Any, q0: Any, steps: int) -> Any:
    """Hamiltonian Monte Carlo with a leapfrog `fori_loop` inside a `while_loop` of draws."""
    grad = jax.grad(_log_density)

    def leapfrog(_: Any, state: Any) -> Any:
        q, p = state
        p = p + 0.05 * grad(q)
        q = q + 0.1 * p
        p = p + 0.05 * grad(q)
        return q, p

    def draw(state: Any) -> Any:
        i, key, q, total = state
        key, k_momentum, k_accept = jax.random.split(key, 3)
        p = jax.random.normal(k_momentum, q.shape)
        q_new, p_new = lax.fori_loop(0, 5, leapfrog, (q, p))
        log_ratio = (_log_density(q_new) - 0.5 * p_new @ p_new
                     - _log_density(q) + 0.5 * p @ p)
        accept = jnp.log(jax.random.uniform(k_accept)) < log_ratio
        q = lax.cond(accept, lambda: q_new, lambda: q)
        return i + 1, key, q, total + q

    _, _, q, total = lax.while_loop(lambda s: s[0] < steps, draw,
                                    (0, key, q0, jnp.zeros_like(q0)))
    return q, total / steps


def test_a_jitted_sampler_dispatches_nothing_eagerly(eager_calls: list[str]) -> None:
    run = jax.jit(_hmc, static_argnums=2)
    key, q0 = jax.random.PRNGKey(0), jnp.zeros(3)
    first = run(key, q0, 20)
    del eager_calls[:]  # tracing and compiling may dispatch (constants, keys)
    second = run(key, q0, 20)
    jax.block_until_ready(second)
    assert eager_calls == []
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_a_jitted_scan_of_draws_dispatches_nothing_eagerly(eager_calls: list[str]) -> None:
    def body(carry: Any, key: Any) -> Any:
        x = carry + jax.random.normal(key, (2,)) ** 2 - carry ** -1 * 0.01
        return x, jnp.sum(x ** 3)

    run = jax.jit(lambda keys: lax.scan(body, jnp.ones(2), keys))
    keys = jax.random.split(jax.random.PRNGKey(1), 50)
    run(keys)
    del eager_calls[:]
    jax.block_until_ready(run(keys))
    assert eager_calls == []


@pytest.mark.parametrize("y", [-3, -2, -1, 0, 1, 2, 3, 7, 12])
def test_integer_pow_under_jit_equals_eager_products(y: int) -> None:
    x = np.array([0.5, -1.25, 3.0, -2.0], np.float32)
    got = np.asarray(jax.jit(lambda v: lax.integer_pow(v, y))(x))
    want = np.ones_like(x)
    for _ in range(abs(y)):
        want = want * x
    if y < 0:
        want = np.float32(1) / want
    np.testing.assert_allclose(got, want, rtol=2e-7)
    np.testing.assert_array_equal(got, np.asarray(lax.integer_pow(x, y)))


def test_calls_with_trees_of_arrays_take_the_hot_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once compiled, a call whose arguments are Arrays or NumPy arrays in tuples, lists and
    dicts (an optimizer's state) is looked up by their avals and tree and run without the
    general path; another tree, a Python scalar leaf or a new aval takes the general path and
    its own program."""
    from numjax._src.api.jit import JitWrapped

    prepared: list[int] = []
    original = JitWrapped._prepare

    def counting(self: Any, args: Any, kwargs: Any) -> Any:
        prepared.append(1)
        return original(self, args, kwargs)

    monkeypatch.setattr(JitWrapped, "_prepare", counting)

    def f(state: Any, x: Any) -> Any:
        leaves = jax.tree_util.tree_leaves(state)
        return [sum(leaf.sum() for leaf in leaves) * x, len(leaves)]

    run = jax.jit(f)
    a, b = jnp.arange(3.0), jnp.ones((2, 2))
    cases = [((a, {"u": b, "v": [a]}), a, 10.0), ((a, {"u": b, "v": [a]}), np.ones(3, np.float32),
                                                   10.0),
             ([a, {"u": b, "v": [a]}], a, 10.0), ((a, {"u": b, "w": [a]}), a, 10.0),
             ((a, {"u": b, "v": (a,)}), a, 10.0), ((a, {"u": b, "v": [2.0]}), a, 9.0),
             ((a, {"u": b}), a, 7.0), ((b, {"u": a, "v": [a]}), a, 10.0)]
    for state, x, total in cases:
        for _ in range(2):
            out = run(state, x)
            np.testing.assert_allclose(np.asarray(out[0]), total * np.asarray(x))
            assert int(out[1]) == len(jax.tree_util.tree_leaves(state))
    del prepared[:]
    for state, x, _ in cases:
        if not any(isinstance(leaf, float) for leaf in jax.tree_util.tree_leaves(state)):
            run(state, x)
    assert prepared == []
    with jax.transfer_guard("disallow"), pytest.raises(Exception, match=r"float32\[3\]"):
        run(cases[1][0], np.ones(3, np.float32))  # a NumPy leaf is guarded on the hot path too
