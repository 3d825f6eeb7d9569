"""How many threads BLAS gets while local devices run side by side: with only a process-wide
setting (OpenBLAS before 0.3.26, NumPy 1.26's wheels), `cores // devices` for as long as any
multi-device run lasts, then the previous count again."""

from __future__ import annotations

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


def test_finding_the_blas_libraries_imports_no_scipy_module() -> None:
    # Importing scipy.linalg to find SciPy's OpenBLAS cost 60-160 ms at a process's first
    # compile of a matrix product; its bundled library is found by path instead.
    program = ("import sys, numjax, numjax.numpy as jnp\n"
               "from numjax._src.runtime import blas\n"
               "numjax.jit(jnp.dot)(jnp.ones((2, 2)), jnp.ones((2, 2))).block_until_ready()\n"
               "blas._find_setters()\n"
               "print(sorted(m for m in sys.modules if m.startswith('scipy.linalg')))\n")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert out.split("\n")[0] == "[]"
