"""Generated code and host memory: products computed in their consumer's layout, scalar
factors moved onto a product's smaller operand, broadcasts left to NumPy's ufuncs, product
results reused as `out=` buffers, freed host memory kept for the next allocation."""

from __future__ import annotations

import re
import resource
import sys
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.compiler.buffers import private_results
from numjax._src.runtime import host_memory

f32 = np.float32


def _rand(*shape: Any, seed: Any = 0) -> Any:
    return jnp.asarray(np.random.default_rng(seed).normal(size=shape).astype(f32))


def test_a_weight_gradient_is_one_product_without_a_transpose() -> None:
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
def test_transposed_products_fold_only_when_exact(name: str) -> None:
    fun, a_shape, b_shape, folds = DOT_PROGRAMS[name]
    a, b = _rand(*a_shape), _rand(*b_shape, seed=2)
    f = jax.jit(fun)
    assert ("transpose" not in f.lower(a, b).as_text()) == folds
    for e, j in zip(jax.tree_util.tree_leaves(fun(a, b)),
                    jax.tree_util.tree_leaves(f(a, b)), strict=True):
        assert e.shape == j.shape and e.dtype == j.dtype
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-5, atol=1e-6)
        assert np.asarray(j).flags.c_contiguous or not folds


def test_a_dead_product_takes_the_next_elementwise_result() -> None:
    f = jax.jit(lambda x, w, b: jnp.tanh(x @ w + b))
    x, w, b = _rand(4, 3), _rand(3, 5, seed=1), _rand(5, seed=2)
    text = f.lower(x, w, b).as_text()
    product = re.search(r"(\w+) = dot_general\w*\(", text).group(1)
    assert re.search(rf"np\.add\({product}, \w+, out={product}\)", text), text
    np.testing.assert_allclose(f(x, w, b), jnp.tanh(x @ w + b), rtol=1e-6)


def test_a_product_that_is_an_output_is_never_overwritten() -> None:
    def fun(x: Any, w: Any) -> Any:
        y = x @ w
        return y, y + 1.0

    x, w = _rand(3, 3), _rand(3, 3, seed=1)
    y, z = jax.jit(fun)(x, w)
    np.testing.assert_allclose(z, np.asarray(y) + 1.0, rtol=1e-6)
    np.testing.assert_allclose(y, np.asarray(x) @ np.asarray(w), rtol=1e-5)


def test_an_operand_of_a_product_stays_reusable_after_it() -> None:
    # A product's result never aliases its operands, so an intermediate it reads may still
    # take a later elementwise result once dead.
    def fun(x: Any, w: Any) -> Any:
        h = jnp.tanh(x * 2.0)
        y = h @ w
        return y, h * 3.0

    x, w = _rand(4, 4), _rand(4, 4, seed=1)
    f = jax.jit(fun)
    text = f.lower(x, w).as_text()
    h = re.search(r"(\w+) = np\.tanh\(", text).group(1)
    assert re.search(rf"np\.multiply\({h}, \w+, out={h}\)", text), text
    y, z = f(x, w)
    h_ref = np.tanh(np.asarray(x) * 2.0)
    np.testing.assert_allclose(y, h_ref @ np.asarray(w), rtol=1e-5)
    np.testing.assert_allclose(z, h_ref * 3.0, rtol=1e-6)


def test_cotangent_sums_are_planned_like_additions() -> None:
    # add_any (the sum of two cotangents) lowers to np.add and writes into a dying operand.
    loss = lambda x: (jnp.tanh(x) * x).sum()
    x = _rand(8, 8)
    f = jax.jit(jax.grad(loss))
    text = f.lower(x).as_text()
    assert "add_any" not in text and re.search(r"np\.add\(\w+, \w+, out=\w+\)", text), text
    np.testing.assert_allclose(f(x), jax.grad(loss)(x), rtol=1e-6)
    t = np.tanh(np.asarray(x))
    np.testing.assert_allclose(f(x), t + np.asarray(x) * (1 - t * t), rtol=1e-5)


def test_a_scalar_times_a_product_scales_the_smaller_operand() -> None:
    step = lambda w, x, g: w - 0.01 * (x.T @ g)
    w, x, g = _rand(16, 32), _rand(4, 16, seed=1), _rand(4, 32, seed=2)
    text = jax.jit(step).lower(w, x, g).as_text()
    product = text.index("dot_general")
    scaled = re.search(r"(\w+) = np\.multiply\(\w+, (\w+)\)", text)
    # x (4x16) is scaled before the 16x32 product, not the product after it
    assert scaled and scaled.start() < product, text
    assert scaled.group(1) in text[product:].split("\n")[0]
    np.testing.assert_allclose(jax.jit(step)(w, x, g), step(w, x, g), rtol=1e-5, atol=1e-6)
    # jaxprs keep the multiplication where the program wrote it
    assert str(jax.make_jaxpr(step)(w, x, g)).index("dot_general") < \
        str(jax.make_jaxpr(step)(w, x, g)).index("mul")


SCALED_PRODUCTS = {
    # (function, moved): only a scalar factor, the product's only reader, and a product at
    # least twice the size of an operand
    "weight_update": (lambda x, g: 0.5 * (x.T @ g), True),
    "factor_on_the_right": (lambda x, g: (x.T @ g) * 0.5, True),
    "product_read_twice": (lambda x, g: (lambda y: (y * 0.5, y))(x.T @ g), False),
    "array_factor": (lambda x, g: (x.T @ g) * jnp.full((16, 32), 0.5, f32), False),
    "small_product": (lambda x, g: 0.5 * (x @ x.T), False),
    # the division's rewrite (a multiplication by the reciprocal) is rewritten again
    "divided_by_a_constant": (lambda x, g: (x.T @ g) / 4.0, True),
}


@pytest.mark.parametrize("name", sorted(SCALED_PRODUCTS))
def test_scaled_products_move_only_when_cheaper(name: str) -> None:
    fun, moved = SCALED_PRODUCTS[name]
    x, g = _rand(4, 16, seed=1), _rand(4, 32, seed=2)
    text = jax.jit(fun).lower(x, g).as_text()
    assert (text.index("np.multiply") < text.index("dot_general")) == moved, text
    for e, j in zip(jax.tree_util.tree_leaves(fun(x, g)),
                    jax.tree_util.tree_leaves(jax.jit(fun)(x, g)), strict=True):
        assert e.shape == j.shape and e.dtype == j.dtype
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-5, atol=1e-6)


def test_the_compiler_reads_what_a_primitive_declares() -> None:
    # A primitive of the user's own: the passes know it only through its declared facts.
    from numjax._src.compiler.cost import transcendental
    from numjax._src.compiler.lowering import ufunc_lowering
    from numjax._src.core.avals import ShapedArray
    from numjax._src.core.trace import Primitive
    copy_p = Primitive("my_copy")
    copy_p.def_impl(np.copy)
    copy_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    copy_p.def_lowering(ufunc_lowering(np.copy))
    x = _rand(3)
    f = jax.jit(lambda a: copy_p.bind(a) * 2)
    assert "np.copy" in f.lower(x).as_text()
    assert f.lower(x).cost_analysis()["flops"] == 6.0  # one per output element, twice
    copy_p.is_identity = lambda params, aval: True
    copy_p.cost = transcendental
    f = jax.jit(lambda a: copy_p.bind(a) * 2)  # compiled anew (compiles are cached)
    assert "np.copy" not in f.lower(x).as_text()
    np.testing.assert_allclose(f(x), np.asarray(x) * 2)
    cost = jax.jit(lambda a: copy_p.bind(a)).lower(x).cost_analysis()
    assert cost["transcendentals"] == 3.0 and cost["flops"] == 0.0


def test_staging_printing_and_rewrites_read_what_a_primitive_declares() -> None:
    # A primitive of the user's own: folded while tracing, printed and rewritten by the
    # compiler only as its declared facts say.
    from numjax._src.core.avals import ShapedArray
    from numjax._src.core.trace import Primitive
    twice_p = Primitive("my_twice")
    twice_p.def_impl(lambda x, *, tag: x * 2)
    twice_p.def_abstract_eval(lambda x, *, tag: ShapedArray(x.shape, x.dtype))
    x = _rand(3)

    def f(a: Any) -> Any:
        return twice_p.bind(a, tag="t") + twice_p.bind(np.float32(1), tag="c")

    text = str(jax.make_jaxpr(f)(x))
    assert "my_twice[tag=t] a" in text and "my_twice[tag=c]" in text, text
    twice_p.def_param_printer(lambda params: {})
    twice_p.const_fold = True
    text = str(jax.make_jaxpr(f)(x))
    assert "my_twice a" in text and text.count("my_twice") == 1, text
    np.testing.assert_allclose(jax.jit(f)(x), np.asarray(x) * 2 + 2)
    # A rewrite replacing the equation's result by its operand: compiled code only.
    twice_p.def_rewrite(lambda eqn, producer: eqn.invars[0])
    np.testing.assert_allclose(jax.jit(lambda a: twice_p.bind(a, tag="r"))(x), x)
    np.testing.assert_allclose(twice_p.bind(x, tag="r"), np.asarray(x) * 2)


BROADCASTS = {
    # (function, broadcast arrays made): NumPy broadcasts inside the ufunc when a full-shape
    # operand sits beside the broadcast value
    "bias_row": (lambda x, b, c: x + b, 0),
    "scalar": (lambda x, b, c: x * c, 0),
    "bias_column": (lambda x, b, c: x + jnp.expand_dims(b[:3], 1), 0),
    "two_broadcasts": (lambda x, b, c: jnp.expand_dims(b[:3], 1) + b, 2),
    "returned": (lambda x, b, c: (x + b, jnp.broadcast_to(b, (3, 5))), 1),
    "read_by_a_kernel": (lambda x, b, c: jnp.concatenate([x, jnp.broadcast_to(b, x.shape)]), 1),
}


@pytest.mark.parametrize("name", sorted(BROADCASTS))
def test_broadcasts_beside_full_operands_are_left_to_numpy(name: str) -> None:
    fun, made = BROADCASTS[name]
    x, b, c = _rand(3, 5), _rand(5, seed=1), _rand(seed=2)
    text = jax.jit(fun).lower(x, b, c).as_text()
    assert text.count("= broadcast_in_dim") == made, text
    for e, j in zip(jax.tree_util.tree_leaves(fun(x, b, c)),
                    jax.tree_util.tree_leaves(jax.jit(fun)(x, b, c)), strict=True):
        assert e.shape == j.shape and e.dtype == j.dtype
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-6)


def test_a_value_read_through_a_shared_broadcast_is_not_overwritten_before_it() -> None:
    # After CSE one broadcast of exp(x) serves both products with y; NumPy reads exp(x)'s own
    # buffer there, so `2.5 * s` between them must not be written into it (optax's
    # measure-valued gradient estimators, which broadcast std = exp(log_std) this way, came
    # out wrong under jit).
    def f(x: Any, y: Any) -> Any:
        s = jnp.exp(x)
        return y * s, 2.5 * s, (y + 1) * s

    x, y = _rand(3), _rand(4, 3, seed=1)
    text = jax.jit(f).lower(x, y).as_text()
    assert "broadcast_in_dim" not in text, text
    for e, j in zip(f(x, y), jax.jit(f)(x, y), strict=True):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-6)


def test_heap_retention_option_is_validated() -> None:
    for bad in (-1, 1.5, True, "64"):
        with pytest.raises(ValueError, match="numjax_host_heap_retain_bytes"):
            jax.config.update("numjax_host_heap_retain_bytes", bad)
    assert jax.config.numjax_host_heap_retain_bytes == 256 << 20


@pytest.mark.skipif(not sys.platform.startswith("linux") or host_memory._mallopt() is None,
                    reason="the heap thresholds are glibc's")
def test_freed_buffers_are_reused_without_page_faults() -> None:
    assert host_memory.tuned
    size = (4 << 20) // 4  # 4 MB of float32: above glibc's default mmap threshold

    def churn() -> None:
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
def test_heap_retention_can_be_switched_off_and_on() -> None:
    try:
        jax.config.update("numjax_host_heap_retain_bytes", 0)
        assert not host_memory.tuned
    finally:
        jax.config.update("numjax_host_heap_retain_bytes", 256 << 20)
    assert host_memory.tuned


# ---- the buffer plan, pass by pass on small jaxprs ------------------------------------------

from numjax._src.compiler import buffers  # noqa: E402


def _jaxpr(fun: Any, *shapes: Any, dtype: Any = f32) -> Any:
    return jax.make_jaxpr(fun)(*[np.zeros(s, dtype) for s in shapes]).jaxpr


def _reuse(jaxpr: Any, donated: Any = (), inline: Any = lambda eqn: False) -> Any:
    """The plan's `out=` choices as {equation index: (its primitive, the index of the invar or
    of the equation whose dying result it overwrites)}."""
    plan = buffers.plan_buffers(jaxpr, {}, [jaxpr.invars[i] for i in donated], inline)
    made_by = {v: k for k, e in enumerate(jaxpr.eqns) for v in e.outvars}
    where = {v: ("in", k) for k, v in enumerate(jaxpr.invars)}
    return {k: (jaxpr.eqns[k].primitive.name, where.get(v) or ("eqn", made_by[v]))
            for k, v in plan.out.items()}


def test_a_chain_of_ufuncs_runs_in_one_reused_buffer() -> None:
    jaxpr = _jaxpr(lambda x: jnp.exp(jnp.cos(jnp.sin(x))), (8,))
    assert _reuse(jaxpr) == {1: ("cos", ("eqn", 0)), 2: ("exp", ("eqn", 1))}


def test_inputs_are_overwritten_only_when_donated() -> None:
    jaxpr = _jaxpr(lambda x: jnp.cos(jnp.sin(x)), (8,))
    assert _reuse(jaxpr) == {1: ("cos", ("eqn", 0))}
    assert _reuse(jaxpr, donated=(0,)) == {0: ("sin", ("in", 0)), 1: ("cos", ("eqn", 0))}


def test_a_value_read_later_or_returned_is_never_overwritten() -> None:
    read_later = _jaxpr(lambda x: (lambda s: jnp.cos(s) + s)(jnp.sin(x)), (8,))
    assert [name for name, _ in _reuse(read_later).values()] == ["add"]   # not cos
    returned = _jaxpr(lambda x: (lambda s: (s, jnp.cos(s)))(jnp.sin(x)), (8,))
    assert _reuse(returned) == {}


def test_only_a_result_of_the_same_shape_and_dtype_takes_a_buffer() -> None:
    compared = _jaxpr(lambda x: ~(jnp.sin(x) > 0), (8,))
    assert _reuse(compared) == {2: ("not", ("eqn", 1))}  # not gt's: float32 to bool
    summed = _jaxpr(lambda x, y: jnp.sin(x) + y, (8,), (3, 8))
    assert _reuse(summed) == {}


def test_an_operand_a_kernel_may_return_a_view_of_is_never_overwritten_while_the_view_lives(
) -> None:
    # reshape may return a view of sin's result: the buffer is shared while the view is read
    jaxpr = _jaxpr(lambda x: (lambda s: jnp.cos(s) * s.reshape(2, 4).sum())(jnp.sin(x)), (8,))
    assert all(name != "cos" for name, _ in _reuse(jaxpr).values())
    # ... or returned; once the view is read for the last time, the buffer may take a result
    returned = _jaxpr(lambda x: (lambda s: (s.reshape(2, 4), jnp.cos(s)))(jnp.sin(x)), (8,))
    assert all(name != "cos" for name, _ in _reuse(returned).values())
    viewed_first = _jaxpr(lambda x: (lambda s: (lambda t: jnp.cos(s) + t)(
        s.reshape(2, 4)[0, 0] * 2.0))(jnp.sin(x)), (8,))
    assert ("cos", ("eqn", 0)) in _reuse(viewed_first).values()
    # a view of a view keeps the buffer too
    chained = _jaxpr(lambda x: (lambda s: jnp.cos(s) * s.reshape(2, 4).T.sum())(jnp.sin(x)),
                     (8,))
    assert all(name != "cos" for name, _ in _reuse(chained).values())
    inline_read = _jaxpr(lambda x: jnp.cos(jnp.sin(x)), (8,))
    sin_read_inline = lambda eqn: eqn.primitive.name == "cos"
    assert _reuse(inline_read, inline=sin_read_inline) == {}


def test_a_product_result_is_fresh_memory_and_can_take_the_next_result() -> None:
    jaxpr = _jaxpr(lambda a, b: jnp.tanh(a @ b), (4, 5), (5, 3))
    assert _reuse(jaxpr) == {1: ("tanh", ("eqn", 0))}


def test_what_outputs_may_share_with_inputs_and_which_may_be_broadcast_views() -> None:
    jaxpr = _jaxpr(lambda x, y: (x.reshape(2, 4), jnp.sin(y), jnp.broadcast_to(y[0], (3,))),
                   (8,), (8,))
    assert buffers.inputs_reaching_outputs(jaxpr) == (0, 1)
    assert buffers.broadcast_outputs(jaxpr) == {2}
    assert buffers.inputs_reaching_outputs(_jaxpr(lambda x: jnp.sin(x) * 2, (8,))) == ()


UPDATES_IN_PLACE = {
    "chained scatters": (lambda x: jnp.sin(x).at[0].set(1.0).at[1].add(2.0),
                         ["scatter", "scatter-add"]),
    "scatter-mul, -min, -max": (lambda x: jnp.sin(x).at[0].multiply(3.0).at[1].min(0.0)
                                .at[2].max(5.0), ["scatter-mul", "scatter-min", "scatter-max"]),
    "dynamic_update_slice": (lambda x: lax.dynamic_update_slice(jnp.sin(x), jnp.ones(2), (3,)),
                             ["dynamic_update_slice"]),
    # the operand is read again after the update, or by the update itself through a view
    "read later": (lambda x: (lambda s: s.at[0].set(1.0) + s)(jnp.sin(x)), ["add"]),
    "updates from the operand": (lambda x: (lambda s: s.at[1:].set(s[:-1]))(jnp.sin(x)), []),
    "input, not donated": (lambda x: x.at[0].set(1.0), []),
}


@pytest.mark.parametrize("name", UPDATES_IN_PLACE)
def test_an_update_writes_into_its_dying_operand_when_the_program_owns_it(name: str) -> None:
    fun, updated_in_place = UPDATES_IN_PLACE[name]
    jaxpr = _jaxpr(fun, (8,))
    assert [p for p, _ in _reuse(jaxpr).values()] == updated_in_place
    x = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
    eager = fun(jnp.asarray(x))  # kernel by kernel
    np.testing.assert_array_equal(jax.jit(fun)(x), eager)
    np.testing.assert_array_equal(jax.jit(fun, donate_argnums=0)(jnp.asarray(x)), eager)


def test_a_donated_input_is_updated_in_place() -> None:
    jaxpr = _jaxpr(lambda x: x.at[0].set(1.0), (8,))
    assert list(_reuse(jaxpr, donated=(0,)).values()) == [("scatter", ("in", 0))]


_C = np.arange(4.0, dtype=np.float32)

LOOPS_WITH_UPDATES = {
    "fori set": lambda x: lax.fori_loop(0, 4, lambda i, a: a.at[i].set(a[i] * 2.0 + i), x),
    "while add": lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (
        c[0] + 1, c[1].at[c[0]].add(1.0)), (0, x))[1],
    "scan with ys": lambda x: lax.scan(lambda a, i: (a.at[i].add(1.0), a), x,
                                       jnp.arange(4))[1],
    "swapped carries": lambda x: lax.fori_loop(0, 3, lambda i, c: (
        c[1].at[0].add(1.0), c[0].at[1].add(2.0)), (x, x * 2.0)),
    "carry returned twice": lambda x: lax.fori_loop(0, 3, lambda i, c: (
        lambda n: (n, n))(c[0].at[i].add(1.0)), (x, x)),
    "closed-over constant as next carry": lambda x: lax.fori_loop(0, 3, lambda i, a: (
        a.at[0].add(1.0) * 0.0 + jnp.asarray(_C)), x),
    "update of a constant": lambda x: lax.fori_loop(0, 3, lambda i, a: (
        jnp.asarray(_C).at[i].set(a[i])), x),
}


@pytest.mark.parametrize("name", LOOPS_WITH_UPDATES)
def test_a_loop_updating_its_carry_in_place_leaves_inputs_and_constants_alone(name: str) -> None:
    fun = LOOPS_WITH_UPDATES[name]
    host = np.linspace(1.0, 2.0, 4, dtype=np.float32)
    expected = jax.tree_util.tree_map(np.asarray, fun(jnp.asarray(host)))  # eager
    array = jnp.asarray(host)
    for arg in (host, array):
        out = jax.jit(fun)(arg)
        jax.tree_util.tree_map(np.testing.assert_array_equal, out, expected)
    np.testing.assert_array_equal(host, np.linspace(1.0, 2.0, 4, dtype=np.float32))
    np.testing.assert_array_equal(array, host)
    np.testing.assert_array_equal(_C, np.arange(4.0))
    again = jax.jit(fun)(host)  # constants of the compiled program unchanged by the first run
    jax.tree_util.tree_map(np.testing.assert_array_equal, again, expected)


def test_a_loop_copies_an_updated_carry_once_and_updates_it_in_place() -> None:
    text = jax.jit(LOOPS_WITH_UPDATES["fori set"]).lower(_C).as_text()
    assert text.count("np.array(") == 1 and re.search(r"scatter\w*\((carry\w+), .*out=\1\)", text)


def _private_results_cases() -> Any:
    owner = np.arange(16.0).reshape(4, 4)
    other = np.ones(3)
    strided = np.lib.stride_tricks.as_strided(owner, (2, 4), (64, 8))  # its base is no array
    return [
        ("the argument itself", owner, owner),
        ("a view of the argument", owner[1:], owner),
        ("the argument viewed", owner, owner[1:][1:]),
        ("a transposed argument", owner, owner.T),
        ("a reshaped argument", owner, owner.reshape(16)),
        ("a buffer over the argument", owner, np.frombuffer(owner)[2:]),
        ("a strided view of the argument", owner, strided),
        ("a broadcast row of the argument", owner, np.broadcast_to(owner[0], (3, 4))),
        ("an unrelated array", owner, other),
        ("a view of an unrelated array", owner[1:], other),
        ("a NumPy scalar", np.float64(1.0), owner),
    ]


@pytest.mark.parametrize("case", _private_results_cases(), ids=lambda c: c[0])
def test_a_result_is_copied_exactly_when_it_shares_memory_with_a_numpy_argument(case: Any) -> None:
    _, result, argument = case
    shares = isinstance(result, np.ndarray) and np.may_share_memory(result, argument)
    (out,) = private_results([result], [argument], (0,))
    assert (out is not result) == shares
    np.testing.assert_array_equal(out, result)
