"""The `jax.Array` surface of 0.4.30: printing (against JAX's recorded outputs), sharding and
shards, metadata, conversions, pickling, DLPack, deletion.

tests/data/array_print_golden.json holds what JAX 0.4.30 printed for each case (recorded by
tools/make_array_golden.py); tests never import jax.
"""

from __future__ import annotations

import json
import pathlib
import pickle
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp

GOLDEN = json.loads((pathlib.Path(__file__).parent.parent / "data" / "array_print_golden.json")
                    .read_text())
ENV = {"jax": jax, "jnp": jnp, "np": np}


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: c["expr"])
def test_repr_and_str_match_jax(case: Any) -> None:
    x = eval(case["expr"], ENV)
    assert repr(x) == case["repr"]
    assert str(x) == case["str"]
    if case["repr_in_list"] is not None:
        assert repr([x]) == case["repr_in_list"]


@pytest.mark.parametrize("case", GOLDEN["formats"], ids=lambda c: f"{c['expr']}:{c['spec']}")
def test_format_matches_jax(case: Any) -> None:
    x = eval(case["expr"], ENV)
    if "ok" in case:
        assert format(x, case["spec"]) == case["ok"]
    else:
        with pytest.raises(getattr(__builtins__, case["error"], None) or Exception) as info:
            format(x, case["spec"])
        assert type(info.value).__name__ == case["error"]
        assert str(info.value) == case["message"]


def test_metadata() -> None:
    x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
    assert (x.shape, x.dtype, x.ndim, x.size, x.itemsize, x.nbytes) == (
        (2, 3), np.dtype("float32"), 2, 6, 4, 24)
    assert x.on_device_size_in_bytes() == 24 and not x.weak_type
    assert x.is_ready() and x.platform() == "cpu" and x.block_until_ready() is x
    assert x.is_fully_addressable and x.is_fully_replicated
    assert isinstance(x, jax.Array) and not x._committed


def test_jax_0430_has_no_device_method_nor_public_committed() -> None:
    x = jnp.ones(2)
    for name in ("device", "committed", "to_device_buffer"):
        with pytest.raises(AttributeError):
            getattr(x, name)


def test_single_device_sharding_and_shards() -> None:
    d = jax.devices()[0]
    x = jnp.arange(4.0)
    s = x.sharding
    assert isinstance(s, jax.sharding.SingleDeviceSharding)
    assert isinstance(s, jax.sharding.Sharding)
    assert repr(s) == "SingleDeviceSharding(device=CpuDevice(id=0))"
    assert s.device_set == {d} and s.addressable_devices == {d}
    assert s.is_fully_replicated and s.is_fully_addressable and s.memory_kind is None
    assert s == jax.sharding.SingleDeviceSharding(d)
    assert hash(s) == hash(jax.sharding.SingleDeviceSharding(d))
    assert s.shard_shape((4,)) == (4,)
    assert s.devices_indices_map((4,)) == {d: (slice(None),)}
    assert x.devices() == {d}
    assert repr(x.addressable_shards) == (
        "[Shard(device=CpuDevice(id=0), index=(slice(None, None, None),), replica_id=0, "
        "data=[0. 1. 2. 3.])]")
    shard = x.addressable_shards[0]
    assert shard.device is d and shard.replica_id == 0 and shard.data._committed
    assert x.global_shards[0].index == (slice(None),)
    data = x.addressable_data(0)
    assert data is not x and data._committed
    np.testing.assert_array_equal(data, x)
    with pytest.raises(ValueError, match="Could not find memory addressable by device cpu"):
        jax.sharding.SingleDeviceSharding(d, memory_kind="unpinned_host")


def test_host_conversions() -> None:
    x = jnp.array([1.5, 2.5])
    value = np.asarray(x)
    assert not value.flags.writeable
    assert x.tolist() == [1.5, 2.5] and x.tobytes() == np.array([1.5, 2.5], np.float32).tobytes()
    assert jnp.array(3).item() == 3 and int(jnp.array(3)) == 3
    assert float(jnp.array(2.5)) == 2.5 and bool(jnp.array(True))
    assert [1, 2, 3][jnp.array(1)] == 2
    with pytest.raises(TypeError):
        [1, 2][jnp.array(1.0)]
    assert len(x) == 2
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(jnp.array(1.0))
    rows = list(jnp.arange(4).reshape(2, 2))
    assert [repr(r) for r in rows] == ["Array([0, 1], dtype=int32)", "Array([2, 3], dtype=int32)"]
    assert not rows[0]._committed


def test_unhashable_and_immutable() -> None:
    import collections.abc
    x = jnp.ones(2)
    # As in JAX, Arrays are not Hashable (libraries read this to tell static values apart).
    assert not isinstance(x, collections.abc.Hashable)
    assert not isinstance(jnp.float32(1), collections.abc.Hashable)
    with pytest.raises(TypeError, match="unhashable type"):
        hash(x)
    # A static argument must hash: JAX's error names its C++ Array type.
    with pytest.raises(ValueError) as info:
        jax.jit(lambda a, n: a * 2, static_argnums=1)(1., x)
    assert str(info.value) == (
        "Non-hashable static arguments are not supported. An error occurred while trying to "
        "hash an object of type <class 'jaxlib.xla_extension.ArrayImpl'>, [1. 1.]. The error "
        "was:\nTypeError: unhashable type: 'jaxlib.xla_extension.ArrayImpl'\n")
    with pytest.raises(TypeError, match="does not support item assignment"):
        x[0] = 1.0


def test_pickle_round_trip_keeps_dtype_and_weak_type() -> None:
    for x in [jnp.arange(3.0), jax.device_put(1.5), jnp.array([True, False]),
              jnp.arange(4, dtype=jnp.bfloat16), jnp.zeros((0, 2))]:
        y = pickle.loads(pickle.dumps(x))
        assert type(y) is type(x) and repr(y) == repr(x) and not y._committed
        assert y.weak_type == x.weak_type


def test_dlpack() -> None:
    x = jnp.arange(3.0)
    assert x.__dlpack_device__() == (1, 0)
    assert repr(x.__dlpack_device__()[0]) == "<DLDeviceType.kDLCPU: 1>"
    y = np.from_dlpack(x)
    np.testing.assert_array_equal(y, [0.0, 1.0, 2.0])
    assert type(x.__dlpack__()).__name__ == "PyCapsule"


def test_deleted_array() -> None:
    x = jnp.ones(2)
    x.delete()
    x.delete()
    assert x.is_deleted()
    assert repr(x.sharding) == "SingleDeviceSharding(device=CpuDevice(id=0))"
    for use in (repr, lambda a: a.addressable_shards, np.asarray):
        with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[2\]."):
            use(x)


def test_isinstance_holds_for_tracers() -> None:
    seen = []
    jax.jit(lambda a: seen.append(isinstance(a, jax.Array)) or a)(1.0)
    assert seen == [True]


def test_buffer_pointer_and_removed_buffer_attributes() -> None:
    x = jnp.arange(3.0) + 0
    pointer = x.unsafe_buffer_pointer()
    assert isinstance(pointer, int) and pointer == x.unsafe_buffer_pointer()
    assert isinstance(jnp.float32(2.0) * jnp.ones(()), jax.Array)
    assert isinstance((jnp.ones(()) + 1).unsafe_buffer_pointer(), int)
    # JAX 0.4.30's texts
    with pytest.raises(AttributeError, match=r"^arr.device_buffer has been deprecated. Use "
                                             r"arr.addressable_data\(0\)$"):
        _ = x.device_buffer
    with pytest.raises(AttributeError, match=r"arr.device_buffers has been deprecated. Use "
                                             r"\[x.data for x in arr.addressable_shards\]"):
        _ = x.device_buffers


def test_copies_own_their_buffers_and_keep_the_layout() -> None:
    # As in JAX 0.4.30: `jnp.array(x, copy=False)` is `x`'s buffer; `copy=True`, `jnp.copy`
    # and `.copy()` give new buffers on the same devices, a pmap output's copy stays a
    # PmapSharding Array with each shard copied on its device.
    from numjax.test_util import cpu_devices
    x = jax.device_put(jnp.arange(4.0), jax.devices()[0])
    assert jnp.array(x, copy=False).unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    for y in (jnp.array(x, copy=True), jnp.array(x), jnp.copy(x), x.copy()):
        assert y.unsafe_buffer_pointer() != x.unsafe_buffer_pointer()
        assert y.devices() == x.devices() and y.weak_type == x.weak_type
        np.testing.assert_array_equal(y, x)
        jax.jit(lambda a: a + 1, donate_argnums=0)(y)  # donating the copy leaves x alone
        np.testing.assert_array_equal(x, np.arange(4.0))
    assert jnp.copy(jnp.asarray(2.0)).weak_type
    with cpu_devices(4):
        out = jax.pmap(lambda v: v * 2)(jnp.arange(4.0))
        twin = jnp.copy(out)
        assert isinstance(twin.sharding, jax.sharding.PmapSharding)
        assert twin.sharding == out.sharding
        for a, b in zip(out.addressable_shards, twin.addressable_shards, strict=True):
            assert (a.device, a.index) == (b.device, b.index)
            assert a.data.unsafe_buffer_pointer() != b.data.unsafe_buffer_pointer()
        np.testing.assert_array_equal(twin, [0.0, 2.0, 4.0, 6.0])
    deleted = jnp.ones(2)
    deleted.delete()
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[2\]."):
        jnp.copy(deleted)


NUMPY_ON_THE_LEFT = {
    # expression: (result dtype, weak type), as JAX 0.4.30 gives them
    "np.float32(0.5) * x": ("float32", False),
    "np.float64(0.5) * x": ("float32", False),
    "np.int32(2) + x": ("float32", False),
    "np.ones(3, np.float32) * x": ("float32", False),
    "np.array(2.0) * x": ("float32", False),
    "np.float32(1) < x": ("bool", False),
    "np.float32(2) ** x": ("float32", False),
    "np.bool_(True) & (x > 0)": ("bool", False),
    "np.float32(0.5) * jnp.float32(2)": ("float32", False),
}


@pytest.mark.parametrize("expr", sorted(NUMPY_ON_THE_LEFT))
def test_a_numpy_value_on_the_left_defers_to_the_array(expr: Any) -> None:
    x = jnp.ones(3)
    result = eval(expr, {"np": np, "jnp": jnp, "x": x})
    assert isinstance(result, jax.Array), type(result)
    assert (str(result.dtype), result.weak_type) == NUMPY_ON_THE_LEFT[expr]


@pytest.mark.parametrize("name", ["var", "std", "sum", "mean", "max", "ptp", "cumsum", "ravel",
                                  "flatten", "copy", "conj", "round", "argsort", "trace"])
def test_array_methods_under_every_transformation(name: str) -> None:
    # A tracer attribute of the same name once hid `x.var` under jit ('Var' object is not
    # callable): each method gives its eager value under jit, vmap and jvp.
    x = jnp.arange(6.0).reshape(2, 3)
    expected = np.asarray(getattr(x, name)())
    np.testing.assert_allclose(jax.jit(lambda x: getattr(x, name)())(x), expected)
    np.testing.assert_allclose(jax.jvp(lambda x: getattr(x, name)(), (x,), (x,))[0], expected)
    batched = jax.vmap(lambda x: getattr(x, name)())(x[None])
    np.testing.assert_allclose(batched[0], expected)
