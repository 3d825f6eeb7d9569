"""cond/switch/while_loop/fori_loop/scan/map: values, jit, grad against finite differences,
vmap against loops (batched predicates too), JAX's errors and jaxpr text."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.config import enable_x64
from numjax.test_util import check_grads

f32 = np.float32
rng = np.random.default_rng(0)


def rnn(h0: Any, xs: Any, w: Any) -> Any:
    def step(h: Any, x: Any) -> Any:
        h = jnp.tanh(w @ h + x)
        return h, jnp.sum(h)

    h, ys = lax.scan(step, h0, xs)
    return jnp.sum(h) + jnp.sum(ys)


def test_scan_rnn_values_grad_vmap_jit() -> None:
    h0 = rng.normal(size=3).astype(f32)
    xs = rng.normal(size=(5, 3)).astype(f32)
    w = (rng.normal(size=(3, 3)) * 0.5).astype(f32)

    def reference(h0: Any, xs: Any, w: Any) -> Any:
        h, total = h0.astype(np.float64), 0.0
        for x in xs:
            h = np.tanh(w @ h + x)
            total += h.sum()
        return h.sum() + total

    assert float(rnn(h0, xs, w)) == pytest.approx(reference(h0, xs, w), rel=1e-5)
    assert float(jax.jit(rnn)(h0, xs, w)) == pytest.approx(reference(h0, xs, w), rel=1e-5)
    for argnum, arg in enumerate((h0, xs, w)):
        def f(a: Any, argnum: Any = argnum) -> Any:
            args = [h0, xs, w]
            args[argnum] = a
            return rnn(*args)
        check_grads(f, (arg,), order=1, modes=["rev"], rtol=2e-2, atol=2e-3)
        np.testing.assert_allclose(jax.jit(jax.grad(f))(arg), jax.grad(f)(arg), rtol=1e-5,
                                   atol=1e-6)
    batch = rng.normal(size=(4, 5, 3)).astype(f32)
    out = jax.vmap(rnn, (None, 0, None))(h0, batch, w)
    np.testing.assert_allclose(out, [rnn(h0, b, w) for b in batch], rtol=1e-5)
    g = jax.vmap(jax.grad(rnn, 2), (None, 0, None))(h0, batch, w)
    np.testing.assert_allclose(g, np.stack([jax.grad(rnn, 2)(h0, b, w) for b in batch]),
                               rtol=1e-5, atol=1e-6)


def test_scan_reverse_length_and_xs_none() -> None:
    c, ys = lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(4.0), reverse=True)
    assert float(c) == 6.0
    np.testing.assert_allclose(ys, [6.0, 5.0, 3.0, 0.0])
    c, ys = lax.scan(lambda c, _: (c * 2, c), 1, None, length=4)
    np.testing.assert_array_equal(ys, [1, 2, 4, 8])
    assert int(c) == 16


def test_fori_loop_static_bounds_is_reverse_differentiable() -> None:
    f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * c + i, x)
    x = 1.1
    check_grads(f, (np.float32(x),), order=1, modes=["rev"], rtol=1e-2)
    assert int(lax.fori_loop(0, 4, lambda i, x: x + i, 0)) == 6


def test_fori_loop_traced_bounds_uses_while() -> None:
    f = jax.jit(lambda n: lax.fori_loop(0, n, lambda i, x: x + i, 0))
    assert int(f(5)) == 10


def test_while_loop_jvp_vmap_and_reverse_mode_error() -> None:
    f = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)
    primal, tangent = jax.jvp(f, (1.0,), (1.0,))
    assert float(primal) == 16.0 and float(tangent) == 16.0
    out = jax.vmap(lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2, x))(
        jnp.array([1, 3, 20]))
    np.testing.assert_array_equal(out, [16, 12, 20])
    with pytest.raises(ValueError) as info:
        jax.grad(f)(1.0)
    assert str(info.value) == (
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
        "start/stop.")


def test_cond_values_grad_vmap_with_batched_predicate() -> None:
    f = lambda x: lax.cond(x > 0, lambda y: jnp.sin(y) * y, lambda y: jnp.cos(y), x)
    assert float(f(1.0)) == pytest.approx(np.sin(1.0))
    assert float(jax.grad(f)(1.0)) == pytest.approx(np.cos(1.0) + np.sin(1.0), rel=1e-6)
    assert float(jax.grad(f)(-1.0)) == pytest.approx(np.sin(1.0), rel=1e-6)
    xs = jnp.array([-1.0, 0.5, 2.0])
    expected = [float(f(x)) for x in xs]
    np.testing.assert_allclose(jax.vmap(f)(xs), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(xs), [float(jax.grad(f)(x)) for x in xs],
                               rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(xs), expected, rtol=1e-6)


def test_cond_closure_and_operand_pytrees() -> None:
    scale = jnp.array(3.0)
    f = lambda p, d: lax.cond(p, lambda d: d["a"] * scale, lambda d: d["b"] + 1.0, d)
    assert float(f(True, {"a": 2.0, "b": 5.0})) == 6.0
    assert float(f(False, {"a": 2.0, "b": 5.0})) == 6.0
    g = jax.grad(lambda s: lax.cond(True, lambda x: x * s, lambda x: x, 2.0))(3.0)
    assert float(g) == 2.0


def test_switch_clamps_index() -> None:
    branches = [lambda x: x, lambda x: -x, lambda x: x * 10]
    assert float(lax.switch(5, branches, 1.0)) == 10.0
    assert float(lax.switch(-3, branches, 1.0)) == 1.0
    out = jax.vmap(lambda i, x: lax.switch(i, branches, x))(jnp.array([0, 1, 2]),
                                                             jnp.ones(3))
    np.testing.assert_allclose(out, [1.0, -1.0, 10.0])


def test_map_with_and_without_batch_size() -> None:
    xs = jnp.arange(7.0)
    np.testing.assert_allclose(lax.map(jnp.sin, xs), np.sin(np.arange(7.0)), rtol=1e-6)
    np.testing.assert_allclose(lax.map(jnp.sin, xs, batch_size=3), np.sin(np.arange(7.0)),
                               rtol=1e-6)


def test_errors() -> None:
    with pytest.raises(TypeError) as info:
        lax.cond(True, lambda x: x, lambda x: x * jnp.ones(2), 1.0)
    assert str(info.value) == (
        "true_fun and false_fun output must have identical types, got\n"
        "DIFFERENT ShapedArray(float32[], weak_type=True) vs. ShapedArray(float32[2]).")
    with pytest.raises(TypeError, match=r"Pred must be a scalar, got \[ True  True  True\] of "
                                        r"shape \(3,\)\."):
        lax.cond(jnp.ones(3) > 0, lambda x: x, lambda x: x, 1.0)
    with pytest.raises(TypeError) as info:
        lax.scan(lambda c, x: (c * jnp.ones(2), x), 0.0, jnp.ones(3))
    assert str(info.value) == (
        "Scanned function carry input and carry output must have equal types (e.g. shapes and "
        "dtypes of arrays), but they differ:\n  * the input carry c has type float32[] but the "
        "corresponding output carry component has type float32[2], so the shapes do not match"
        "\n\nRevise the scanned function so that all output types (e.g. shapes and dtypes) "
        "match the corresponding input types.")
    with pytest.raises(ValueError, match="scan got values with different leading axis sizes: "
                                         "3, 4."):
        lax.scan(lambda c, x: (c, x), 0.0, (jnp.ones(3), jnp.ones(4)))


def test_weak_typed_carry_takes_body_type() -> None:
    out = lax.while_loop(lambda c: c < 3, lambda c: c + 1.0, 0)
    assert out.dtype == np.float32 and float(out) == 3.0


def _weak() -> jax.Array:
    return jnp.asarray(3)


def _strong() -> jax.Array:
    return jnp.int32(1)


# JAX 0.4.30: a cond's results have the first branch's types (cond's false branch), weak type
# included, whichever branch runs, eagerly and under jit.
@pytest.mark.parametrize("f, weak", [
    (lambda p: lax.cond(p, _strong, _weak), True),
    (lambda p: lax.cond(p, _weak, _strong), False),
    (lambda p: lax.switch(p.astype(int), [_weak, _strong, _strong]), True),
    (lambda p: lax.switch(p.astype(int), [_strong, _weak, _weak]), False),
])
@pytest.mark.parametrize("pred", [False, True])
def test_branch_results_take_the_first_branch_weak_type(f: Any, weak: Any, pred: Any) -> None:
    assert f(jnp.asarray(pred)).weak_type is weak
    assert jax.jit(f)(pred).weak_type is weak


JAXPR_COND = """{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = cos e in (f,) }
        { lambda ; g:f32[]. let h:f32[] = sin g in (h,) }
      )
      linear=(False,)
    ] c a
  in (d,) }"""

JAXPR_FORI = """{ lambda ; a:f32[]. let
    _:i32[] b:f32[] = scan[
      _split_transpose=False
      jaxpr={ lambda ; c:i32[] d:f32[]. let
          e:i32[] = add c 1
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c
          g:f32[] = add d f
        in (e, g) }
      length=3
      linear=(False, False)
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0 a
  in (b,) }"""

JAXPR_WHILE = """{ lambda ; a:f32[]. let
    b:f32[] = while[
      body_jaxpr={ lambda ; c:f32[]. let d:f32[] = add c 1.0 in (d,) }
      body_nconsts=0
      cond_jaxpr={ lambda ; e:f32[]. let f:bool[] = lt e 3.0 in (f,) }
      cond_nconsts=0
    ] a
  in (b,) }"""


def test_jaxpr_text_matches_jax() -> None:
    assert str(jax.make_jaxpr(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(1.0)) == \
        JAXPR_COND
    assert str(jax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x))(1.0)) == \
        JAXPR_FORI
    assert str(jax.make_jaxpr(
        lambda x: lax.while_loop(lambda c: c < 3.0, lambda c: c + 1.0, x))(1.0)) == JAXPR_WHILE


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 13])
def test_associative_scan_matches_cumulative_ops(n: Any) -> None:
    x = np.random.default_rng(n).uniform(0.5, 1.5, size=(3, n)).astype(f32)
    np.testing.assert_allclose(lax.associative_scan(jnp.add, x, axis=1), np.cumsum(x, 1),
                               rtol=1e-5)
    np.testing.assert_allclose(lax.associative_scan(jnp.multiply, x, reverse=True, axis=1),
                               np.cumprod(x[:, ::-1], 1)[:, ::-1], rtol=1e-5)
    pair = lax.associative_scan(lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1])),
                                (x[0], x[1]))
    np.testing.assert_allclose(pair[1], np.maximum.accumulate(x[1]), rtol=1e-6)
    g = jax.grad(lambda v: lax.associative_scan(jnp.add, v).sum())(jnp.ones(n))
    np.testing.assert_allclose(g, np.arange(n, 0, -1))


def test_grad_of_vmapped_cond_ignores_the_branch_an_example_does_not_take() -> None:
    # sqrt of a negative / division by zero in the untaken branch must not put NaN into the
    # gradient (JAX selects each branch's operands against their stop_gradient).
    safe_sqrt = lambda x: lax.cond(x > 0, jnp.sqrt, lambda x: 0.0 * x, x)
    xs = jnp.array([-1.0, 4.0])
    expected = [0.0, 0.25]
    np.testing.assert_array_equal(jax.grad(lambda v: jax.vmap(safe_sqrt)(v).sum())(xs), expected)
    np.testing.assert_array_equal(
        jax.jit(jax.grad(lambda v: jax.vmap(safe_sqrt)(v).sum()))(xs), expected)
    np.testing.assert_array_equal(jax.jacrev(jax.vmap(safe_sqrt))(xs), np.diag(expected))
    safe_div = lambda x, y: lax.cond(x != 0, lambda x, y: y / x, lambda x, y: 0.0 * y, x, y)
    grads = jax.grad(lambda v, y: jax.vmap(safe_div, (0, None))(v, y).sum(), argnums=(0, 1))(
        jnp.array([0.0, 4.0]), 2.0)
    np.testing.assert_allclose(grads[0], [0.0, -0.125])
    np.testing.assert_allclose(grads[1], 0.25)


def test_while_loop_in_the_forward_pass_of_reverse_mode() -> None:
    # The loop's primal carries are computed in the forward pass; reverse mode fails only when
    # a cotangent has to go through the loop (JAX's error, when the pullback runs).
    loop = lambda x: lax.while_loop(lambda c: c < 3.0, lambda c: c + x, 0.0)
    y, pullback = jax.vjp(loop, 2.0)
    assert float(y) == 4.0
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for "
                                         "lax.while_loop"):
        pullback(1.0)
    value, aux = jax.grad(lambda x: (x * 2.0, loop(x)), has_aux=True)(2.0)
    assert (float(value), float(aux)) == (2.0, 4.0)
    for fn in (jax.grad, lambda f: jax.jit(jax.grad(f))):
        assert float(fn(lambda x: x * lax.stop_gradient(loop(x)))(2.0)) == 4.0

    def traced_bounds(x: Any, n: Any) -> Any:
        body = lambda i, c: c + x
        return jax.grad(lambda x: x * lax.stop_gradient(lax.fori_loop(0, n, body, 0.0)))(x)

    assert float(jax.jit(traced_bounds)(2.0, 3)) == 6.0
    assert float(jax.linearize(loop, 2.0)[1](1.0)) == 2.0


@pytest.mark.parametrize("wrap", [lambda f: f, jax.jit], ids=["eager", "jit"])
def test_linearize_of_a_while_loop_with_a_debug_print(wrap: Any,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # JAX 0.4.30: the loop's primal outputs are computed (and its prints printed) by
    # linearize itself; calling the linear function runs the whole loop again, prints too.
    def body(c: Any) -> Any:
        i, x = c
        jax.debug.print("step {}", i)
        return i + 1, x * 2.0 + 1.0

    run = wrap(lambda x: lax.while_loop(lambda c: c[0] < 3, body, (0, x)))
    (i, y), f_jvp = jax.linearize(run, jnp.array([1.0, 2.0]))
    assert type(i) is type(y) is type(jnp.zeros(1))
    assert (int(i), i.dtype, i.weak_type) == (3, jnp.int32, True)
    np.testing.assert_array_equal(y, [15.0, 23.0])
    assert capsys.readouterr().out == "step 0\nstep 1\nstep 2\n"
    ti, ty = f_jvp(jnp.ones(2))
    assert ti.dtype == jax.dtypes.float0
    np.testing.assert_array_equal(ty, [8.0, 8.0])
    assert capsys.readouterr().out == "step 0\nstep 1\nstep 2\n"


@pytest.mark.parametrize("lower,upper,init,expected,dtype", [
    # JAX 0.4.30 under x64: a Python-int bound takes the traced int32 bound's type
    (0, "n", 0, 10, "int32"),
    ("n", 10, 0, 35, "int32"),
    (0, "n", 0.0, 10.0, "float64"),
])
def test_fori_loop_with_a_traced_int32_bound_under_x64(lower: Any, upper: Any, init: Any,
                                                       expected: Any, dtype: Any) -> None:
    def f(n: Any) -> Any:
        lo, hi = (n if b == "n" else b for b in (lower, upper))
        return lax.fori_loop(lo, hi, lambda i, c: c + i, init)

    with enable_x64(True):
        out = jax.jit(f)(jnp.int32(5))
    assert out.dtype == np.dtype(dtype) and out.item() == expected


def test_fori_loop_bounds_as_jax() -> None:
    # The index counts from the Python int lower bound: weakly typed, like JAX's.
    assert jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: i, 0))(3).weak_type
    out = lax.fori_loop(np.int64(0), np.int64(3), lambda i, c: i, 0)
    assert int(out) == 2 and out.weak_type
    with pytest.raises(TypeError, match="(?m)^lower and upper arguments to fori_loop must have "
                                        "equal types, got int32 and int16$"):
        lax.fori_loop(jnp.int32(0), jnp.int16(3), lambda i, c: c, 0.0)
    assert int(lax.fori_loop(jnp.int16(0), 3, lambda i, c: c + i, 0)) == 3  # weak bound adapts
    with pytest.raises(OverflowError, match="(?m)^Python int 4294967296 too large to convert to "
                                            "int32$"):
        jax.jit(lambda: lax.fori_loop(0, 2**32, lambda i, c: c, 0.0))()  # refused, not run
    with pytest.raises(TypeError, match="lax.fori_loop: body_fun argument should be callable"):
        lax.fori_loop(0, 3, 1, 0)
    assert float(jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0))(2.0)) == 12.0
