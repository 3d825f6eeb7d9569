"""`device=` of jnp's creation functions and where `*_like` results live, as in JAX 0.4.30
(recorded with 4 CPU devices): a Device or a Sharding places an eagerly made result there,
committed; `*_like` of a committed Array of the same shape stays on its devices."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.sharding import SingleDeviceSharding
from numjax.test_util import cpu_devices

MAKERS = [(jnp.empty, {}), (jnp.zeros, {}), (jnp.ones, {}), (jnp.full, {"fill_value": 1})]
LIKE = [(jnp.empty_like, {}), (jnp.zeros_like, {}), (jnp.ones_like, {}),
        (jnp.full_like, {"fill_value": 1})]


@pytest.fixture
def last_device():
    with cpu_devices(4):
        yield numjax.devices()[-1]


@pytest.mark.parametrize("func,kwargs", MAKERS)
@pytest.mark.parametrize("as_sharding", [False, True])
def test_creation_on_device(func, kwargs, as_sharding, last_device):
    target = SingleDeviceSharding(last_device) if as_sharding else last_device
    out = func(**kwargs, shape=(2, 3), dtype=np.float32, device=target)
    assert out.devices() == {last_device}
    assert out.sharding == SingleDeviceSharding(last_device)
    assert out._committed
    assert out.dtype == np.float32 and out.shape == (2, 3)


def test_full_with_an_array_fill_value_on_device(last_device):
    out = jnp.full((2,), np.array([1, 2]), device=last_device)
    assert out.devices() == {last_device}
    np.testing.assert_array_equal(out, [1, 2])


# JAX: (device from keyword, same devices for a like of that, committed, committed with
# another shape, committed for a weak scalar input) = (True, True, True, False, False).
@pytest.mark.parametrize("func,kwargs", LIKE)
def test_like_follows_a_committed_input(func, kwargs, last_device):
    out = func(np.ones((2, 3), np.float32), **kwargs, device=last_device)
    assert out.devices() == {last_device}
    again = func(out, **kwargs)
    assert again.devices() == {last_device} and again._committed
    assert not func(out, **kwargs, shape=(3,))._committed
    assert not func(3.0, **kwargs)._committed


def test_zeros_like_with_device_under_jit(last_device):
    x = numjax.device_put(jnp.array((1, 2, 3), np.int32), numjax.devices()[0])
    y = numjax.jit(partial(jnp.zeros_like, device=numjax.devices()[0]))(x)
    assert y.shape == (3,)
    assert y.sharding == SingleDeviceSharding(numjax.devices()[0])


def test_lax_full_like_keeps_a_committed_input_sharding(last_device):
    assert not lax.full_like(jnp.ones(3), 1.1)._committed
    x = numjax.device_put(jnp.ones(3), last_device)
    y = lax.full_like(x, 1.1)
    assert y._committed and y.sharding == x.sharding


def test_lax_full_sharding_applies_eagerly_only(last_device):
    sharding = SingleDeviceSharding(last_device)
    assert lax.full((2,), 1.0, sharding=sharding).sharding == sharding
    # Under jit the sharding is not applied (JAX: the output is not committed).
    assert not numjax.jit(lambda: lax.full((2,), 1.0, sharding=sharding))()._committed
