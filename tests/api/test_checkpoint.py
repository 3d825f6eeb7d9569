"""checkpoint/remat: same values and gradients as without it, under jit/vmap/higher order."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax.test_util import check_grads

POLICIES = [None, jax.checkpoint_policies.everything_saveable,
            jax.checkpoint_policies.nothing_saveable, jax.checkpoint_policies.dots_saveable,
            jax.checkpoint_policies.save_only_these_names("h")]


def f(w: Any, x: Any) -> Any:
    h = jax.ad_checkpoint.checkpoint_name(jnp.tanh(x @ w), "h")
    return jnp.sum(jnp.sin(h) ** 2)


@pytest.mark.parametrize("policy", POLICIES)
def test_gradients_equal_without_checkpoint(policy: Any) -> None:
    rng = np.random.default_rng(0)
    w = rng.normal(size=(3, 4)).astype(np.float32)
    x = rng.normal(size=(2, 3)).astype(np.float32)
    expected = jax.grad(f)(w, x)
    g = jax.grad(jax.checkpoint(f, policy=policy))(w, x)
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(jax.jit(jax.grad(jax.checkpoint(f, policy=policy)))(w, x),
                               expected, rtol=1e-5, atol=1e-6)
    batched = jax.vmap(jax.grad(jax.checkpoint(f, policy=policy)), (None, 0))(
        w, np.stack([x, 2 * x]))
    np.testing.assert_allclose(batched[1], jax.grad(f)(w, 2 * x), rtol=1e-5, atol=1e-6)


def test_second_order_static_argnums_and_forward_mode() -> None:
    g2 = jax.grad(jax.grad(jax.checkpoint(lambda x: jnp.sin(x) * x)))(1.0)
    assert float(g2) == pytest.approx(-np.sin(1.0) + 2 * np.cos(1.0), rel=1e-5)
    h = jax.checkpoint(lambda x, n: x ** n, static_argnums=1)
    assert float(jax.grad(h)(2.0, 3)) == 12.0
    _, t = jax.jvp(jax.checkpoint(jnp.sin), (0.5,), (1.0,))
    assert float(t) == pytest.approx(np.cos(0.5), rel=1e-6)


def test_checkpoint_in_scan_body() -> None:
    from numjax import lax

    def loss(w: Any) -> Any:
        def step(c: Any, x: Any) -> Any:
            return jax.checkpoint(lambda c: jnp.tanh(c * w + x))(c), None
        return lax.scan(step, 0.5, jnp.arange(4.0))[0]

    def reference(w: Any) -> Any:
        def step(c: Any, x: Any) -> Any:
            return jnp.tanh(c * w + x), None
        return lax.scan(step, 0.5, jnp.arange(4.0))[0]

    assert float(jax.grad(loss)(0.3)) == pytest.approx(float(jax.grad(reference)(0.3)),
                                                       rel=1e-6)


def test_policies_decide_what_is_recomputed() -> None:
    g = lambda w, x: jnp.sum(jnp.sin(jnp.tanh(x @ w)) ** 2)
    w, x = np.ones((3, 4), np.float32), np.ones((2, 3), np.float32)

    def dots(policy: Any) -> Any:
        text = str(jax.make_jaxpr(jax.grad(jax.checkpoint(g, policy=policy)))(w, x))
        return text.count("dot_general")

    # forward dot, its recomputation, and the transposed dot; saving dots skips the second.
    assert dots(None) == 3
    assert dots(jax.checkpoint_policies.nothing_saveable) == 3
    assert dots(jax.checkpoint_policies.dots_saveable) == 2
    assert dots(jax.checkpoint_policies.everything_saveable) == 2


# ---- print_saved_residuals: JAX 0.4.30's output for the same functions ---------------------
# Each function sits on one line so its equations' source columns are JAX's recorded ones
# (0-based column of the call expression) shifted by the longer names used here; so they go
# unannotated.

def res_f1(x): return jnp.sin(jnp.sin(x))  # noqa: E704
def res_f2(W, x): return jnp.sum(jnp.tanh(W @ x))
def res_f3(x): return jnp.sum(jnp.exp(x) * x)  # noqa: E704


res_named = lambda x: jnp.sin(jax.ad_checkpoint.checkpoint_name(jnp.cos(x), "c"))
res_int = lambda x, n: x * n


def _at(fn: Any, col: Any) -> Any:
    code = fn.__code__
    return f"{code.co_filename}:{code.co_firstlineno}:{col} ({code.co_name})"


def test_print_saved_residuals_matches_jax(capsys: pytest.CaptureFixture[str]) -> None:
    W, x = np.ones((3, 4), np.float32), np.ones(4, np.float32)
    cases = [
        (res_f1, (1.0,), [f"f32[] output of cos from {_at(res_f1, 30)}",
                          f"f32[] output of cos from {_at(res_f1, 22)}"]),
        (res_f2, (W, x), ["f32[3,4] from the argument W", "f32[4] from the argument x",
                          f"f32[3] output of tanh from {_at(res_f2, 33)}",
                          f"f32[3] output of sub from {_at(res_f2, 33)}"]),
        (res_f3, (jnp.ones(3),), ["f32[3] from the argument x",
                                  f"f32[3] output of exp from {_at(res_f3, 30)}"]),
        (lambda x, y: x * y, (2.0, 3.0), ["f32[] from the argument x",
                                          "f32[] from the argument y"]),
        (jax.checkpoint(res_f1), (1.0,), ["f32[] from the argument x"]),
        (jax.checkpoint(res_f2, policy=jax.checkpoint_policies.dots_saveable), (W, x),
         ["f32[3,4] from the argument W", "f32[4] from the argument x",
          f"f32[3] output of dot_general from {_at(res_f2, 42)}"]),
        (jax.checkpoint(res_named, policy=jax.checkpoint_policies.save_only_these_names("c")),
         (1.0,), ["f32[] from the argument x", f"f32[] named 'c' from {_at(res_named, 30)}"]),
        (lambda x: x * 2.0, (1.0,), ["f32[] from a literal"]),
        (res_int, (1.0, 3), [f"f32[] output of convert_element_type from {_at(res_int, 23)}"]),
    ]
    for f, args, expected in cases:
        jax.ad_checkpoint.print_saved_residuals(f, *args)
        assert capsys.readouterr().out.splitlines() == expected


def _io_callback_in(x: Any) -> Any:
    from numjax.experimental import io_callback
    io_callback(lambda: None, None)
    return x * 1.0


@pytest.mark.parametrize("transform", [
    lambda f: jax.grad(f)(1.0),
    lambda f: jax.vjp(f, 1.0),
    lambda f: jax.linearize(f, 1.0),
    lambda f: jax.jit(jax.grad(f))(1.0),
])
def test_an_io_callback_cannot_be_rematerialized(transform: Any) -> None:
    # JAX 0.4.30 refuses to differentiate (in reverse) a checkpoint holding an io_callback:
    # recomputing it would run the callback again.
    with pytest.raises(NotImplementedError, match=r"Effects not supported in partial-eval of "
                                                  r"`checkpoint`/`remat`: \[IO\]"):
        transform(jax.checkpoint(_io_callback_in))
    # Forward mode and plain calls run it once, as in JAX.
    assert jax.jvp(jax.checkpoint(_io_callback_in), (1.0,), (1.0,))[1] == 1.0
    assert jax.checkpoint(_io_callback_in)(2.0) == 2.0


def test_a_debug_callback_may_be_rematerialized(capsys: pytest.CaptureFixture[str]) -> None:
    def f(x: Any) -> Any:
        jax.debug.print("x={}", x)
        return jnp.sin(x)

    assert np.isclose(jax.grad(jax.checkpoint(f))(0.5), np.cos(0.5))
    assert "x=0.5" in capsys.readouterr().out


# ---- control flow inside a checkpoint: its equations mix primal and tangent values ----------
# JAX 0.4.30's values (float32).

def _scan_body(c: Any, a: Any) -> Any:
    b = jnp.sum(jnp.sin(a)) + jnp.sum(jnp.sin(c))
    return jnp.sin(c * b), b


@pytest.mark.parametrize("policy", POLICIES[:3])
@pytest.mark.parametrize("output, expected", [(0, -144.23414611816406),
                                              (1, 17.362247467041016)])
@pytest.mark.parametrize("wrap", [lambda f: f, jax.jit])
def test_grad_of_a_checkpointed_scan(policy: Any, output: Any, expected: Any, wrap: Any) -> None:
    from functools import partial

    from numjax import lax
    c, xs = jnp.ones(4) * 0.3, jnp.ones((5, 3)) * 0.2
    scan_ckpt = jax.checkpoint(partial(lax.scan, _scan_body), policy=policy)
    g = wrap(jax.grad(lambda c: scan_ckpt(c, xs)[output].sum()))(c)
    np.testing.assert_allclose(g, [expected] * 4, rtol=2e-6)


def test_grad_of_checkpointed_fori_loop_and_cond() -> None:
    from numjax import lax
    g = jax.checkpoint(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * x, x))
    assert float(jax.grad(g)(0.7)) == pytest.approx(1.0875581502914429, rel=1e-6)
    g = jax.checkpoint(lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, jnp.cos, x))
    assert float(jax.grad(g)(0.7)) == pytest.approx(1.1796071529388428, rel=1e-6)
    assert float(jax.grad(jax.grad(g))(0.7)) == pytest.approx(1.0787320137023926, rel=1e-6)


def test_hessian_through_jit_of_a_checkpointed_switch() -> None:
    # The switch index is an integer: its tangent (float0) is a symbolic zero at every order.
    from numjax import lax

    def f(x: Any) -> Any:
        branch = jax.checkpoint(
            lambda i, x: lax.switch(i, [jnp.sin, lambda x: jnp.array([1., 2.]) * x], x))
        return jax.jit(lambda x: branch(jnp.int32(x[0] < 2), x))(x).sum()

    h = jax.hessian(f)(2.14 * jnp.ones(2))
    np.testing.assert_allclose(h, [[-0.8423303961753845, 0.0], [0.0, -0.8423303961753845]],
                               rtol=1e-6)
    np.testing.assert_array_equal(jax.hessian(f)(jnp.ones(2)), np.zeros((2, 2)))


def test_a_checkpointed_function_is_traced_once_per_signature() -> None:
    # JAX 0.4.30 traces it once over five grad calls; a new signature or static value retraces.
    count = [0]

    def g(x: Any, n: Any = 1) -> Any:
        count[0] += 1
        return jnp.sin(x) * n

    ck = jax.checkpoint(g)
    for _ in range(5):
        assert float(jax.grad(ck)(3.)) == pytest.approx(np.cos(3.), rel=1e-6)
    assert count[0] == 1
    jax.grad(lambda x: ck(x).sum())(jnp.ones(3))
    assert count[0] == 2
    static = jax.checkpoint(g, static_argnums=1)
    for n in (2, 2, 3):
        assert float(jax.grad(static)(3., n)) == pytest.approx(n * np.cos(3.), rel=1e-6)
    assert count[0] == 4
    # Reading a tracer of an enclosing transformation: traced on every call (the tracer
    # belongs to that call only).
    cell = []
    reads_cell = jax.checkpoint(lambda x: g(x) * cell[0])
    outer = jax.grad(lambda y: (cell.insert(0, y), reads_cell(2.))[1])
    assert float(outer(1.)) == pytest.approx(np.sin(2.), rel=1e-6)
    assert float(outer(1.)) == pytest.approx(np.sin(2.), rel=1e-6)
    assert count[0] == 6


def _save(name: str) -> Any:
    return lambda prim, *_, **__: str(prim) == name


@jax.custom_jvp
def _sin_jit_jvp(x: Any) -> Any:
    return jnp.sin(x)


@_sin_jit_jvp.defjvp
def _sin_jit_jvp_rule(primals: Any, tangents: Any) -> Any:
    y, c = jax.jit(lambda: (jnp.sin(primals[0]), jnp.cos(primals[0])))()
    return y, c * tangents[0]


_cond2 = lambda x: jax.lax.cond(x > 0., lambda c: (jnp.sin(c), jnp.sin(c)),
                                lambda c: (jnp.sin(c), jnp.sin(c)), x)
_cond_sin = lambda x: jax.lax.cond(x > 0, jnp.sin, lambda x: x, x)
_cond_sinsin = lambda x: jax.lax.cond(x > 0., lambda c: jnp.sin(jnp.sin(c)),
                                      lambda c: c, x)
_scan_sin = lambda x: jax.lax.scan(lambda c, _: (jnp.sin(c), jnp.sin(c)), x,
                                   None, length=3)
_scan_csin = lambda x: jax.lax.scan(lambda c, _: (_sin_jit_jvp(c), None), x,
                                    None, length=1)[0]
_cond_csin = lambda x: jax.lax.cond(x > 0, _sin_jit_jvp, lambda x: x, x)

# (name, function, policy, JAX 0.4.30's count of sin and of cos equations in the jaxpr of
# the function linearize returns at 4.0): the recomputation inside a checkpointed cond/scan
# keeps only the work its tangents need (an unused primal sin goes), and what the policy
# saves inside a branch, loop body or inner jit is computed once, not again.
REMAT_CONTROL_FLOW = [
    ("cond, both branches", _cond2, None, (0, 4)),
    ("cond, sin of sin", _cond_sinsin, None, (1, 2)),
    ("cond, save cos", _cond_sin, _save("cos"), (0, 0)),
    ("cond, save sin", _cond_sin, _save("sin"), (0, 1)),
    ("scan, save cos", _scan_sin, _save("cos"), (0, 0)),
    ("scan of jit in custom_jvp, save cos", _scan_csin, _save("cos"), (0, 0)),
    ("scan of jit in custom_jvp, save sin", _scan_csin, _save("sin"), (0, 1)),
    ("cond of jit in custom_jvp, save cos", _cond_csin, _save("cos"), (0, 0)),
    ("cond of jit in custom_jvp, save sin", _cond_csin, _save("sin"), (0, 1)),
]


@pytest.mark.parametrize("name, fun, policy, counts", REMAT_CONTROL_FLOW,
                         ids=[r[0] for r in REMAT_CONTROL_FLOW])
def test_linearized_checkpoint_of_control_flow_recomputes_only_what_it_needs(
        name: str, fun: Any, policy: Any, counts: Any) -> None:
    g = jax.checkpoint(fun, policy=policy)
    y, f_lin = jax.linearize(g, 4.)
    text = str(jax.make_jaxpr(f_lin)(1.))
    assert (text.count(" sin "), text.count(" cos ")) == counts
    y_ref, t_ref = jax.jvp(fun, (4.,), (1.,))
    for a, b in zip(jax.tree_util.tree_leaves((y, f_lin(1.))),
                    jax.tree_util.tree_leaves((y_ref, t_ref)), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    check_grads(g, (3.,), order=2, modes=["rev"])


def test_checkpoint_takes_the_removed_concrete_option():
    # JAX 0.4.30: jax.checkpoint and jax.remat take concrete=False (flax's remat passes it);
    # concrete=True raises NotImplementedError (1,211 characters naming static_argnums and
    # ensure_compile_time_eval); jax.ad_checkpoint.checkpoint takes no such option.
    # Recorded: grad of checkpoint(sin) at 0.5 is 0.87758255, remat(sin)(0.5) 0.47942555.
    assert float(jax.grad(jax.checkpoint(jnp.sin, concrete=False))(0.5)) == pytest.approx(
        0.87758255, rel=1e-6)
    assert float(jax.remat(jnp.sin, concrete=False)(0.5)) == pytest.approx(0.47942555, rel=1e-6)
    with pytest.raises(NotImplementedError) as info:
        jax.remat(jnp.sin, concrete=True)
    message = str(info.value)
    assert message.startswith("The 'concrete' option to jax.checkpoint / jax.remat is "
                              "deprecated; in its place, you can use its `static_argnums` "
                              "option, and if necessary the `jax.ensure_compile_time_eval()` "
                              "context manager.\n")
    assert message.endswith("See https://jax.readthedocs.io/en/latest/jep/"
                            "11830-new-remat-checkpoint.html\n")
    assert len(message) == 1211
    with pytest.raises(TypeError, match="unexpected keyword argument 'concrete'"):
        jax.ad_checkpoint.checkpoint(jnp.sin, concrete=False)
    assert jax.remat is jax.checkpoint
    assert jax.ad_checkpoint.remat is jax.ad_checkpoint.checkpoint
