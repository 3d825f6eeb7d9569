"""jax_explain_cache_misses names the reason for each miss; jax_log_compiles logs compiles."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp


@pytest.fixture
def explain(caplog: pytest.LogCaptureFixture) -> Any:
    # Every jit of a function shares its caches (as in JAX): start each test from none.
    jax.clear_caches()
    caplog.set_level(logging.WARNING, logger="numjax._src.pjit")
    with jax.explain_cache_misses(True):
        yield caplog


def _messages(caplog: pytest.LogCaptureFixture) -> Any:
    return [r.getMessage() for r in caplog.records if r.name == "numjax._src.pjit"]


def scale(x: Any, n: Any = 1) -> Any:
    return x * n


def test_never_seen_function(explain: Any) -> None:
    jax.jit(scale, static_argnums=1)(jnp.ones(3), 1)
    (message,) = _messages(explain)
    assert message.startswith("TRACING CACHE MISS at ")
    assert "because:\n  never seen function:\n    scale id=" in message


def test_shape_dtype_and_weak_type_mismatches(explain: Any) -> None:
    f = jax.jit(scale)
    f(jnp.ones(3))
    f(jnp.ones(4))
    f(jnp.ones(4, jnp.int32))
    messages = _messages(explain)
    assert "  never seen input type signature:\n    x: f32[4]\n  closest seen input type " \
           "signature has 1 mismatches, including:\n    * at x, seen f32[3], but now given " \
           "f32[4]" in messages[1]
    assert "* at x, seen f32[3], but now given i32[4]" in messages[2]
    g = jax.jit(lambda x: x)
    g(1.0)
    g(jnp.float32(1.0))
    assert "* at x, seen f32[]{weak_type=True}, but now given f32[]{weak_type=False}" in \
        _messages(explain)[-1]


def test_static_argument_tree_and_context_reasons(explain: Any) -> None:
    f = jax.jit(scale, static_argnums=1)
    f(jnp.ones(2), 1)
    f(jnp.ones(2), 2)
    assert "never seen static arguments:\n    args[1]=2\n  closest seen static arguments:\n" \
           "    args[1]=1" in _messages(explain)[-1]
    h = jax.jit(lambda x: x)
    h((1.0,))
    h([1.0])
    assert "never seen input pytree:\n    PyTreeDef((([*],), {}))" in _messages(explain)[-1]
    h(1.0)
    with jax.numpy_rank_promotion("warn"):
        h(1.0)
    assert "tracing context doesn't match" in _messages(explain)[-1]
    assert "jax_numpy_rank_promotion: seen 'allow', but now 'warn'" in _messages(explain)[-1]


def test_messages_worded_as_jax_0_4_30(explain: Any) -> None:
    # Texts recorded from JAX 0.4.30 for the same calls.
    def add(x: Any, y: Any) -> Any:
        return x + y

    f = jax.jit(add)
    f(1.0, 2.0)
    f(jnp.ones(3), 2.0)
    assert _messages(explain)[-1].endswith(
        "  never seen input type signature:\n    x: f32[3],  y: f32[]\n"
        "  closest seen input type signature has 1 mismatches, including:\n"
        "    * at x, seen f32[], but now given f32[3]")
    f(x=1.0, y=2.0)
    assert _messages(explain)[-1].endswith(
        "  never seen passing 0 positional args and 2 keyword args with keys:\n"
        "    'x', 'y'\n  closest seen is passing no keyword args")
    f(1.0, y=jnp.ones(2))
    assert _messages(explain)[-1].endswith(
        "  never seen passing 1 positional args and 1 keyword args with keys:\n"
        "    'y'\n  closest seen is passing no keyword args")
    k = jax.jit(lambda x, **kw: x)
    k(1.0, a=1.0, b=2.0)
    k(1.0, a=1.0)
    assert _messages(explain)[-1].endswith(
        "  never seen passing 1 positional args and 1 keyword args with keys:\n"
        "    'a'\n  closest seen passes 2 keyword args with keys:\n    'a', 'b'")
    g = jax.jit(lambda a, b, c, d, e: a)
    g(1.0, 1.0, 1.0, 1.0, 1.0)
    g(1.0, 1.0, 1.0, 1.0, jnp.ones(2))
    assert "  never seen input type signature\n  closest seen input type signature has 1 " \
           "mismatches, including:\n    * at e, seen f32[], but now given f32[2]" in \
           _messages(explain)[-1]
    assert "weak_type" not in _messages(explain)[-1]


def test_hits_log_nothing(explain: Any) -> None:
    f = jax.jit(scale)
    f(jnp.ones(3))
    f(jnp.zeros(3))
    assert len(_messages(explain)) == 1


def test_log_compiles(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="numjax._src.dispatch")
    with jax.log_compiles(True):
        jax.jit(lambda x: x + 1, )(np.ones(2, np.float32))
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "Finished tracing + transforming <lambda> for pjit in " in text
    assert "Compiling <lambda> with global shapes and types [ShapedArray(float32[2])]. " \
           "Argument mapping: [UnspecifiedValue]." in text
    assert "Finished jaxpr to NumPy source conversion jit(<lambda>) in " in text
    assert "Finished compilation of jit(<lambda>) in " in text


def test_compiles_are_debug_records_without_log_compiles(caplog: pytest.LogCaptureFixture) -> None:
    # JAX 0.4.30 writes the same steps as DEBUG records when jax_log_compiles is off: grad of a
    # jitted function logs a compile for its forward and its backward program.
    jax.clear_caches()
    f = jax.jit(lambda x: jnp.sin(x))
    caplog.set_level(logging.DEBUG, logger="numjax._src.dispatch")
    jax.grad(f)(2.0)
    records = [r for r in caplog.records if r.name == "numjax._src.dispatch"]
    assert {r.levelno for r in records} == {logging.DEBUG}
    messages = [r.getMessage() for r in records]
    assert sum(m.startswith("Finished compilation of jit(<lambda>)") for m in messages) == 2
    caplog.clear()
    caplog.set_level(logging.INFO, logger="numjax._src.dispatch")
    jax.jit(lambda x: x * 3)(1.0)  # not logged below DEBUG
    assert not [r for r in caplog.records if r.name == "numjax._src.dispatch"]


def test_log_compiles_logs_eager_compiles_once(caplog: pytest.LogCaptureFixture) -> None:
    # As in JAX, where an eager operation is a jitted function named after it: jnp.ones(3)
    # converts its fill value, then broadcasts it, each compiled once for its avals.
    jax.clear_caches()
    caplog.set_level(logging.WARNING, logger="numjax._src.dispatch")
    with jax.log_compiles(True):
        jnp.ones(3)
        jnp.ones(3)
    compiles = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Compiling")]
    assert compiles == [
        "Compiling convert_element_type with global shapes and types "
        "[ShapedArray(float32[])]. Argument mapping: [UnspecifiedValue].",
        "Compiling broadcast_in_dim with global shapes and types [ShapedArray(float32[])]. "
        "Argument mapping: [UnspecifiedValue]."]


def _steps(caplog: pytest.LogCaptureFixture, name: str = "<lambda>") -> Any:
    """The compile steps logged for `name`, in order, with their times cut off."""
    steps = []
    for r in caplog.records:
        message = r.getMessage()
        if name not in message:
            continue
        for prefix, step in [("Finished tracing", "trace"), ("Compiling", "compiling"),
                             ("Finished jaxpr to", "lowering"),
                             ("Finished compilation", "compile")]:
            if message.startswith(prefix):
                steps.append(step)
    caplog.clear()
    return steps


def test_calls_and_aot_stages_share_one_compile_pipeline(caplog: pytest.LogCaptureFixture) -> None:
    # What JAX 0.4.30 logs (steps for the jitted lambda) for each line, with
    # "Finished XLA compilation" / "to MLIR module conversion" as compile / lowering.
    jax.clear_caches()
    x3, x5, x7 = jnp.ones(3), jnp.ones(5), jnp.ones(7)
    f = lambda x: jnp.sin(x) + 1
    caplog.set_level(logging.WARNING, logger="numjax._src.dispatch")
    with jax.log_compiles(True):
        jax.jit(f)(x3)
        assert _steps(caplog) == ["trace", "compiling", "lowering", "compile"]
        compiled = jax.jit(f).lower(x3).compile()  # the call's trace, lowering and executable
        assert _steps(caplog) == []
        np.testing.assert_allclose(np.asarray(compiled(x3)), np.sin(1.0) + 1, rtol=1e-6)
        lowered = jax.jit(f).lower(x7)
        assert _steps(caplog) == ["trace", "compiling", "lowering"]
        jax.jit(f)(x7)  # compiles the lowering made above
        assert _steps(caplog) == ["compile"]
        lowered.compile()
        assert _steps(caplog) == []
        traced = jax.jit(f).trace(x5)
        assert _steps(caplog) == ["trace"]
        lowered = traced.lower()
        assert _steps(caplog) == ["compiling", "lowering"]
        lowered.compile()
        assert _steps(caplog) == ["compile"]
        jax.jit(f)(x5)
        assert _steps(caplog) == []
