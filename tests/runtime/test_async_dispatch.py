"""Asynchronous dispatch: large jit computations run in order on their device's stream; their
outputs are pending until then, reading one waits, and an error surfaces where an output is
used while the stream goes on. `numjax_async_dispatch_min_bytes=0` makes every jit call
asynchronous here."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax._src.core.avals import ShapedArray
from numjax._src.core.trace import Primitive
from numjax._src.runtime import stream
from numjax._src.runtime.stream import Pending


@pytest.fixture
def always_async():
    with stream.async_min_bytes(0):
        yield


# A primitive whose kernel fails on negative input: a computation that raises while it runs.
fragile_p = Primitive("fragile")


def _fragile_kernel(x):
    if (np.asarray(x) < 0).any():
        raise ValueError("fragile got a negative value")
    return np.asarray(x) * 1


fragile_p.def_impl(_fragile_kernel)
fragile_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
fragile_p.declare_undefined("jvp", "fragile is a test primitive")
fragile_p.declare_undefined("batch", "fragile is a test primitive")

# A primitive whose kernel waits until the test lets it go: a computation still running when
# the call that started it, and the calls queued behind it, have returned.
gate = threading.Event()
gated_p = Primitive("gated")


def _gated_kernel(x):
    assert gate.wait(30), "the test never opened the gate"
    return np.asarray(x) * 1


gated_p.def_impl(_gated_kernel)
gated_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
gated_p.declare_undefined("jvp", "gated is a test primitive")
gated_p.declare_undefined("batch", "gated is a test primitive")


def test_computations_run_in_order_and_match_inline(always_async):
    f = numjax.jit(lambda x: jnp.sin(x) * 2.0 + 1.0)
    x = jnp.arange(6.0)
    outs = [x]
    for _ in range(20):
        outs.append(f(outs[-1]))        # each call consumes the previous pending result
    expected = np.arange(6.0, dtype=np.float32)
    for _ in range(20):
        expected = np.sin(expected) * np.float32(2.0) + np.float32(1.0)
    np.testing.assert_allclose(np.asarray(outs[-1]), expected, rtol=1e-6)
    assert all(o.is_ready() for o in outs)


def test_pending_outputs_have_shape_and_dtype_and_block_until_ready_waits(always_async):
    f = numjax.jit(lambda x: (x @ x.T).sum(axis=0))
    y = f(jnp.ones((64, 32)))
    assert y.shape == (64,) and y.dtype == np.float32
    assert y.block_until_ready() is y
    assert type(y._buf) is not Pending and y.is_ready()
    np.testing.assert_allclose(np.asarray(y), np.full(64, 64 * 32.0))


def test_an_error_surfaces_where_the_output_is_used_and_the_stream_goes_on(always_async):
    f = numjax.jit(lambda x: fragile_p.bind(x) + 1.0)
    bad = f(-jnp.ones(3))               # returns before the computation runs
    with pytest.raises(ValueError, match="fragile got a negative value"):
        bad.block_until_ready()
    with pytest.raises(ValueError, match="fragile got a negative value"):
        print(bad)
    downstream = f(bad)                 # consuming a failed output fails the same way
    with pytest.raises(ValueError, match="fragile got a negative value"):
        np.asarray(downstream)
    good = f(jnp.ones(3))               # the stream keeps working
    np.testing.assert_array_equal(np.asarray(good), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("donate", [False, True])
def test_a_queued_call_reads_the_numpy_arrays_as_they_were_at_the_call(always_async, donate):
    # JAX copies a NumPy argument to the device during the call, so changing the array once
    # the call has returned never changes the result, however late the computation runs.
    gate.clear()
    blocker = numjax.jit(lambda x: gated_p.bind(x))(jnp.ones(4))
    host = np.ones(8, np.float32)
    kwargs = {"donate_argnums": 1} if donate else {}
    f = numjax.jit(lambda w, x: jnp.tanh(x) * 2.0 + w, **kwargs)
    y = f(jnp.float32(0.5), host)
    host[:] = -7.0                      # the computation has not run yet
    gate.set()
    np.testing.assert_allclose(np.asarray(y), np.tanh(np.float32(1.0)) * 2.0 + 0.5, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(blocker), np.ones(4))


def test_eager_operations_wait_for_pending_operands(always_async):
    f = numjax.jit(lambda x: x * 3.0)
    y = f(jnp.arange(4.0))
    z = y + 1.0                         # an eager op on a pending Array waits for it
    np.testing.assert_array_equal(np.asarray(z), [1.0, 4.0, 7.0, 10.0])
    assert float(f(jnp.ones(()))) == 3.0


def test_effects_barrier_waits_for_every_stream(always_async):
    f = numjax.jit(lambda x: jnp.tanh(x) + x)
    outs = [f(jnp.full(1000, float(i))) for i in range(10)]
    numjax.effects_barrier()
    assert all(type(o._buf) is not Pending for o in outs)


def test_donated_parameters_in_a_loop(always_async):
    step = numjax.jit(lambda p: {"w": p["w"] * 0.5 + 1.0}, donate_argnums=0)
    params = {"w": jnp.zeros(16) + 4.0}
    for _ in range(6):
        old = params
        params = step(params)
        assert old["w"].is_deleted()
    expected = 4.0
    for _ in range(6):
        expected = expected * 0.5 + 1.0
    np.testing.assert_allclose(np.asarray(params["w"]), np.full(16, expected))


def test_small_computations_run_inline():
    with stream.async_min_bytes(32 << 20):      # the default
        f = numjax.jit(lambda x: x + 1.0)
        y = f(jnp.ones(1000))
    assert type(y._buf) is not Pending


def test_debug_nans_keeps_dispatch_synchronous(always_async):
    f = numjax.jit(lambda x: x / x)
    with numjax.debug_nans(True):
        with pytest.raises(FloatingPointError):
            f(jnp.zeros(3))


def test_deleting_a_pending_array():
    with stream.async_min_bytes(0):
        f = numjax.jit(lambda x: x * 2.0)
        y = f(jnp.ones(3))
        y.delete()
        numjax.effects_barrier()
    assert y.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(y)
