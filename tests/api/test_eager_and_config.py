"""Eager execution through Arrays, their printing, and configuration options."""

import threading

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax._src import compiler, config


def test_array_repr_matches_jax():
    assert repr(jnp.array([1.0, 2.0])) == "Array([1., 2.], dtype=float32)"
    assert repr(jnp.float32(3)) == "Array(3., dtype=float32)"
    assert repr(jnp.arange(3)) == "Array([0, 1, 2], dtype=int32)"
    assert repr(jnp.array(2.0)) == "Array(2., dtype=float32, weak_type=True)"
    assert str(jnp.array([1.0, 2.0])) == "[1. 2.]"


def test_eager_results_match_numpy():
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    out = jnp.tanh(x) * 2 + jnp.exp(x).sum(axis=0) - jnp.max(x, axis=1, keepdims=True)
    expected = np.tanh(x) * 2 + np.exp(x).sum(axis=0) - np.max(x, axis=1, keepdims=True)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert out.dtype == np.float32


def test_weak_types_follow_jax_promotion():
    x = jnp.ones(3, jnp.int32)
    assert (x * 2).dtype == np.int32
    assert (x * 2.5).dtype == np.float32 and (x * 2.5).weak_type
    assert (jnp.ones(2, jnp.float16) + 1.0).dtype == np.float16
    assert (jnp.ones(2, jnp.bfloat16) * 2).dtype == jnp.bfloat16.dtype


def test_arrays_are_immutable_and_unhashable():
    x = jnp.arange(3)
    with pytest.raises(TypeError, match="does not support item assignment"):
        x[0] = 1
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)
    with pytest.raises(ValueError):
        np.asarray(x)[0] = 5


def test_eager_ops_compile_once_per_shape_through_backend_compile(monkeypatch):
    seen = []
    original = compiler.backend_compile

    def spy(backend, module, options, host_callbacks):
        seen.append((backend.platform, module.primitive.name))
        return original(backend, module, options, host_callbacks)

    monkeypatch.setattr(compiler, "backend_compile", spy)
    x = jnp.ones((17, 5))
    jnp.sin(x)
    jnp.sin(x)
    assert seen.count(("cpu", "sin")) == 1
    jnp.sin(jnp.ones((5, 17)))
    assert seen.count(("cpu", "sin")) == 2


def test_config_update_read_and_thread_local_override():
    assert jax.config.jax_numpy_rank_promotion == "allow"
    with jax.numpy_rank_promotion("raise"):
        assert jax.config.jax_numpy_rank_promotion == "raise"
        with pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'"):
            jnp.ones(3) + jnp.ones((2, 3))
        seen = []
        t = threading.Thread(target=lambda: seen.append(jax.config.jax_numpy_rank_promotion))
        t.start()
        t.join()
        assert seen == ["allow"]
    assert jax.config.jax_numpy_rank_promotion == "allow"
    with pytest.raises(ValueError, match="Invalid value"):
        jax.config.update("jax_numpy_rank_promotion", "sometimes")
    with pytest.raises(AttributeError, match="Unrecognized config option"):
        jax.config.update("jax_no_such_option", 1)


def test_trace_context_changes_with_traced_options():
    before, before_id = config.trace_context(), config.trace_context_id()
    with jax.numpy_rank_promotion("warn"):
        assert config.trace_context() != before
        assert config.trace_context_id() != before_id
        warn_id = config.trace_context_id()
    assert config.trace_context() == before
    assert config.trace_context_id() == before_id
    with jax.numpy_rank_promotion("warn"):  # the same context again: the same number
        assert config.trace_context_id() == warn_id


def test_trace_context_ids_agree_across_threads():
    ids = []
    thread = threading.Thread(target=lambda: ids.append(config.trace_context_id()))
    thread.start()
    thread.join()
    assert ids == [config.trace_context_id()]


def test_a_jitted_function_keeps_one_program_per_option_context():
    f = jax.jit(lambda x: x + 1)
    x = np.arange(3, dtype=np.int32)
    assert f(x).dtype == np.int32
    with config.enable_x64(True):
        assert f(np.arange(3)).dtype == np.int64
        assert f(x).dtype == np.int32
    assert f(np.arange(3)).dtype == np.int32


def test_x64_option_canonicalizes():
    assert jnp.array(np.ones(2)).dtype == np.float32
    with config.enable_x64(True):
        assert jnp.array(np.ones(2)).dtype == np.float64
        assert jnp.arange(3).dtype == np.int64


def test_debug_nans_and_infs_check_eager_operations():
    import numjax
    x = jnp.array([0.0, 1.0])
    with numjax.debug_nans(True):
        with pytest.raises(FloatingPointError,
                           match=r"invalid value \(nan\) encountered in div at .*test_eager"):
            x / x
        np.testing.assert_array_equal(np.asarray(x + 1), [1.0, 2.0])   # clean results pass
        np.testing.assert_array_equal(np.asarray(1.0 / x), [np.inf, 1.0])  # infs are allowed
    with numjax.debug_infs(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in div"):
            1.0 / x
    assert np.isnan(np.asarray(x / x)[0])      # off again outside the contexts
