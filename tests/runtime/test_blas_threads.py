"""How many threads BLAS gets while local devices run side by side: with only a process-wide
setting (OpenBLAS before 0.3.26, NumPy 1.26's wheels), `cores // devices` for as long as any
multi-device run lasts, then the previous count again."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax._src.runtime import blas
from numjax.test_util import cpu_devices


class FakeOpenBLAS:
    """A process-wide thread count, as an old OpenBLAS keeps it."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.seen: list[int] = []

    def set(self, count: int) -> None:
        self.count = count
        self.seen.append(count)

    def get(self) -> int:
        return self.count


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeOpenBLAS:
    blas._find_setters()
    library = FakeOpenBLAS(8)
    monkeypatch.setattr(blas, "_global_only", [(library.set, library.get)])
    monkeypatch.setattr(blas, "_cores", lambda: 4)
    return library


def test_a_process_wide_count_is_shared_out_and_put_back(fake: FakeOpenBLAS) -> None:
    with blas.devices_side_by_side(2):
        assert fake.count == 2
        with blas.devices_side_by_side(2):  # a second run at once: set once, kept
            assert fake.count == 2
        assert fake.count == 2
    assert fake.count == 8 and fake.seen == [2, 8]
    with blas.devices_side_by_side(1):  # one device: nothing to share
        assert fake.count == 8
    with pytest.raises(ValueError), blas.devices_side_by_side(8):
        assert fake.count == 1
        raise ValueError
    assert fake.count == 8


def test_a_pmap_on_the_device_threads_shares_the_cores(fake: FakeOpenBLAS) -> None:
    from numjax._src.api import pmap_executable
    counts: list[Any] = []

    def body(v: Any) -> Any:
        jax.debug.callback(lambda: counts.append(fake.count))
        return v @ v.T

    with cpu_devices(2), pmap_executable.spmd_min_bytes(0):
        x = np.arange(2 * 3 * 3, dtype=np.float32).reshape(2, 3, 3)
        out = jax.pmap(body)(jnp.asarray(x))
        jax.effects_barrier()
    np.testing.assert_allclose(np.asarray(out), x @ x.transpose(0, 2, 1))
    assert counts == [2, 2] and fake.count == 8


def test_a_numpy_tier_product_loads_no_scipy_blas() -> None:
    """Finding the BLAS libraries imports no SciPy module (scipy.linalg cost 60-160 ms at a
    process's first compile of a matrix product) and, on the NumPy tier, loads no SciPy
    OpenBLAS either (7 ms more of that compile, and its thread's spinning 15-20 ms of CPU of
    the first call): only the native tier, whose products call it, loads it."""
    program = ("import sys, numjax, numjax.numpy as jnp\n"
               "from numjax._src.runtime import blas\n"
               "x = jnp.ones((512, 512))\n"  # past ONE_THREAD_MACS: split over the workers
               "numjax.jit(jnp.dot)(x, x).block_until_ready()\n"
               "blas._find_setters()\n"
               "def loaded():\n"
               "    return {line.split()[-1] for line in open('/proc/self/maps')}\n"
               "scipy_blas = blas._scipy_openblas()\n"
               "print(sorted(m for m in sys.modules if m.startswith('scipy.linalg')))\n"
               "print(sorted(scipy_blas & loaded()))\n"
               "blas.include_scipy()\n"
               "print(scipy_blas <= loaded() and scipy_blas <= blas._seen)\n")
    env = dict(os.environ, NUMJAX_NATIVE="off")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         check=True, timeout=120, env=env).stdout.split("\n")
    assert out[:3] == ["[]", "[]", "True"]
