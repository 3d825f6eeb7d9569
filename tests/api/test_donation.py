"""Donation at run time: a donated input paired with an output is consumed by the call, and its
buffer holds the output (written in place) when nothing else can see it."""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.core.errors import XlaRuntimeError


def _address(array) -> int:
    return array._buf.__array_interface__["data"][0]


@pytest.mark.parametrize("size", [8, 2_000_000], ids=["small", "fused"])
def test_output_is_written_into_the_donated_buffer(size):
    f = numjax.jit(lambda a: a * 2.0 + 1.0, donate_argnums=0)
    x = jnp.arange(float(size)) + 0
    before = _address(x)
    y = f(x)
    assert x.is_deleted()
    assert _address(y) == before
    np.testing.assert_array_equal(np.asarray(y[:4]), [1.0, 3.0, 5.0, 7.0])


def test_a_dying_intermediate_buffer_of_a_fused_cluster_takes_the_output():
    f = numjax.jit(lambda a, b: jnp.tanh(a) * b + 1.0, donate_argnums=(0,))
    a = jnp.ones(2_000_000) + 0
    b = jnp.full(2_000_000, 3.0)
    before = _address(a)
    out = f(a, b)
    assert _address(out) == before
    np.testing.assert_allclose(np.asarray(out[:2]), np.tanh(1.0) * 3 + 1, rtol=1e-6)
    assert not b.is_deleted()


def test_a_viewed_buffer_is_not_overwritten():
    f = numjax.jit(lambda a: a * 10.0, donate_argnums=0)
    x = jnp.arange(4.0) + 0
    view = x.reshape(2, 2)            # an eager reshape shares x's buffer
    host = np.asarray(x)              # and so does a host view
    y = f(x)
    assert x.is_deleted()
    np.testing.assert_array_equal(np.asarray(y), [0.0, 10.0, 20.0, 30.0])
    np.testing.assert_array_equal(np.asarray(view), [[0.0, 1.0], [2.0, 3.0]])
    np.testing.assert_array_equal(host, [0.0, 1.0, 2.0, 3.0])


def test_two_arrays_on_one_buffer_stay_independent():
    f = numjax.jit(lambda a: a + 100.0, donate_argnums=0)
    x = jnp.arange(3.0) + 0
    twin = jnp.array(x)               # may share x's buffer
    f(x)
    np.testing.assert_array_equal(np.asarray(twin), [0.0, 1.0, 2.0])


def test_donating_the_same_array_twice_raises_and_deletes_nothing():
    g = numjax.jit(lambda a, b: (a + 1, b + 1), donate_argnums=(0, 1))
    z = jnp.ones(3)
    with pytest.raises(XlaRuntimeError) as info:
        g(z, z)
    assert str(info.value) == (
        "INVALID_ARGUMENT: Attempt to donate the same buffer twice in Execute() (flattened "
        "argument 1, replica 0, partition 0, first use: 0). Toy example for this bug: "
        "`f(donate(a), donate(a))`.")
    assert not z.is_deleted()


@pytest.mark.parametrize("donate,call,message", [
    (1, lambda f, z: f(z, z), "donate a buffer which is also used by the same call to Execute() "
     "(flattened argument 1, replica 0, partition 0, first use: 0). Toy example for this bug: "
     "`f(a, donate(a))`."),
    (0, lambda f, z: f(z, z), "use a buffer that was previously donated in the same call to "
     "Execute() (flattened argument 1, replica 0, partition 0, first use: 0). Toy example for "
     "this bug: `f(donate(a), a)`."),
])
def test_donating_an_array_also_passed_undonated_raises_and_deletes_nothing(donate, call,
                                                                              message):
    # JAX 0.4.30's errors, whichever use comes first.
    f = numjax.jit(lambda a, b: a + b, donate_argnums=donate)
    z = jnp.ones(3)
    with pytest.raises(XlaRuntimeError) as info:
        call(f, z)
    assert str(info.value) == "INVALID_ARGUMENT: Attempt to " + message
    assert not z.is_deleted()


def test_donating_host_values_does_nothing():
    g = numjax.jit(lambda a, s: a * s, donate_argnums=0)
    host = np.ones(3, np.float32)
    out = g(host, 2.0)
    np.testing.assert_array_equal(host, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0, 2.0])


def test_x_equals_f_of_x_in_a_loop_with_statics_before_the_donated_pytree():
    def step(scale, params, lr):
        return {k: v - lr * scale * v for k, v in params.items()}

    f = numjax.jit(step, static_argnums=0, donate_argnums=1)
    params = {"w": jnp.ones((64, 64)) + 0, "b": jnp.zeros(64) + 1}
    expected = {k: np.asarray(v).copy() for k, v in params.items()}
    for _ in range(5):
        old = params
        params = f(2.0, params, 0.1)
        expected = {k: v - 0.1 * 2.0 * v for k, v in expected.items()}
        assert all(v.is_deleted() for v in old.values())
    for k in params:
        np.testing.assert_allclose(np.asarray(params[k]), expected[k], rtol=1e-6)


def test_donation_is_off_under_debug_nans():
    f = numjax.jit(lambda a: a * 2.0, donate_argnums=0)
    x = jnp.ones(3) + 0
    with numjax.debug_nans(True):
        y = f(x)
    assert not x.is_deleted()
    np.testing.assert_array_equal(np.asarray(x), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(np.asarray(y), [2.0, 2.0, 2.0])


def test_unpaired_donation_leaves_the_input_alone():
    f = numjax.jit(lambda a: a.sum(), donate_argnums=0)
    x = jnp.ones(3) + 0
    with pytest.warns(UserWarning, match="Some donated buffers were not usable"):
        f(x)
    assert not x.is_deleted()


def test_an_aot_compiled_call_consumes_donated_inputs_like_a_jit_call():
    f = numjax.jit(lambda a, b: a * 2.0 + b, donate_argnums=0)
    x = jnp.arange(4.0) + 0
    b = jnp.ones(4)
    compiled = f.lower(x, b).compile()
    assert [info.donated for info in compiled.args_info[0]] == [True, False]
    before = _address(x)
    y = compiled(x, b)
    assert x.is_deleted() and not b.is_deleted()
    assert _address(y) == before
    np.testing.assert_array_equal(np.asarray(y), [1.0, 3.0, 5.0, 7.0])
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(x)


def test_an_aot_lowering_warns_about_unusable_donations():
    f = numjax.jit(lambda a: a.sum(), donate_argnums=0)
    x = jnp.ones(3)
    with pytest.warns(UserWarning, match="Some donated buffers were not usable"):
        compiled = f.lower(x).compile()
    compiled(x)
    assert not x.is_deleted()


def _failing_callback(v):
    raise ZeroDivisionError("boom")


@pytest.mark.parametrize("body", [
    # the callback fails before any result is written into x's buffer
    lambda x: (numjax.debug.callback(_failing_callback, x), x * 2)[1],
    lambda x: numjax.pure_callback(_failing_callback, numjax.ShapeDtypeStruct((3,), jnp.float32),
                                   x),
], ids=["debug_callback", "pure_callback"])
def test_a_failed_call_keeps_an_intact_donated_input(body):
    # Deliberately unlike JAX 0.4.30, which deletes a donated input whenever the call fails:
    # numjax keeps it when nothing was written into its buffer (here the buffer itself is
    # handed over: the Array owns it and nothing else sees it).
    x = jnp.arange(3.0) + 0
    f = numjax.jit(body, donate_argnums=0)
    with pytest.raises(XlaRuntimeError):
        f(x).block_until_ready()
    assert not x.is_deleted()
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])
    out = numjax.jit(lambda x: x * 2, donate_argnums=0)(x)  # still donatable: consumed on success
    assert x.is_deleted() and out.tolist() == [0.0, 2.0, 4.0]


def test_a_failure_after_the_donated_buffer_was_written_deletes_the_input():
    def body(x):
        y = x * 2  # written into x's buffer once x is dead
        numjax.debug.callback(_failing_callback, y)
        return y + 1

    x = jnp.arange(3.0) + 0
    with pytest.raises(XlaRuntimeError):
        numjax.jit(body, donate_argnums=0)(x).block_until_ready()
    assert x.is_deleted()
    # an Array whose buffer something else sees donates a private copy: it survives
    x = jnp.arange(3.0) + 0
    view = np.asarray(x)
    with pytest.raises(XlaRuntimeError):
        numjax.jit(body, donate_argnums=0)(x).block_until_ready()
    assert not x.is_deleted() and view.tolist() == [0.0, 1.0, 2.0]


UPDATES = {
    "at set": lambda a: a.at[0].set(5.0),
    "at add": lambda a: a.at[2].add(1.0),
    "at multiply": lambda a: a.at[1:3].multiply(2.0),
    "at max": lambda a: a.at[3].max(9.0),
    "dynamic_update_slice": lambda a: lax.dynamic_update_slice(a, jnp.ones(2), (1,)),
}


@pytest.mark.parametrize("name", UPDATES)
def test_an_indexed_update_is_written_into_the_donated_buffer(name):
    # As XLA aliases a donated input to the output an update writes: the same memory comes back.
    update = UPDATES[name]
    x = jnp.arange(8.0) + 0
    before = _address(x)
    y = numjax.jit(update, donate_argnums=0)(x)
    assert x.is_deleted() and _address(y) == before
    np.testing.assert_array_equal(np.asarray(y), np.asarray(update(jnp.arange(8.0))))
