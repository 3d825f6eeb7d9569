"""restrict_backends: refuses compile-cache misses for named platforms; cache hits run.

Shapes here are odd on purpose (e.g. (13, 29)) so no other test in the same worker has already
compiled them: a compile-cache hit never reaches `backend_compile`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax._src import compiler
from numjax.experimental import RestrictedBackendError, restrict_backends

FORBIDDEN_CPU = "Compiling a JAX program for cpu is forbidden by restrict_backends()."


def test_fresh_jit_shape_under_forbidden_cpu_raises() -> None:
    f = jax.jit(lambda x: jnp.cos(x) * 3.0)
    x = jnp.ones((13, 29))
    with restrict_backends(forbidden=["cpu"]):
        with pytest.raises(RestrictedBackendError, match=r"^Compiling a JAX program for cpu"):
            f(x)
    assert f(x).shape == (13, 29)


def test_error_message_and_type() -> None:
    x = jnp.ones((13, 31))
    with restrict_backends(forbidden=["cpu"]), pytest.raises(RuntimeError) as info:
        jax.jit(lambda x: x - 1)(x)
    assert type(info.value) is RestrictedBackendError
    assert str(info.value) == FORBIDDEN_CPU


def test_cache_hit_does_not_raise() -> None:
    f = jax.jit(lambda x: jnp.tanh(x) + x)
    x = jnp.ones((17, 3))
    expected = np.asarray(f(x))
    with restrict_backends(forbidden=["cpu"]):
        out = f(x)
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_eager_op_on_fresh_shape_raises_and_hit_runs() -> None:
    x = jnp.ones((19, 7, 2))
    with restrict_backends(forbidden=["cpu"]):
        with pytest.raises(RestrictedBackendError):
            jnp.sin(x)
    warm = jnp.sin(x)  # compiled now, outside the context
    with restrict_backends(forbidden=["cpu"]):
        np.testing.assert_array_equal(np.asarray(jnp.sin(x)), np.asarray(warm))


def test_allowed_cpu_passes() -> None:
    with restrict_backends(allowed=["cpu"]):
        out = jax.jit(lambda x: x * 2 + 1)(jnp.ones((23, 5)))
        eager = jnp.exp(jnp.zeros((5, 23)))
    assert float(out[0, 0]) == 3.0 and float(eager[0, 0]) == 1.0


def test_allowed_other_platform_forbids_cpu() -> None:
    x = jnp.ones((29, 3))
    with restrict_backends(allowed=["tpu"]), pytest.raises(RestrictedBackendError):
        jax.jit(lambda x: x + 5)(x)


def test_no_restrictions_specified() -> None:
    with pytest.raises(ValueError, match=r"^No restrictions specified\.$"):
        with restrict_backends():
            pass


def test_both_allowed_and_forbidden() -> None:
    message = "Backends {'cpu'} can't be both allowed and forbidden."
    with pytest.raises(ValueError) as info:
        with restrict_backends(allowed=["cpu", "gpu"], forbidden=["cpu", "tpu"]):
            pass
    assert str(info.value) == message


def test_restores_previous_function_on_exit_and_on_error() -> None:
    original = compiler.backend_compile
    with restrict_backends(forbidden=["gpu"]):
        assert compiler.backend_compile is not original
    assert compiler.backend_compile is original
    with pytest.raises(RestrictedBackendError), restrict_backends(forbidden=["cpu"]):
        jax.jit(lambda x: x / 7)(jnp.ones((31, 2)))
    assert compiler.backend_compile is original


def test_nesting() -> None:
    original = compiler.backend_compile
    x = jnp.ones((37, 2))
    with restrict_backends(forbidden=["gpu"]):
        outer = compiler.backend_compile
        with restrict_backends(forbidden=["cpu"]):
            with pytest.raises(RestrictedBackendError):
                jax.jit(lambda x: x * 11)(x)
        assert compiler.backend_compile is outer
        assert float(jax.jit(lambda x: x * 13)(x)[0, 0]) == 13.0
    assert compiler.backend_compile is original


def test_chex_style_wrapper_sees_every_miss_and_no_hit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrapper installed the way chex installs its own sees each compile with a cpu backend."""
    calls = []
    original = compiler.backend_compile

    def spy(backend: Any, module: Any, options: Any, host_callbacks: Any) -> Any:
        calls.append((backend.platform, type(module).__name__))
        return original(backend, module, options, host_callbacks)

    x = jnp.ones((41, 3))  # made before the spy: only the calls below are counted
    monkeypatch.setattr(compiler, "backend_compile", spy)
    f = jax.jit(lambda x: jnp.cos(x) + x)
    f(x)
    assert len(calls) == 1
    jit_module = calls[0][1]
    f(x)
    f(jnp.zeros_like(x))  # the eager zeros may compile; the jit call is a hit
    assert [c for c in calls if c[1] == jit_module] == [calls[0]]
    f(jnp.ones((41, 5)))  # a new shape: one more jit compile
    assert len([c for c in calls if c[1] == jit_module]) == 2
    jnp.sin(x)
    n = len(calls)
    jnp.sin(x)
    assert len(calls) == n
    assert {platform for platform, _ in calls} == {"cpu"}


def test_wrapper_under_restrict_backends_composes(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    original = compiler.backend_compile

    def spy(backend: Any, *args: Any) -> Any:
        calls.append(backend.platform)
        return original(backend, *args)

    monkeypatch.setattr(compiler, "backend_compile", spy)
    with restrict_backends(allowed=["cpu"]):
        jax.jit(lambda x: x - 3)(jnp.ones((43, 2)))
    assert calls and compiler.backend_compile is spy
