"""Devices, backends and placement: device_put, device_put_sharded, device_put_replicated,
device_get, jit(device=...), committed arrays, default_device.

The device count is read once per process, so multi-device checks run JAX programs in a
subprocess (tests/data/*_program.py, one process each) and compare their output line by line
with what JAX 0.4.30 printed for the same programs (tests/data/*_golden.txt, recorded by
tools/make_program_golden.py).
"""

from __future__ import annotations

import os
import pathlib
import pickle
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax._src import xla_bridge

DATA = pathlib.Path(__file__).parent.parent / "data"


def run_jax_program(name: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run tests/data/<name>_program.py with numjax standing in for JAX (`numjax run`)."""
    environ = {k: v for k, v in os.environ.items()
               if k not in ("XLA_FLAGS", "NUMJAX_NUM_CPU_DEVICES", "JAX_PLATFORMS")}
    return subprocess.run([sys.executable, "-m", "numjax", "run", str(DATA / f"{name}_program.py")],
                          env={**environ, **env}, capture_output=True, text=True, timeout=120)


def assert_matches_golden(name: str, result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr
    expected = (DATA / f"{name}_golden.txt").read_text().splitlines()
    got = result.stdout.splitlines()
    for want, line in zip(expected, got, strict=True):
        assert line == want


@pytest.fixture(scope="module")
def placement_run() -> subprocess.CompletedProcess[str]:
    return run_jax_program("placement", NUMJAX_NUM_CPU_DEVICES="4")


def test_placement_on_four_devices_matches_jax(placement_run: Any) -> None:
    # device_put (committed, same device, trees, shardings), jit propagating committed devices,
    # JAX's incompatible-devices errors, jit(device=), device-to-device transfers under the
    # guard (implicit for jit on a signature's first call, explicit for device_put*),
    # device_put_sharded/replicated (PmapSharding, shards, errors), device_get, default_device.
    assert_matches_golden("placement", placement_run)


def test_transfer_guard_log_line_for_a_jit_argument_move(placement_run: Any) -> None:
    assert ("device-to-device transfer: aval=ShapedArray(float32[3]), "
            "sharding=SingleDeviceSharding(device=CpuDevice(id=0)), "
            "dst_sharding=SingleDeviceSharding(device=CpuDevice(id=1))") in placement_run.stderr


def test_backend_initialization_matches_jax() -> None:
    # jax_platforms errors, the device count read at initialization (XLA_FLAGS set after
    # import counts, set after initialization is ignored), Device attributes, backend lookup
    # errors, and the private registry names ecosystem code reads.
    assert_matches_golden("backends", run_jax_program("backends"))


def test_numjax_device_count_variable_and_xla_flags() -> None:
    code = ("import os, numjax; n = numjax.device_count(); "
            "os.environ['NUMJAX_NUM_CPU_DEVICES'] = '7'; print(n, numjax.device_count())")
    for env, expected in [({"NUMJAX_NUM_CPU_DEVICES": "2"}, "2 2"),
                          ({"XLA_FLAGS": "--xla_force_host_platform_device_count=5"}, "5 5")]:
        environ = {k: v for k, v in os.environ.items()
                   if k not in ("XLA_FLAGS", "NUMJAX_NUM_CPU_DEVICES")}
        out = subprocess.run([sys.executable, "-c", code], env={**environ, **env},
                             capture_output=True, text=True, timeout=60, check=True).stdout
        assert out.split() == expected.split()


# ---- one device, in this process ----------------------------------------------------------


def test_device_attributes_and_counts() -> None:
    (d,) = jax.devices()
    assert (repr(d), str(d)) == ("CpuDevice(id=0)", "TFRT_CPU_0")
    assert (d.id, d.platform, d.device_kind, d.process_index) == (0, "cpu", "cpu", 0)
    assert d.client is xla_bridge.get_backend() and d.client.platform == "cpu"
    assert jax.local_devices() == [d] and jax.devices("cpu") == [d]
    assert (jax.device_count(), jax.local_device_count()) == (1, 1)
    assert (jax.default_backend(), jax.process_index(), jax.process_count()) == ("cpu", 0, 1)
    # JAX's deprecated aliases warn (texts recorded from JAX 0.4.30), then answer.
    for alias, value, text in [
            (jax.host_count, 1, "jax.host_count has been renamed to jax.process_count. This "
                                "alias will eventually be removed; please update your code."),
            (jax.host_id, 0, "jax.host_id has been renamed to jax.process_index. This alias "
                             "will eventually be removed; please update your code."),
            (jax.host_ids, [0], "jax.host_ids has been deprecated; please use "
                                "range(jax.process_count()) instead. jax.host_ids will "
                                "eventually be removed; please update your code.")]:
        with pytest.warns(UserWarning) as record:
            assert alias() == value
        assert [str(w.message) for w in record] == [text]
    assert xla_bridge._backends == {"cpu": d.client}
    assert xla_bridge.backends() is xla_bridge._backends
    assert jax.lib.xla_bridge.get_backend() is d.client


def test_device_put_copies_host_values_uncommitted_by_default() -> None:
    host = np.ones(3)
    x = jax.device_put(host)
    host[0] = 5.0
    np.testing.assert_allclose(x, [1.0, 1.0, 1.0])
    assert x.dtype == np.float32 and not x._committed
    assert jax.device_put(x) is x


def test_device_put_to_a_device_commits_trees() -> None:
    d = jax.devices()[0]
    tree = jax.device_put({"a": 1.0, "b": [np.arange(2)]}, d)
    assert tree["a"]._committed and tree["a"].weak_type
    assert tree["b"][0].dtype == np.int32 and tree["b"][0].devices() == {d}
    y = jnp.ones(2)
    z = jax.device_put(y, d)
    assert z is not y and z._committed and not y._committed
    assert jax.device_put(y, jax.sharding.SingleDeviceSharding(d))._committed
    with pytest.raises(ValueError, match=r"`jax.device_put` only accepts `None`, `jax.sharding."
                       r"Sharding`, `jax.Device`, `Layout` or a pytree of these values. Received "
                       r"invalid value: cpu"):
        jax.device_put(y, "cpu")


def test_committed_arrays_flow_through_jit_and_eager_ops() -> None:
    d = jax.devices()[0]
    x = jax.device_put(jnp.arange(3.0), d)
    f = jax.jit(lambda a, b: a * b)
    for _ in range(2):                                  # the compile and the cached call
        out = f(x, jnp.ones(3))
        assert out._committed and out.devices() == {d}
        np.testing.assert_array_equal(out, [0.0, 1.0, 2.0])
    assert not f(jnp.ones(3), jnp.ones(3))._committed
    np.testing.assert_array_equal(x + 1, [1.0, 2.0, 3.0])


def test_jit_device_commits_outputs() -> None:
    d = jax.devices()[0]
    with pytest.warns(DeprecationWarning, match="backend and device argument on jit"):
        g = jax.jit(lambda a: a + 1, device=d)
    out = g(1.0)
    assert out._committed and out.devices() == {d} and out.weak_type
    assert g(jnp.ones(2))._committed


def test_device_get_fetches_arrays_and_passes_other_leaves() -> None:
    out = jax.device_get({"a": jnp.ones(2), "b": 3, "c": "s", "d": np.zeros(1)})
    assert isinstance(out["a"], np.ndarray) and not out["a"].flags.writeable
    assert out["b"] == 3 and out["c"] == "s" and isinstance(out["d"], np.ndarray)
    assert jax.device_get([1, 2.0]) == [1, 2.0]


def test_block_until_ready_returns_its_argument() -> None:
    tree = (jnp.ones(1), {"c": jnp.zeros(2)})
    assert jax.block_until_ready(tree) is tree


def test_device_put_sharded_and_replicated_on_one_device() -> None:
    d = jax.devices()
    s = jax.device_put_sharded([np.arange(2.0)], d)
    assert s.shape == (1, 2) and s._committed and not s.is_fully_replicated
    assert isinstance(s.sharding, jax.sharding.PmapSharding)
    np.testing.assert_array_equal(s.addressable_data(0), [0.0, 1.0])
    r = jax.device_put_replicated({"a": 1.0}, d)
    assert repr(r["a"]) == "Array([1.], dtype=float32, weak_type=True)"
    with pytest.raises(ValueError, match=r"len\(shards\) = 1 must equal len\(devices\) = 0."):
        jax.device_put_sharded([np.ones(2)], [])
    with pytest.raises(TypeError, match="must be a sequence"):
        jax.device_put_sharded(np.ones((1, 2)), d)
    with pytest.raises(ValueError, match="must be a non-empty sequence"):
        jax.device_put_replicated(1.0, [])


def test_default_device_context_and_option() -> None:
    d = jax.devices()[0]
    with jax.default_device(d):
        assert jax.config.jax_default_device is d
        assert jnp.ones(1).devices() == {d}
    assert jax.config.jax_default_device is None


def test_pickled_committed_array_comes_back_uncommitted() -> None:
    x = jax.device_put(jnp.arange(2), jax.devices()[0])
    y = pickle.loads(pickle.dumps(x))
    assert not y._committed and repr(y) == "Array([0, 1], dtype=int32)"


def test_where_fast_path_with_committed_arrays_of_different_shapes() -> None:
    # Committed arrays have no hot-path aval (None): where's fast path must not take two
    # of them for arrays of one shape.
    d = jax.devices()[0]
    x = jax.device_put(jnp.ones(3), d)
    y = jax.device_put(jnp.zeros(1), d)
    np.testing.assert_array_equal(jnp.where(jnp.array([True, False, True]), x, y),
                                  [1.0, 0.0, 1.0])


def test_compiled_calls_keep_committed_devices() -> None:
    d = jax.devices()[0]
    x = jax.device_put(jnp.ones(2), d)
    compiled = jax.jit(lambda a: a * 2).lower(x).compile()
    assert compiled(x)._committed and not compiled(jnp.ones(2))._committed
    with pytest.warns(DeprecationWarning, match="backend and device argument on jit"):
        pinned = jax.jit(lambda a: a, device=d)
    assert pinned.lower(1.0).compile()(1.0)._committed


def test_device_shard_and_float0_are_top_level_names() -> None:
    assert isinstance(jax.devices()[0], jax.Device)
    assert jax.float0 is jax.dtypes.float0 and str(jax.float0) == "[('float0', 'V')]"
    assert isinstance(jnp.ones(2).addressable_shards[0], jax.Shard)
