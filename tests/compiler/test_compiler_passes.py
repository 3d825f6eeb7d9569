"""The compiler's jaxpr-to-jaxpr passes, each run alone on a small jaxpr: what it removes,
what it must keep, and that the jaxpr it returns computes the same values."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax._src.compiler import fusion, passes
from numjax._src.core.avals import ShapedArray
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Var, jaxpr_as_fun
from numjax._src.runtime import spmd

f32 = np.float32


def _closed(fun: Callable[..., Any], *args: Any) -> ClosedJaxpr:
    return numjax.make_jaxpr(fun)(*args)


def _names(closed: ClosedJaxpr) -> list[str]:
    return [e.primitive.name for e in closed.jaxpr.eqns]


def _same_values(before: ClosedJaxpr, after: ClosedJaxpr, *args: Any) -> None:
    for a, b in zip(jaxpr_as_fun(before)(*args), jaxpr_as_fun(after)(*args), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_the_passes_run_in_their_documented_order():
    assert [p.__name__ for p in passes.PASSES] == [
        "inline_calls", "simplify", "fold_constants", "rewrite", "cse", "dce"]


def test_inline_calls_gives_each_copy_of_a_shared_callee_its_own_variables():
    g = numjax.jit(lambda u: u * 2.0 + 1.0)
    x, y = np.ones(2, f32), np.zeros(2, f32)
    before = _closed(lambda a, b: (g(a), g(b)), x, y)
    assert _names(before) == ["pjit", "pjit"]
    after = passes.inline_calls(before)
    assert _names(after) == ["mul", "add", "mul", "add"]
    assert after.jaxpr.outvars[0] is not after.jaxpr.outvars[1]
    outs = jaxpr_as_fun(after)(x, y)
    np.testing.assert_array_equal(np.asarray(outs[0]), [3.0, 3.0])
    np.testing.assert_array_equal(np.asarray(outs[1]), [1.0, 1.0])


def test_inline_calls_inlines_nested_calls_and_keeps_their_constants():
    table = np.arange(3.0, dtype=f32)
    inner = numjax.jit(lambda u: u + jnp.asarray(table))
    outer = numjax.jit(lambda u: inner(u) * 2.0)
    before = _closed(lambda a: outer(a), np.ones(3, f32))
    after = passes.inline_calls(before)
    assert "pjit" not in _names(after)
    _same_values(before, after, np.ones(3, f32))


def test_simplify_drops_identity_reshapes_conversions_and_transposes_only():
    # Tracing never stages these no-ops, so the jaxpr is built by hand (rewrite rules and
    # inlining can produce them).
    from numjax._src.lax.elementwise import sin_p
    from numjax._src.lax.structural import convert_element_type_p, reshape_p, transpose_p
    square, tall = ShapedArray((2, 3), np.dtype(f32)), ShapedArray((3, 2), np.dtype(f32))
    a = Var(square)
    eqns = [passes.new_eqn(sin_p, [a], square)]
    eqns.append(passes.new_eqn(reshape_p, [eqns[-1].outvars[0]], square,
                               {"new_sizes": (2, 3), "dimensions": None}))
    eqns.append(passes.new_eqn(convert_element_type_p, [eqns[-1].outvars[0]], square,
                               {"new_dtype": np.dtype(f32), "weak_type": False}))
    eqns.append(passes.new_eqn(transpose_p, [eqns[-1].outvars[0]], square,
                               {"permutation": (0, 1)}))
    eqns.append(passes.new_eqn(transpose_p, [eqns[-1].outvars[0]], tall,
                               {"permutation": (1, 0)}))
    before = ClosedJaxpr(Jaxpr([], [a], [eqns[-1].outvars[0]], eqns), [])
    after = passes.simplify(before)
    assert _names(after) == ["sin", "transpose"]      # the transpose that moves data stays
    assert after.jaxpr.eqns[1].invars[0] is after.jaxpr.eqns[0].outvars[0]
    x = np.arange(6.0, dtype=f32).reshape(2, 3)
    _same_values(before, after, x)


def test_fold_constants_evaluates_constant_expressions_but_not_large_ones():
    before = _closed(lambda a: a + jnp.sin(jnp.float32(2.0)) + jnp.zeros(4096).sum(),
                     np.ones(3, f32))
    after = passes.fold_constants(before)
    assert "sin" not in _names(after)
    assert "broadcast_in_dim" in _names(after)          # 4096 elements: stays a view
    _same_values(before, after, np.ones(3, f32))


def test_rewrite_applies_the_primitives_rules_log_of_exp():
    before = _closed(lambda a: jnp.log(jnp.exp(a)), np.ones(3, f32))
    after = passes.dce(passes.rewrite(before))
    assert _names(after) == []
    out = jaxpr_as_fun(after)(np.full(3, 100.0, f32))
    np.testing.assert_array_equal(np.asarray(out[0]), [100.0] * 3)  # not inf


# JAX 0.4.30 lowers `x ** 2`, `x * x` and `jnp.square(x)` to one HLO text, `multiply(x, x)`,
# for int32, float32, complex64 and bfloat16 arguments alike (optax's numerics test compares
# them); `x ** 3` stays a power here (bfloat16's rounds once, not per product).
@pytest.mark.parametrize("x", [3, 3.0, np.array([4, 5.2]), np.array([1 + 2j], np.complex64),
                               np.array([1.5, -0.828125], jnp.bfloat16)],
                         ids=["int", "float", "float32[2]", "complex64", "bfloat16"])
def test_rewrite_makes_a_square_one_product(x: Any) -> None:
    def text(f: Callable[..., Any]) -> str:
        return numjax.jit(f).lower(x).compiler_ir("hlo").as_hlo_text()

    assert text(lambda a: a**2) == text(lambda a: a * a) == text(jnp.square)
    before = _closed(lambda a: a**2, x)
    after = passes.rewrite(before)
    assert _names(before) == ["integer_pow"] and _names(after) == ["mul"]
    _same_values(before, after, x)
    assert _names(passes.rewrite(_closed(lambda a: a**3, x))) == ["integer_pow"]


def test_cse_shares_identical_equations_but_not_different_literals_or_effects():
    x = np.ones(3, f32)
    twice = passes.cse(_closed(lambda a: jnp.sin(a) + jnp.sin(a), x))
    assert _names(twice) == ["sin", "add"]
    signed = passes.cse(_closed(lambda a: (a * 0.0, a * -0.0), x))
    assert _names(signed) == ["mul", "mul"]             # 0.0 and -0.0 are different values
    effectful = passes.cse(_closed(
        lambda a: (numjax.debug.callback(lambda v: None, a),
                   numjax.debug.callback(lambda v: None, a), a)[2], x))
    assert len(effectful.jaxpr.eqns) == 2


def test_dce_drops_dead_equations_and_constants_but_keeps_effects():
    table = np.arange(3.0, dtype=f32)
    closed = _closed(lambda a: (jnp.cos(a * jnp.asarray(table)),
                                numjax.debug.callback(lambda v: None, a), a + 1.0)[2],
                     np.ones(3, f32))
    after = passes.dce(closed)
    assert _names(after) == ["debug_callback", "add"]
    assert after.consts == [] and after.jaxpr.constvars == []


@pytest.mark.parametrize("name", ["inline_calls", "simplify", "fold_constants", "rewrite",
                                  "cse", "dce"])
def test_a_pass_with_nothing_to_do_returns_an_equivalent_jaxpr(name):
    closed = _closed(lambda a, b: jnp.tanh(a @ b) * 2.0, np.ones((2, 3), f32),
                     np.ones((3, 4), f32))
    after = getattr(passes, name)(closed)
    assert _names(after) == _names(closed)
    _same_values(closed, after, np.ones((2, 3), f32), np.ones((3, 4), f32))


def _primitives_within(closed: ClosedJaxpr) -> list[str]:
    """The primitive names of every equation, those of nested jaxprs (branches, bodies)
    included."""
    names = []
    for e in closed.jaxpr.eqns:
        names.append(e.primitive.name)
        for v in e.params.values():
            for inner in v if isinstance(v, tuple) else (v,):
                if isinstance(inner, ClosedJaxpr):
                    names += _primitives_within(inner)
    return names


# (name, program, argument, primitives no longer anywhere in the program after dce,
# primitives still there): a cond/scan/jit output nobody reads goes, with its work inside.
DCE_NESTED: list[tuple[str, Callable[..., Any], Any, list[str], list[str]]] = [
    ("cond output", lambda x: numjax.lax.cond(x > 0, lambda c: (jnp.sin(c), jnp.cos(c)),
                                              lambda c: (c, c), x)[1],
     f32(2), ["sin"], ["cos", "cond"]),
    ("cond operand", lambda x, y: numjax.lax.cond(x > 0, lambda a, b: (a, jnp.sin(b)),
                                                  lambda a, b: (a, b), x, y)[0],
     (f32(2), f32(3)), ["sin"], ["cond"]),
    ("scan stacked output", lambda x: numjax.lax.scan(
        lambda c, _: (c * 2.0, jnp.sin(c)), x, None, length=3)[0], f32(2), ["sin"], ["mul"]),
    ("scan carry read by a used output", lambda x: numjax.lax.scan(
        lambda c, _: ((c[0] * 2.0, jnp.sin(c[1])), c[0]), (x, x), None, length=3)[1],
     f32(2), ["sin"], ["mul", "scan"]),
    ("jit output", lambda x: numjax.jit(lambda a: (jnp.sin(a), jnp.cos(a)))(x)[1], f32(2),
     ["sin"], ["cos", "pjit"]),
]


@pytest.mark.parametrize("name, fun, args, dropped, kept", DCE_NESTED,
                         ids=[r[0] for r in DCE_NESTED])
def test_dce_prunes_unread_outputs_of_control_flow(name, fun, args, dropped, kept):
    args = args if isinstance(args, tuple) else (args,)
    closed = _closed(fun, *args)
    after = passes.dce(closed)
    for p in dropped:
        assert p in _primitives_within(closed) and p not in _primitives_within(after)
    for p in kept:
        assert p in _primitives_within(after)
    _same_values(closed, after, *args)
    np.testing.assert_allclose(numjax.jit(fun)(*args), fun(*args), rtol=1e-6)


def test_dce_keeps_a_cond_with_effects_whole():
    closed = _closed(lambda x: numjax.lax.cond(
        x > 0, lambda c: (numjax.debug.print("{}", c), jnp.sin(c), c)[1:],
        lambda c: (c, c), x)[1], f32(2))
    assert "sin" in _primitives_within(passes.dce(closed))


def test_worker_pool_is_sized_by_the_cores_not_its_first_caller(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """First used by a device of a 4-device SPMD run (a share of one core each), the pool
    still gets a thread per core: the devices together use them all, and so does a later
    program outside SPMD."""
    monkeypatch.setattr(fusion.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(fusion, "_pool", None)
    context = SimpleNamespace(comm=SimpleNamespace(local=4))
    monkeypatch.setattr(spmd, "current", lambda: context)
    assert fusion.worker_threads() == 1
    assert fusion.run_on_threads(lambda x: x * 2, [1, 2, 3]) == [2, 4, 6]
    monkeypatch.setattr(spmd, "current", lambda: None)
    assert fusion.worker_threads() == 4
    assert fusion._pool is not None and fusion._pool._max_workers == 4
    fusion._pool.shutdown()
