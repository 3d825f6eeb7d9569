"""numjax.experimental.host_callback: id_tap, id_print, call, barrier_wait. Expected outputs are
JAX 0.4.30's for the same programs (its default, synchronous CPU callbacks)."""

from __future__ import annotations

import io
import re
import warnings
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.core.errors import XlaRuntimeError

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from numjax.experimental import host_callback as hcb

    id_tap, id_print, call, barrier_wait = hcb.id_tap, hcb.id_print, hcb.call, hcb.barrier_wait

X = jnp.arange(3.0)


def tap(a: Any, transforms: Any) -> None:
    print("tap", type(a).__name__, a, transforms)


CASES = [
    ("eager_tap", lambda: id_tap(tap, X), "tap ndarray [0. 1. 2.] ()\n"),
    ("jit_tap", lambda: numjax.jit(lambda x: id_tap(tap, x * 2) + 1)(X),
     "tap ndarray [0. 2. 4.] ()\n"),
    ("result", lambda: numjax.jit(lambda x: id_tap(tap, x, result=x + 5))(X),
     "tap ndarray [0. 1. 2.] ()\n"),
    ("id_print", lambda: numjax.jit(lambda x: id_print(x * 2, what="double") + 1)(X),
     "what: double\n[0. 2. 4.]\n"),
    ("id_print_tree", lambda: id_print((X, {"a": 1.0}), what="tree"),
     "what: tree\n( [0. 1. 2.] { a=1. } )\n"),
    ("grad", lambda: numjax.grad(lambda x: id_print(x * 3, what="s"))(1.0), "what: s\n3.\n"),
    ("jvp", lambda: numjax.jvp(lambda x: id_tap(tap, x * 3), (1.0,), (1.0,)),
     "tap ndarray 3.0 ()\n"),
    ("vmap", lambda: numjax.vmap(lambda x: id_tap(tap, x * 2))(jnp.ones((2, 3))),
     "tap ndarray [[2. 2. 2.]\n [2. 2. 2.]] (('batch', {'batch_dims': (0,)}),)\n"),
    ("vmap_grad", lambda: numjax.vmap(numjax.grad(lambda x: id_print(x * x, what="sq")))(
        jnp.arange(2.0)), "transforms: [('batch', {'batch_dims': (0,)})] what: sq\n[0. 1.]\n"),
    ("scan", lambda: lax.scan(lambda c, xi: (id_print(c + xi, what="c"), None), 0.0, X),
     "what: c\n0.\nwhat: c\n1.\nwhat: c\n3.\n"),
    ("kwargs", lambda: id_print(X, output_stream=None, threshold=1, name="n"),
     "name: n\n[0. 1. 2.]\n"),
    ("call_no_result", lambda: call(lambda a: print("noresult", a), X), "noresult [0. 1. 2.]\n"),
]


@pytest.mark.parametrize("program,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_output_matches_jax(program: Any, expected: str,
                            capsys: pytest.CaptureFixture[str]) -> None:
    program()
    barrier_wait()
    assert capsys.readouterr().out == expected


def test_results() -> None:
    np.testing.assert_array_equal(numjax.jit(lambda x: id_tap(tap, x * 2) + 1)(X), [1, 3, 5])
    np.testing.assert_array_equal(numjax.jit(lambda x: id_tap(tap, x, result=x + 5))(X),
                                  [5, 6, 7])
    np.testing.assert_allclose(call(np.sin, X, result_shape=X), np.sin(np.arange(3.0)),
                               rtol=1e-6)
    out = numjax.jit(lambda x: call(np.cos, x, result_shape=numjax.ShapeDtypeStruct(
        x.shape, x.dtype)))(X)
    assert out.dtype == jnp.float32
    np.testing.assert_allclose(out, np.cos(np.arange(3.0)), rtol=1e-6)
    assert call(lambda a: None, X) is None
    assert float(numjax.grad(lambda x: id_tap(lambda *a: None, jnp.sin(x)))(0.0)) == 1.0


def test_tap_with_device_and_output_stream(capsys: pytest.CaptureFixture[str]) -> None:
    id_tap(lambda a, tr, *, device: print("dev", a, tr, device), X, tap_with_device=True)
    assert capsys.readouterr().out == f"dev [0. 1. 2.] () {numjax.devices()[0]}\n"
    stream = io.StringIO()
    numjax.jit(lambda x: id_print(x, output_stream=stream, what="w"))(X)
    assert stream.getvalue() == "what: w\n[0. 1. 2.]\n"


def test_long_values_break_lines(capsys: pytest.CaptureFixture[str]) -> None:
    id_print((jnp.arange(30.0), jnp.arange(30.0)))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("( [ 0.  1.") and lines[-1].endswith(" )") and len(lines) > 2


def test_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match="The host_callback APIs are deprecated as of "
                                                "March 20, 2024"):
        hcb.id_tap  # noqa: B018
    with pytest.raises(AttributeError):
        hcb.no_such_function  # noqa: B018


def test_jaxpr_text() -> None:
    text = re.sub(r"0x[0-9a-f]+", "0x", str(numjax.make_jaxpr(lambda x: id_tap(tap, x))(X)))
    assert text == """{ lambda ; a:f32[3]. let
    b:f32[3] = outside_call[
      arg_treedef=PyTreeDef(*)
      callback=<numjax._src.api.host_callback._CallbackWrapper object at 0x>
      device_index=0
      identity=True
    ] a
  in (b,) }"""


def test_errors(caplog: pytest.LogCaptureFixture) -> None:
    def badtap(a: Any, tr: Any) -> None:
        raise ValueError("boom")

    with pytest.raises(XlaRuntimeError) as info:
        numjax.jit(lambda x: id_tap(badtap, x))(X)
    assert str(info.value).startswith(
        "INTERNAL: Generated function failed: CpuCallback error: Traceback")
    assert str(info.value).endswith("ValueError: boom")
    assert re.search(r"Outside call <.*_CallbackWrapper object at .*> threw exception boom\.",
                     caplog.text)
    with pytest.raises(NotImplementedError,
                       match="JVP rule is implemented only for id_tap, not for call."):
        numjax.grad(lambda x: call(np.sin, x, result_shape=x))(1.0)
    with pytest.raises(NotImplementedError,
                       match="batching rules are implemented only for id_tap, not for call."):
        numjax.vmap(lambda x: call(np.sin, x, result_shape=x))(X)
    with pytest.raises(TypeError, match=r"Support for \*\*kwargs in ``id_tap`` has been removed"):
        id_tap(tap, X, what=1)
    with pytest.raises(XlaRuntimeError) as info:
        call(lambda a: np.ones(2, np.float32), X, result_shape=X)
    assert str(info.value).endswith("should have returned a result with abstract values "
                                    "ShapedArray(float32[3]) but returned "
                                    "ShapedArray(float32[2])")
    with pytest.raises(ValueError, match="result_shape should be a pytree of values"):
        call(np.sin, X, result_shape=object())


def test_constants_tapped_in_their_aval_dtype(capsys: pytest.CaptureFixture[str]) -> None:
    numjax.jit(lambda: id_tap(lambda a, t: print(repr(a)), np.ones(2)))()
    assert capsys.readouterr().out == "array([1., 1.], dtype=float32)\n"
    assert hcb.CallbackFlavor.DEBUG.name == "DEBUG"
    assert hcb.TapFunctionException is hcb.CallbackException


@pytest.mark.parametrize("jitted", [False, True])
def test_taps_in_a_batched_while_cond_run_once_per_iteration(jitted: bool) -> None:
    """JAX 0.4.30 moves a tapping condition into the loop's body, so under vmap with a
    batched predicate each tap in the condition sees the body's new values once per
    iteration (a debug.print there prints twice: tests/api/test_callbacks.py)."""
    seen: list[tuple[str, list[Any]]] = []

    def tap_as(where: str) -> Any:
        return lambda arg, transforms: seen.append((where, np.asarray(arg).tolist()))

    def f(x: Any) -> Any:
        x = lax.while_loop(lambda x: id_tap(tap_as("w_c"), x < 2),
                           lambda x: id_tap(tap_as("w_b"), x + 1), x)
        return id_tap(tap_as("3"), x)

    g = numjax.vmap(f)
    out = (numjax.jit(g) if jitted else g)(np.arange(5, dtype=np.int32))
    barrier_wait()
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [2, 2, 2, 3, 4])
    assert seen == [  # JAX 0.4.30's taps, in order
        ("w_c", [True, True, False, False, False]),
        ("w_b", [1, 2, 3, 4, 5]),
        ("w_c", [True, False, False, False, False]),
        ("w_b", [2, 3, 3, 4, 5]),
        ("w_c", [False, False, False, False, False]),
        ("3", [2, 2, 2, 3, 4]),
    ]
