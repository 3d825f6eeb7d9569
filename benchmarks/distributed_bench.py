"""pmap across MPI processes, against bare mpi4py calls on the same buffers. Run it under a
launcher (it needs the [mpi] extra); rank 0 prints times and ratios from one run, asserting
nothing:

    mpiexec -n 2 python benchmarks/distributed_bench.py
"""

from __future__ import annotations

import timeit
from collections.abc import Callable
from typing import Any

import numpy as np
from mpi4py import MPI

import numjax
from numjax import lax

numjax.distributed.initialize()
RANK, SIZE = numjax.process_index(), numjax.process_count()
COMM = MPI.COMM_WORLD


def best(fn: Callable[[], Any], number: int, repeat: int = 5) -> float:
    fn()
    times = []
    for _ in range(repeat):
        COMM.Barrier()
        times.append(timeit.timeit(fn, number=number) / number)
    return COMM.allreduce(min(times), op=MPI.MAX)


def report(name: str, t: float, base_name: str, base: float, unit: str = "ms") -> None:
    if RANK == 0:
        scale = {"us": 1e6, "ms": 1e3}[unit]
        print(f"{name:46} numjax {t * scale:9.3f} {unit} | {base_name} {base * scale:9.3f} "
              f"{unit} ({t / base:5.2f}x)")


def psum() -> None:
    for count, label in [(1024, "1 K"), (16 << 20, "16 M")]:
        local = np.ones((numjax.local_device_count(), count), np.float32)
        f = numjax.pmap(lambda v: lax.psum(v, "i"), "i")
        number = 200 if count < 1 << 16 else 5
        t = best(lambda f=f, local=local: f(local).block_until_ready(), number)
        send, recv = np.ones(count, np.float32), np.empty(count, np.float32)
        t_mpi = best(lambda s=send, r=recv: COMM.Allreduce(s, r), number)
        report(f"psum of {label} floats, {SIZE} processes", t, "Allreduce", t_mpi,
               "us" if count < 1 << 16 else "ms")


def mlp() -> None:
    """A data-parallel MLP step (784-1024-1024-10, global batch 1024) on all processes,
    against the whole batch in one process (rank 0 alone, the others waiting)."""
    rng = np.random.default_rng(0)
    sizes = [784, 1024, 1024, 10]
    params = [((rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32),
               np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:], strict=False)]
    x = rng.normal(size=(1024, 784)).astype(np.float32)

    def loss(p: Any, xb: Any) -> Any:
        h = xb
        for w, b in p[:-1]:
            h = numjax.nn.relu(h @ w + b)
        return (h @ p[-1][0] + p[-1][1]).sum()

    def step(p: Any, xb: Any) -> Any:
        g = lax.pmean(numjax.grad(loss)(p, xb), "i")
        return numjax.tree_util.tree_map(lambda a, d: a - 1e-4 * d, p, g)

    n_local = numjax.local_device_count()
    mine = x.reshape(SIZE * n_local, -1, 784)[RANK * n_local:(RANK + 1) * n_local]
    pstep = numjax.pmap(step, "i")
    replicated = numjax.device_put_replicated(params, numjax.local_devices())
    t = best(lambda: numjax.block_until_ready(pstep(replicated, mine)), 3, 3)
    one = numjax.jit(lambda p, xb: numjax.tree_util.tree_map(
        lambda a, d: a - 1e-4 * d, p, numjax.grad(loss)(p, xb)))
    t_one = best(lambda: numjax.block_until_ready(one(params, x)), 3, 3)
    report(f"MLP step, batch 1024, {SIZE} processes vs 1", t, "1 process", t_one)


if __name__ == "__main__":
    psum()
    mlp()
