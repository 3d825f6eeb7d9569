"""make_jaxpr's text equals JAX 0.4.30's for a set of programs (golden text recorded from JAX)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax.experimental import checkify

GOLDEN = json.loads(
    (pathlib.Path(__file__).parent.parent / "data" / "jaxpr_golden.json").read_text())
f32 = np.float32

PROGRAMS = {
    "sin_mul": (lambda x: jnp.sin(x) * 2.0, [1.0]),
    "chain": (lambda x: jnp.sin(x) * 2.0 + jnp.cos(x).sum(), [np.ones(3, f32)]),
    "rank_promote": (lambda x, y: x + y, [np.ones(3, f32), np.ones((2, 3), f32)]),
    "int_to_float": (lambda x: x * 2.5, [np.ones(3, np.int32)]),
    "const_capture": (lambda x: x + np.ones(3, f32), [np.ones(3, f32)]),
    "grad_sin_sq": (jax.grad(lambda x: jnp.sin(x) ** 2), [0.5]),
    "reduce_max": (lambda x: jnp.max(x, axis=1), [np.ones((2, 3), f32)]),
    "transpose_reshape": (lambda x: x.T.reshape(6), [np.ones((2, 3), f32)]),
    "two_outputs": (lambda x: (x * 2, jnp.sin(x)), [1.0]),
    "index_expand": (lambda x: jnp.sin(x)[None], [1.0]),
    "no_eqns": (lambda x: x, [1.0]),
    "mean": (lambda x: jnp.mean(x), [np.ones(4, f32)]),
    "jvp_tanh": (lambda x, t: jax.jvp(jnp.tanh, (x,), (t,)), [np.ones(3, f32), np.ones(3, f32)]),
    "vmap_dot": (jax.vmap(lambda x, y: jnp.dot(x, y)), [np.ones((4, 3), f32)] * 2),
    "exp_sub": (lambda x, y: jnp.exp(x - y), [np.ones(2, f32), np.ones(2, f32)]),
    # einsum's operands swapped where that gives the result's order without a transpose
    "einsum_batch_outer": (lambda x, y: jnp.einsum("bi,bj->bij", x, y),
                           [np.ones((2, 3), f32), np.ones((2, 4), f32)]),
    "einsum_rowdot": (lambda x, y: jnp.einsum("bi,bi->b", x, y), [np.ones((2, 3), f32)] * 2),
    "einsum_matmul_t": (lambda x, y: jnp.einsum("ij,kj->ki", x, y),
                        [np.ones((2, 3), f32), np.ones((4, 3), f32)]),
    # JAX 0.4.30 has no square primitive: jnp.square and lax.square are integer_pow[y=2]
    # (distrax inverts a bijector's jaxpr and knows integer_pow).
    "square": (jnp.square, [np.ones(3, f32)]),
    "grad_square": (jax.grad(lambda x: lax.square(x)), [3.0]),
}


def test_every_program_has_golden_text() -> None:
    assert set(PROGRAMS) == set(GOLDEN)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_make_jaxpr_text_matches_jax(name: str) -> None:
    fun, args = PROGRAMS[name]
    assert str(jax.make_jaxpr(fun)(*args)) == GOLDEN[name]


def test_make_jaxpr_static_argnums_and_return_shape() -> None:
    closed, shape = jax.make_jaxpr(lambda x, n: x * n, static_argnums=1, return_shape=True)(
        np.ones(2, f32), 3)
    assert str(closed) == "{ lambda ; a:f32[2]. let b:f32[2] = mul a 3.0 in (b,) }"
    assert shape == jax.ShapeDtypeStruct((2,), np.float32)


def test_jaxpr_evaluates_to_the_function() -> None:
    from numjax._src.core.jaxpr import check_jaxpr, eval_jaxpr

    def f(x: Any) -> Any:
        return jnp.sum(jnp.tanh(x) * x, axis=0) / 3.0

    x = np.arange(6, dtype=f32).reshape(3, 2)
    closed = jax.make_jaxpr(f)(x)
    check_jaxpr(closed.jaxpr)
    np.testing.assert_allclose(eval_jaxpr(closed.jaxpr, closed.consts, x)[0], f(x), rtol=1e-6)


def test_eval_shape() -> None:
    out = jax.eval_shape(lambda x, y: {"s": (x @ y).sum(), "t": x.T},
                         jax.ShapeDtypeStruct((2, 3), np.float32), np.ones((3, 4), f32))
    assert out == {"s": jax.ShapeDtypeStruct((), np.float32),
                   "t": jax.ShapeDtypeStruct((3, 2), np.float32)}


def test_a_jaxpr_is_one_line_only_when_it_fits_with_its_closing_brace() -> None:
    # JAX 0.4.30's layouts: 79 columns stay on one line, 81 (with " }") break.
    assert str(jax.make_jaxpr(lambda x: lax.cumsum(x, reverse=True))(jnp.ones(100))) == (
        "{ lambda ; a:f32[100]. let b:f32[100] = cumsum[axis=0 reverse=True] a in (b,) }")
    assert str(jax.make_jaxpr(lambda x: lax.cumsum(x, reverse=True))(jnp.ones(1000))) == (
        "{ lambda ; a:f32[1000]. let\n"
        "    b:f32[1000] = cumsum[axis=0 reverse=True] a\n"
        "  in (b,) }")


def test_output_descriptions_have_no_weak_type() -> None:
    # JAX 0.4.30's ShapeDtypeStruct carries no weak type.
    f = lambda x: x * 2
    assert repr(jax.eval_shape(f, 1.0)) == "ShapeDtypeStruct(shape=(), dtype=float32)"
    assert repr(jax.jit(f).eval_shape(1.0)) == "ShapeDtypeStruct(shape=(), dtype=float32)"
    assert repr(jax.make_jaxpr(f, return_shape=True)(1.0)[1]) == (
        "ShapeDtypeStruct(shape=(), dtype=float32)")


def _source_lines_of_grad_equations() -> Any:
    def f(x: Any) -> Any:
        y = jnp.sin(x)  # line +1
        z = y * 3.0  # line +2
        return z.sum()  # line +3

    first = f.__code__.co_firstlineno
    jaxpr = jax.make_jaxpr(jax.grad(f))(jnp.ones(3))
    return [(str(e.primitive), int(str(e.source_info).split(":")[1]) - first)
            for e in jaxpr.jaxpr.eqns]


def test_reverse_mode_equations_carry_the_line_they_come_from() -> None:
    # As recorded from JAX 0.4.30: each transposed equation has its forward equation's line.
    assert _source_lines_of_grad_equations() == [
        ("sin", 1), ("cos", 1), ("mul", 2), ("reduce_sum", 3),
        ("broadcast_in_dim", 3), ("mul", 2), ("mul", 1)]


def test_a_product_without_a_preferred_type_prints_only_its_dimensions() -> None:
    # JAX 0.4.30's text for lax.dot (no precision, no preferred element type)
    a = jnp.ones((2, 2))
    assert str(jax.make_jaxpr(lambda a: lax.dot(a, a))(a)) == (
        "{ lambda ; a:f32[2,2]. let\n"
        "    b:f32[2,2] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a a\n"
        "  in (b,) }")


def _scoped_sin(x: Any) -> Any:
    with jax.named_scope("bar"):
        return jnp.sin(x)


def _where(fn: Any) -> str:
    """`file:line:column (function)` of the line `fn` stages its equations on."""
    code = fn.__code__
    return f"{code.co_filename}:{code.co_firstlineno + 2}:15 ({code.co_name})"


# JAX 0.4.30's layouts of annotated jaxprs (with this file's positions): a group holding more
# than one annotation is laid out broken, and annotations align one column past the longest
# line, a second annotation of a line on a line of its own.
ANNOTATED = [
    ({"source_info": True}, "{{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }} # {where}"),
    ({"name_stack": True}, "{{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }} # [bar]"),
    ({"source_info": True, "name_stack": True, "width": 200},
     "{{ lambda ; a:f32[]. let\n    b:f32[] = sin a{pad} # {where}\n"
     "{blank} # [bar]\n  in (b,) }}"),
]


@pytest.mark.parametrize("options,expected", ANNOTATED)
def test_pretty_print_annotations(options: dict[str, Any], expected: str) -> None:
    where = _where(_scoped_sin)
    width = len("{ lambda ; a:f32[]. let")
    text = jax.make_jaxpr(_scoped_sin)(1.0).pretty_print(**options)
    assert text == expected.format(where=where, pad=" " * (width - 19), blank=" " * width)


def test_pretty_print_annotations_of_every_equation() -> None:
    # JAX 0.4.30: without shapes, `# []` (an empty name stack) after each equation.
    text = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0).pretty_print(
        name_stack=True, width=200, print_shapes=False)
    assert text == ("{ lambda ; a. let\n    b = sin a     # []\n    c = mul b 2.0 # []\n"
                    "  in (c,) }")


def test_check_prints_only_debug() -> None:
    text = str(jax.make_jaxpr(lambda x: checkify.check(x > 0, "hi"))(1))
    assert "check[debug=False] " in text and "err_tree" not in text


# A conversion of a constant is staged unless the constant is a Python or NumPy scalar, as in
# JAX 0.4.30: a closed-over Array (of any shape) or NumPy array with elements is a constant of
# the jaxpr and its conversion an equation (equinox counts these equations), recorded from
# `make_jaxpr(lambda x: x + lax.convert_element_type(c, jnp.float32))(jnp.ones(1))`.
@pytest.mark.parametrize("const, primitives, n_consts", [
    (jnp.array([1]), ["convert_element_type", "add"], 1),
    (np.array([1], np.int32), ["convert_element_type", "add"], 1),
    (jnp.array(1), ["convert_element_type", "add"], None),  # JAX keeps it a constvar
    (1, ["add"], 0),
])
def test_conversions_of_constants_fold_only_for_scalars(const: Any, primitives: list[str],
                                                        n_consts: int | None) -> None:
    closed = jax.make_jaxpr(lambda x: x + lax.convert_element_type(const, jnp.float32))(
        jnp.ones(1))
    assert [e.primitive.name for e in closed.jaxpr.eqns] == primitives
    if n_consts is not None:
        assert len(closed.consts) == n_consts
        assert all(c is const for c in closed.consts)


def test_promotion_of_a_closed_over_integer_array_is_staged() -> None:
    ints = jnp.array([1])
    with jax.numpy_dtype_promotion("standard"):
        closed = jax.make_jaxpr(lambda x: x + ints)(jnp.ones(1))
    assert str(closed) == ("{ lambda a:i32[1]; b:f32[1]. let\n"
                           "    c:f32[1] = convert_element_type[new_dtype=float32 "
                           "weak_type=False] a\n"
                           "    d:f32[1] = add b c\n"
                           "  in (d,) }")
    assert closed.consts[0] is ints
