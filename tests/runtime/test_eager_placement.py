"""Eager operations on committed Arrays run on their device (JAX 0.4.30's outputs, recorded
with 4 CPU devices; the error names operands by position where JAX names the jnp function's
parameters)."""

from __future__ import annotations

import os
import subprocess
import sys

PROGRAM = """
import numjax, numjax.numpy as jnp
d = numjax.devices()
x = numjax.device_put(jnp.arange(3.0), d[1])
z = jnp.ones(3)
with numjax.transfer_guard_device_to_device("disallow"):
    try:
        x * z
        print("allowed")
    except RuntimeError as e:
        print(e)
y = x + 1
print(y.sharding, y._committed, jnp.sin(x).sharding)
print((x * z).sharding)
print(z.sharding, (z + 1).sharding, (z + 1)._committed)
try:
    x + numjax.device_put(jnp.ones(3), d[2])
except ValueError as e:
    print(e)
"""

EXPECTED = [
    "INVALID_ARGUMENT: Disallowed device-to-device transfer: aval=ShapedArray(float32[3]), "
    "sharding=SingleDeviceSharding(device=CpuDevice(id=0)), "
    "dst_sharding=SingleDeviceSharding(device=CpuDevice(id=1))",
    "SingleDeviceSharding(device=CpuDevice(id=1)) True "
    "SingleDeviceSharding(device=CpuDevice(id=1))",
    "SingleDeviceSharding(device=CpuDevice(id=1))",
    "SingleDeviceSharding(device=CpuDevice(id=0)) SingleDeviceSharding(device=CpuDevice(id=0)) "
    "False",
    "Received incompatible devices for jitted computation. Got argument args[0] of add with "
    "shape float32[3] and device ids [1] on platform CPU and argument args[1] of add with "
    "shape float32[3] and device ids [2] on platform CPU",
]


def test_eager_operations_follow_committed_operands():
    env = {**os.environ, "NUMJAX_NUM_CPU_DEVICES": "4"}
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                         env=env, check=True)
    assert out.stdout.splitlines() == EXPECTED


DEFAULT_DEVICE_PROGRAM = """
import numjax, numjax.numpy as jnp
d = numjax.devices()
a = jnp.ones(2)
with numjax.default_device(d[2]):
    b = jnp.ones(2)
    print(a.devices(), b.devices(), (a + 1).devices(), (b * 2).devices(), b._committed)
    print(numjax.jit(lambda x: x + 1)(a).devices())
print(a.devices(), b.devices(), (b + 1).devices())
"""

# JAX 0.4.30's output for the same program: an uncommitted Array stays where it was made.
DEFAULT_DEVICE_EXPECTED = [
    "{CpuDevice(id=0)} {CpuDevice(id=2)} {CpuDevice(id=2)} {CpuDevice(id=2)} False",
    "{CpuDevice(id=2)}",
    "{CpuDevice(id=0)} {CpuDevice(id=2)} {CpuDevice(id=0)}",
]


def test_arrays_live_where_the_default_device_was_when_they_were_made():
    env = {**os.environ, "NUMJAX_NUM_CPU_DEVICES": "4"}
    out = subprocess.run([sys.executable, "-c", DEFAULT_DEVICE_PROGRAM], capture_output=True,
                         text=True, env=env, check=True)
    assert out.stdout.splitlines() == DEFAULT_DEVICE_EXPECTED
