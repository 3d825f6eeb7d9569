"""Host callbacks: numjax.debug.print / debug.callback, pure_callback, io_callback.

Expected outputs are JAX 0.4.30's, recorded from the same programs (values chosen so float32
printing is exact). One deliberate difference: JAX 0.4.30 drops debug prints inside a scan
under grad; later JAX versions (0.10) print them in the forward pass, as numjax does.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src import compiler
from numjax._src.core.errors import XlaRuntimeError
from numjax.experimental import io_callback, restrict_backends


def f(x: Any) -> Any:
    numjax.debug.print("f x={x}", x=x)
    y = x * 2
    numjax.debug.print("f y={} {}", y, 2)
    return y + 1


def body(c: Any, xi: Any) -> Any:
    numjax.debug.print("step c={c} xi={xi}", c=c, xi=xi)
    return c + xi, c * xi


def printing(tag: str) -> Any:
    return lambda x: (numjax.debug.print(tag + " {}", x), x)[1]


X = jnp.arange(3.0)

# (name, program, expected stdout): JAX 0.4.30's output.
PRINT_CASES = [
    ("eager", lambda: f(X), "f x=[0. 1. 2.]\nf y=[0. 2. 4.] 2\n"),
    ("jit", lambda: numjax.jit(f)(X), "f x=[0. 1. 2.]\nf y=[0. 2. 4.] 2\n"),
    ("grad", lambda: numjax.grad(lambda x: f(x).sum())(X), "f x=[0. 1. 2.]\nf y=[0. 2. 4.] 2\n"),
    ("jit_grad", lambda: numjax.jit(numjax.grad(lambda x: f(x).sum()))(X),
     "f x=[0. 1. 2.]\nf y=[0. 2. 4.] 2\n"),
    ("vmap", lambda: numjax.vmap(f)(jnp.arange(4.0).reshape(2, 2)),
     "f x=[0. 1.]\nf x=[2. 3.]\nf y=[0. 2.] 2\nf y=[4. 6.] 2\n"),
    ("jvp", lambda: numjax.jvp(f, (X,), (jnp.ones(3),)), "f x=[0. 1. 2.]\nf y=[0. 2. 4.] 2\n"),
    ("scan", lambda: lax.scan(body, 0.0, X),
     "step c=0.0 xi=0.0\nstep c=0.0 xi=1.0\nstep c=1.0 xi=2.0\n"),
    ("jit_scan", lambda: numjax.jit(lambda xs: lax.scan(body, 0.0, xs))(X),
     "step c=0.0 xi=0.0\nstep c=0.0 xi=1.0\nstep c=1.0 xi=2.0\n"),
    ("jvp_scan", lambda: numjax.jvp(lambda xs: lax.scan(body, 1.0, xs)[1].sum(), (X,),
                                    (jnp.ones(3),)),
     "step c=1.0 xi=0.0\nstep c=1.0 xi=1.0\nstep c=2.0 xi=2.0\n"),
    # JAX 0.10's output (0.4.30 prints nothing here).
    ("grad_scan", lambda: numjax.grad(lambda xs: lax.scan(body, 1.0, xs)[1].sum())(X),
     "step c=1.0 xi=0.0\nstep c=1.0 xi=1.0\nstep c=2.0 xi=2.0\n"),
    ("while", lambda: lax.while_loop(lambda c: c < 3, lambda c: printing("w")(c) + 1, 0),
     "w 0\nw 1\nw 2\n"),
    ("fori", lambda: lax.fori_loop(0, 3, lambda i, c: (numjax.debug.print("i={}", i), c + i)[1],
                                   0), "i=0\ni=1\ni=2\n"),
    # JAX 0.10's output (0.4.30 prints nothing here either).
    ("grad_fori", lambda: numjax.grad(lambda x: lax.fori_loop(
        0, 2, lambda i, c: (numjax.debug.print("fi {}", c), c * x)[1], x))(2.0),
     "fi 2.0\nfi 4.0\n"),
    ("cond", lambda: lax.cond(True, printing("T"), lambda x: -printing("F")(x), 1.0), "T 1.0\n"),
    ("jit_cond", lambda: numjax.jit(lambda p: lax.cond(p, printing("T"),
                                                       lambda x: -printing("F")(x), 1.0))(False),
     "F 1.0\n"),
    ("vmap_cond", lambda: numjax.vmap(lambda p, x: lax.cond(
        p, printing("T"), lambda x: -printing("F")(x), x))(jnp.array([True, False]),
                                                          jnp.array([1.0, 2.0])),
     "F 1.0\nF 2.0\nT 1.0\nT 2.0\n"),
    ("unused_result_kept", lambda: numjax.jit(lambda x: (printing("unused")(x * 2), x)[1])(1.0),
     "unused 2.0\n"),
    ("checkpoint_twice", lambda: numjax.grad(numjax.checkpoint(
        lambda x: jnp.sin(printing("ck")(x))))(1.0), "ck 1.0\nck 1.0\n"),
    ("linearize", lambda: numjax.linearize(lambda x: jnp.sin(printing("lin")(x)), 1.0),
     "lin 1.0\n"),
    ("vjp", lambda: numjax.vjp(lambda x: jnp.sin(printing("vjp")(x)), 1.0), "vjp 1.0\n"),
    ("linear_transpose_silent", lambda: numjax.linear_transpose(printing("t"), 1.0)(1.0), ""),
    ("format_spec", lambda: numjax.debug.print("{x:.3f} {y}", x=jnp.float32(1.23456),
                                               y=jnp.arange(2)), "1.235 [0 1]\n"),
    ("pytree", lambda: numjax.debug.print("{}", {"a": jnp.ones(2)}),
     "{'a': Array([1., 1.], dtype=float32)}\n"),
    ("constant_in_jit", lambda: numjax.jit(lambda: numjax.debug.print("const {}", 5))(),
     "const 5\n"),
    ("vmap_ordered", lambda: numjax.vmap(
        lambda x: numjax.debug.print("{}", x, ordered=True))(jnp.ones(2)), "1.0\n1.0\n"),
]


@pytest.mark.parametrize("program,expected", [c[1:] for c in PRINT_CASES],
                         ids=[c[0] for c in PRINT_CASES])
def test_debug_print_matches_jax(program: Any, expected: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    program()
    numjax.effects_barrier()
    assert capsys.readouterr().out == expected


def test_custom_jvp_prints_once(capsys: pytest.CaptureFixture[str]) -> None:
    @numjax.custom_jvp
    def h(x: Any) -> Any:
        numjax.debug.print("h {}", x)
        return x * 3

    h.defjvp(lambda p, t: (h(p[0]), t[0] * 3))
    assert float(numjax.grad(h)(2.0)) == 3.0
    assert capsys.readouterr().out == "h 2.0\n"


def test_ordered_prints_keep_program_order(capsys: pytest.CaptureFixture[str]) -> None:
    def g(x: Any) -> Any:
        numjax.debug.print("o1 {}", x, ordered=True)
        numjax.debug.print("o2 {}", x + 1, ordered=True)
        return x

    numjax.jit(g)(1.0)
    assert capsys.readouterr().out == "o1 1.0\no2 2.0\n"
    text = str(numjax.make_jaxpr(g)(1.0))
    assert text.count("effect=OrderedDebug") == 2


def test_debug_callback_jaxpr_text() -> None:
    text = re.sub(r"0x[0-9a-f]+", "0x", str(numjax.make_jaxpr(f)(X)))
    assert text == """{ lambda ; a:f32[3]. let
    debug_callback[
      callback=<function debug_callback.<locals>._flat_callback at 0x>
      effect=Debug
    ] a
    b:f32[3] = mul a 2.0
    debug_callback[
      callback=<function debug_callback.<locals>._flat_callback at 0x>
      effect=Debug
    ] b 2
    c:f32[3] = add b 1.0
  in (c,) }"""


def test_debug_callback_receives_arrays(capsys: pytest.CaptureFixture[str]) -> None:
    numjax.debug.callback(lambda a, b=None: print(type(a).__name__, type(b).__name__, a, b),
                          1.0, b=np.arange(2))
    numjax.jit(lambda x: numjax.debug.callback(
        lambda a: print(type(a).__name__, a.dtype, a.shape), x))(jnp.ones((2,), jnp.int32))
    assert capsys.readouterr().out == "ArrayImpl ArrayImpl 1.0 [0 1]\nArrayImpl int32 (2,)\n"


def test_generated_code_calls_the_callback() -> None:
    text = numjax.jit(f).lower(X).as_text()
    assert len(re.findall(r"^    debug_callback(_\d+)?\(", text, re.M)) == 2
    scan_text = numjax.jit(lambda xs: lax.scan(body, 0.0, xs)).lower(X).as_text()
    assert re.search(r"for .*:\n(.*\n)*        debug_callback\(", scan_text)


@pytest.mark.parametrize("call,error,message", [
    (lambda: numjax.debug.print("{} {}", 1), IndexError, "tuple index out of range"),
    (lambda: numjax.debug.print("{}", 1, 2), ValueError,
     "Unused positional arguments to `jax.debug.print`: [2]"),
    (lambda: numjax.debug.print("hi", x=1), ValueError,
     "Unused keyword arguments to `jax.debug.print`: ['x']. You may be passing an f-string "
     '(i.e, `f"{x}"`) into `jax.debug.print` and instead should pass in a regular string.'),
    (lambda: numjax.debug.callback(3), TypeError,
     "first argument to jax.debug.callback must be callable, but got an object of type "
     "<class 'int'>"),
])
def test_debug_print_errors(call: Any, error: type, message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_debug_callback_errors_eager_and_compiled(caplog: pytest.LogCaptureFixture) -> None:
    def boom(x: Any) -> None:
        raise ZeroDivisionError("division by zero")

    with pytest.raises(ZeroDivisionError):  # eagerly the callback's own error
        numjax.debug.callback(boom, X)
    with pytest.raises(XlaRuntimeError) as info:  # compiled: the runtime's error, chained
        numjax.jit(lambda x: numjax.debug.callback(boom, x))(X)
    text = str(info.value)
    assert text.startswith("INTERNAL: Generated function failed: CpuCallback error: Traceback")
    assert text.endswith("ZeroDivisionError: division by zero")
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    assert "jax.debug.callback failed" in caplog.text


def test_debug_print_needs_no_compile_eagerly(capsys: pytest.CaptureFixture[str]) -> None:
    with restrict_backends(forbidden=["cpu"]):
        numjax.debug.print("eager {}", X)
        with pytest.raises(RuntimeError, match="forbidden by restrict_backends"):
            numjax.jit(lambda x: (numjax.debug.print("r {}", x + 1), x)[1])(X)
    assert capsys.readouterr().out == "eager [0. 1. 2.]\n"


def test_debug_print_under_transfer_guard(capsys: pytest.CaptureFixture[str]) -> None:
    with numjax.transfer_guard("disallow"):
        numjax.jit(lambda x: (numjax.debug.print("tg {}", x), x + 1)[1])(X)
        numjax.debug.print("eager {}", X)
    assert capsys.readouterr().out == "tg [0. 1. 2.]\neager [0. 1. 2.]\n"


def test_debug_print_in_large_async_computation(capsys: pytest.CaptureFixture[str]) -> None:
    big = jnp.ones((2048, 4096))
    out = numjax.jit(lambda x: (numjax.debug.print("big {}", x[0, 0]), x * 3)[1])(big)
    assert float(out[0, 0]) == 3.0
    numjax.effects_barrier()
    assert capsys.readouterr().out == "big 1.0\n"


# ---- pure_callback -------------------------------------------------------------------------


class Recorder:
    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.shapes: list[tuple[int, ...]] = []

    def __call__(self, x: Any) -> Any:
        self.shapes.append(np.shape(x))
        return self.fn(x)


def sds(x: Any) -> Any:
    return numjax.ShapeDtypeStruct(x.shape, x.dtype)


def test_pure_callback_eager_jit_and_vmap() -> None:
    host = Recorder(lambda x: np.asarray(x) * 2)
    fn = lambda x: numjax.pure_callback(host, sds(x), x)
    np.testing.assert_array_equal(fn(X), [0, 2, 4])
    np.testing.assert_array_equal(numjax.jit(fn)(X), [0, 2, 4])
    assert host.shapes == [(3,), (3,)]
    host.shapes.clear()
    batch = jnp.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(numjax.vmap(fn)(batch), np.arange(12.0).reshape(4, 3) * 2)
    assert host.shapes == [(3,)] * 4  # one call per example
    host.shapes.clear()
    vec = lambda x: numjax.pure_callback(host, sds(x), x, vectorized=True)
    np.testing.assert_array_equal(numjax.vmap(vec)(batch), np.arange(12.0).reshape(4, 3) * 2)
    assert host.shapes == [(4, 3)]  # once, on the batch
    host.shapes.clear()
    np.testing.assert_array_equal(numjax.vmap(vec, in_axes=1)(batch.T), np.arange(12.0).reshape(
        4, 3) * 2)
    assert host.shapes == [(4, 3)]


def test_pure_callback_unused_result_is_dropped_under_jit() -> None:
    host = Recorder(np.sin)
    out = numjax.jit(lambda x: (numjax.pure_callback(host, sds(x), x), x)[1])(X)
    np.testing.assert_array_equal(out, X)
    assert host.shapes == []


def test_pure_callback_runs_every_call_and_is_never_folded() -> None:
    calls: list[int] = []
    g = numjax.jit(lambda: numjax.pure_callback(
        lambda v: (calls.append(1), np.float32(v) + 1)[1],
        numjax.ShapeDtypeStruct((), jnp.float32), 1.0))
    assert float(g()) == 2.0 and float(g()) == 2.0
    assert len(calls) == 2


def test_pure_callback_jaxpr_text() -> None:
    def host_sin(x: Any) -> Any:
        return np.sin(x)

    text = str(numjax.make_jaxpr(lambda x: numjax.pure_callback(host_sin, sds(x), x))(X))
    text = re.sub(r"0x[0-9a-f]+", "0x", text)
    assert text == """{ lambda ; a:f32[3]. let
    b:f32[3] = pure_callback[
      callback=_FlatCallback(callback_func=<function test_pure_callback_jaxpr_text.<locals>.host_sin at 0x>, in_tree=PyTreeDef(((*,), {})))
      result_avals=(ShapedArray(float32[3]),)
      sharding=None
      vectorized=False
    ] a
  in (b,) }"""  # noqa: E501


def test_pure_callback_pytrees_kwargs_and_conversions() -> None:
    out = numjax.pure_callback(lambda x: {"a": x, "b": [x]},
                               {"a": sds(X), "b": [sds(X)]}, X)
    assert set(out) == {"a", "b"} and isinstance(out["b"], list)
    np.testing.assert_array_equal(out["b"][0], X)
    np.testing.assert_array_equal(
        numjax.pure_callback(lambda x, y=None: x + y, sds(X), X, y=X), [0, 2, 4])
    # A Python scalar and a float64 result take the declared float32.
    one = numjax.pure_callback(lambda x: 1.0, numjax.ShapeDtypeStruct((), jnp.float32), X)
    assert one.dtype == jnp.float32 and float(one) == 1.0
    wide = numjax.pure_callback(lambda x: np.ones(3), sds(X), X)
    assert wide.dtype == jnp.float32
    is_array = numjax.pure_callback(lambda x: np.bool_(type(x).__name__ == "ArrayImpl"),
                                    numjax.ShapeDtypeStruct((), jnp.bool_), X)
    assert bool(is_array)


def test_pure_callback_result_is_a_copy() -> None:
    kept = np.zeros(3, np.float32)
    out = numjax.jit(lambda x: numjax.pure_callback(lambda _: kept, sds(x), x))(X)
    kept[:] = 5
    np.testing.assert_array_equal(out, [0, 0, 0])


def _ordered_print(x: Any) -> Any:
    numjax.debug.print("{}", x, ordered=True)
    return x


@pytest.mark.parametrize("call,message", [
    (lambda: numjax.jit(lambda x: numjax.pure_callback(
        lambda x: np.ones(2, np.float32), sds(x), x))(X),
     "RuntimeError: Incorrect output shape for return value #0: Expected: (3,), Actual: (2,)"),
    (lambda: numjax.pure_callback(lambda x: np.asarray(x).astype(np.int32), sds(X), X),
     "RuntimeError: Incorrect output dtype for return value #0: Expected: float32, "
     "Actual: int32"),
    (lambda: numjax.pure_callback(lambda x: (x, x), sds(X), X),
     "RuntimeError: Mismatched number of outputs from callback. Expected: 1, Actual: 2"),
    (lambda: numjax.pure_callback(lambda x: 1 / 0, sds(X), X),
     "ZeroDivisionError: division by zero"),
])
def test_pure_callback_runtime_errors(call: Any, message: str) -> None:
    with pytest.raises(XlaRuntimeError) as info:
        call()
    text = str(info.value)
    assert text.startswith("INTERNAL: Generated function failed: CpuCallback error: ")
    assert text.endswith(message)


@pytest.mark.parametrize("call,message", [
    (lambda: numjax.grad(lambda x: numjax.pure_callback(np.sin, sds(x), x).sum())(X),
     "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while "
     "taking gradients."),
    (lambda: numjax.jvp(lambda x: numjax.pure_callback(np.sin, sds(x), x), (X,), (X,)),
     "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while "
     "taking gradients."),
    (lambda: numjax.pure_callback(lambda x: x, numjax.ShapeDtypeStruct((3,), jnp.float64), X),
     "result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` is disabled"),
    (lambda: numjax.grad(lambda x: io_callback(lambda x: x, x, x).sum())(X),
     "IO callbacks do not support JVP."),
    (lambda: numjax.vmap(lambda x: io_callback(lambda x: x, x, x, ordered=True))(
        jnp.ones((2, 3))), "Cannot `vmap` ordered IO callback."),
    (lambda: numjax.pmap(_ordered_print)(jnp.arange(1.0)),
     "Ordered effects not supported in `pmap`."),
    (lambda: numjax.pmap(lambda x: io_callback(lambda v: v, sds(x[0]), x[0], ordered=True))(
        jnp.ones((1, 2))), "Ordered effects not supported in `pmap`."),
    # Staged into a program, the map primitive refuses it (JAX lists its effect objects).
    (lambda: numjax.jit(numjax.pmap(_ordered_print))(jnp.arange(1.0)),
     "Ordered effects not supported for map primitives: [OrderedDebug]"),
    (lambda: numjax.make_jaxpr(numjax.pmap(_ordered_print))(jnp.arange(1.0)),
     "Ordered effects not supported for map primitives: [OrderedDebug]"),
])
def test_callback_transformation_errors(call: Any, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_pure_callback_with_custom_jvp_differentiates() -> None:
    @numjax.custom_jvp
    def host_sin(x: Any) -> Any:
        return numjax.pure_callback(lambda v: np.sin(v), sds(x), x)

    host_sin.defjvp(lambda p, t: (host_sin(p[0]), jnp.cos(p[0]) * t[0]))
    g = numjax.jit(numjax.grad(lambda x: host_sin(x).sum()))(X)
    np.testing.assert_allclose(g, np.cos(np.arange(3.0)), rtol=1e-6)
    np.testing.assert_allclose(numjax.vmap(numjax.grad(host_sin))(X), np.cos(np.arange(3.0)),
                               rtol=1e-6)


# ---- io_callback ---------------------------------------------------------------------------


def test_io_callback_always_runs_in_order() -> None:
    log: list[Any] = []

    def record(x: Any) -> Any:
        log.append(np.asarray(x).tolist())
        return np.asarray(x) * 2

    h = lambda x: io_callback(record, sds(x), x)
    np.testing.assert_array_equal(numjax.jit(lambda x: (h(x), x)[1])(X), X)
    assert log == [[0.0, 1.0, 2.0]]  # its result is unused, yet it ran
    log.clear()
    np.testing.assert_array_equal(numjax.vmap(h)(jnp.ones((2, 3))), np.full((2, 3), 2.0))
    assert log == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    log.clear()
    total = numjax.jit(lambda xs: lax.scan(lambda c, xi: (c + io_callback(
        record, numjax.ShapeDtypeStruct((), xi.dtype), xi, ordered=True), None), 0., xs)[0])(X)
    assert float(total) == 6.0 and log == [0.0, 1.0, 2.0]
    assert io_callback(lambda: None, None) is None
    assert io_callback(lambda x: None, None, 1) is None


def test_io_callback_jaxpr_effects() -> None:
    for ordered in (False, True):
        closed = numjax.make_jaxpr(
            lambda x, o=ordered: io_callback(np.cos, sds(x), x, ordered=o))(X)
        assert f"ordered={ordered}" in str(closed)
        assert [str(e) for e in closed.effects] == ["OrderedIO" if ordered else "IO"]


# ---- the compiler sees the callbacks -------------------------------------------------------


def test_backend_compile_receives_host_callbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[Any]] = []
    original = compiler.backend_compile

    def spy(backend: Any, module: Any, options: Any, host_callbacks: Any) -> Any:
        seen.append(list(host_callbacks))
        return original(backend, module, options, host_callbacks)

    monkeypatch.setattr(compiler, "backend_compile", spy)
    g = numjax.jit(lambda x: numjax.pure_callback(np.sin, sds(x), x) + io_callback(
        np.cos, sds(x), x))
    g(X)
    g(X)  # a cache hit compiles nothing
    assert [[c.callback_func for c in cs] for cs in seen] == [[np.sin, np.cos]]
    numjax.pure_callback(np.tan, sds(X), X)  # eagerly: a one-primitive module
    assert [c.callback_func for c in seen[-1]] == [np.tan]
    seen.clear()
    numjax.jit(lambda x: x * 2)(X)
    assert seen == [[]]


def test_effects_inside_control_flow(capsys: pytest.CaptureFixture[str]) -> None:
    """JAX 0.4.30's output for the same programs."""
    numjax.vmap(lambda n: lax.while_loop(
        lambda c: c[0] < n,
        lambda c: (numjax.debug.print("c {}", c[0]), (c[0] + 1, c[1] * 2))[1],
        (0, 1.0)))(jnp.array([1, 3]))
    assert capsys.readouterr().out == "c 0\nc 0\nc 1\nc 1\nc 1\nc 2\n"
    out = numjax.jit(lambda i, x: lax.switch(i, [printing("b0"), lambda x: printing("b1")(x) + 1],
                                             x))(1, 5.0)
    assert float(out) == 6.0 and capsys.readouterr().out == "b1 5.0\n"
    assert float(numjax.grad(lambda x: lax.cond(x > 0, lambda x: printing("pos")(x) * x,
                                                lambda x: -x, x))(2.0)) == 4.0
    assert capsys.readouterr().out == "pos 2.0\n"
    out = numjax.jit(lambda: lax.while_loop(lambda c: c < 3, lambda c: io_callback(
        lambda v: (print("io", v), np.int32(v + 1))[1], numjax.ShapeDtypeStruct((), jnp.int32), c,
        ordered=True), 0))()
    assert int(out) == 3 and capsys.readouterr().out == "io 0\nio 1\nio 2\n"
    # Under grad, a rematerialized body prints in the forward pass and again when recomputed
    # in the backward pass (JAX 0.10; 0.4.30 drops the forward prints).
    numjax.grad(lambda xs: lax.scan(numjax.checkpoint(
        lambda c, x: (numjax.debug.print("r {}", x), (c * x, None))[1]), 1.0, xs)[0])(
        jnp.array([2.0, 3.0]))
    assert capsys.readouterr().out == "r 2.0\nr 3.0\nr 3.0\nr 2.0\n"
    closed = numjax.make_jaxpr(lambda x: lax.cond(
        x > 0, lambda x: io_callback(lambda v: v, x, x, ordered=True), lambda x: x, x))(1.0)
    assert [str(e) for e in closed.effects] == ["OrderedIO"]


def test_batched_while_refuses_unordered_io() -> None:
    with pytest.raises(Exception, match="Unordered IO effects not supported in while_loop with "
                                        "batched predicate"):
        numjax.vmap(lambda n: lax.while_loop(lambda c: c < n, lambda c: c + io_callback(
            lambda v: np.int32(1), numjax.ShapeDtypeStruct((), jnp.int32), c), 0))(
            jnp.array([1, 2]))


def test_eager_executable_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from numjax._src.compiler import eager
    monkeypatch.setattr(eager, "CACHE_LIMIT", 8)
    for i in range(20):  # a fresh callback each time: a fresh executable each time
        numjax.pure_callback(lambda x, i=i: np.asarray(x) + i, sds(X), X)
    assert len(eager._cache) <= 8
    np.testing.assert_array_equal(numjax.pure_callback(lambda x: np.asarray(x) + 1, sds(X), X),
                                  [1, 2, 3])


def test_callback_without_results_in_a_fused_program(capsys: pytest.CaptureFixture[str]) -> None:
    out = numjax.jit(lambda x: (numjax.debug.print("hi"), x * 2 + 1)[1])(jnp.ones((1024, 1024)))
    assert float(out[0, 0]) == 3.0 and capsys.readouterr().out == "hi\n"


def test_cond_with_an_empty_branch(capsys: pytest.CaptureFixture[str]) -> None:
    f = numjax.jit(lambda x: lax.cond(x > 0, lambda: numjax.debug.print("pos"), lambda: None))
    f(1.0)
    f(-1.0)
    assert capsys.readouterr().out == "pos\n"


def test_large_pure_callback_may_call_jit() -> None:
    """A program calling back into Python runs inline, never on the dispatch stream its
    callback would then wait on."""
    x = jnp.ones((3000, 3000))
    double = numjax.jit(lambda a: a * 2)
    g = numjax.jit(lambda x: numjax.pure_callback(lambda v: double(v), sds(x), x))
    assert float(g(x)[0, 0]) == 2.0


def test_io_refused_where_jax_refuses_it() -> None:
    s = numjax.ShapeDtypeStruct((), jnp.float32)
    with pytest.raises(NotImplementedError, match="IO effect not supported in vmap-of-cond."):
        numjax.vmap(lambda p, x: lax.cond(p, lambda x: io_callback(lambda v: v, s, x),
                                          lambda x: x, x))(jnp.array([True, False]),
                                                           jnp.array([1., 2.]))
    with pytest.raises(Exception, match="Ordered IO effects not supported in vmap."):
        numjax.vmap(lambda n: lax.while_loop(lambda c: c < n, lambda c: c + io_callback(
            lambda v: np.int32(1), numjax.ShapeDtypeStruct((), jnp.int32), c, ordered=True),
            0))(jnp.array([1, 2]))


def test_callbacks_see_operand_avals(capsys: pytest.CaptureFixture[str]) -> None:
    """A NumPy constant arrives as float32 (its aval), a Python scalar weakly typed."""
    numjax.jit(lambda: numjax.debug.callback(lambda c: print(repr(c)), np.ones(3)))()
    numjax.debug.callback(lambda c: print(repr(c)), 1.0)
    assert capsys.readouterr().out == ("Array([1., 1., 1.], dtype=float32)\n"
                                       "Array(1., dtype=float32, weak_type=True)\n")


@pytest.mark.parametrize("ordered", [False, True])
@pytest.mark.parametrize("jitted", [False, True])
def test_print_in_a_batched_while_cond_runs_twice_per_iteration(
        jitted: bool, ordered: bool, capsys: pytest.CaptureFixture[str]) -> None:
    """JAX 0.4.30 with a batched predicate: the loop's condition runs on the carry as it
    stands, and the body runs it again to keep finished examples' carry, so each iteration
    prints every example's value twice and never a value past an example's end. (With
    `ordered=True`, JAX 0.4.30 instead prints 0 1 1 2 ... 5 5 6 and returns [5, 6], a wrong
    result: docs/differences.md.)"""
    def f(x: Any) -> Any:
        def cond(x: Any) -> Any:
            numjax.debug.print("x: {x}", x=x, ordered=ordered)
            return x < 5
        return lax.while_loop(cond, lambda x: x + 1, x)

    g = numjax.vmap(f)
    out = (numjax.jit(g) if jitted else g)(jnp.arange(2))
    numjax.effects_barrier()
    np.testing.assert_array_equal(np.asarray(out), [5, 5])
    printed = capsys.readouterr().out.split("\n")
    want = [v for k in range(5) for v in (k, k + 1, k, k + 1)] + [5, 5]
    assert printed[:-1] == [f"x: {v}" for v in want]
