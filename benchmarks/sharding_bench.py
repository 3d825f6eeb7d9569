"""Sharded jit and shard_map on 2 CPU devices: numjax against one device and (when installed)
JAX, measured in one run. Prints times and ratios; asserts nothing.

    python benchmarks/sharding_bench.py            # everything
    python benchmarks/sharding_bench.py mlp        # one section: mlp, elementwise, cpu

The device count is set here before either library starts its backend.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time

os.environ.setdefault("NUMJAX_NUM_CPU_DEVICES", "2")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _report import best, block, row

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.runtime import blas, stream
from numjax.experimental.shard_map import shard_map
from numjax.sharding import Mesh, NamedSharding, PartitionSpec

try:  # JAX is optional: compared against when present.
    import jax
    import jax.numpy as jjnp
    from jax import lax as jlax
    from jax.experimental.shard_map import shard_map as jshard_map
    from jax.sharding import Mesh as JMesh
    from jax.sharding import NamedSharding as JNamedSharding
    from jax.sharding import PartitionSpec as JP
except ImportError:
    jax = None

N = 2
P = PartitionSpec


def _data(batch: int) -> tuple[Any, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    sizes = [784, 1024, 1024, 10]
    params = [((rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32),
               np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
    x = rng.normal(size=(batch, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]  # one-hot labels
    return params, x, y


def _step(lib: Any, np_: Any, lax_: Any, axis: str | None) -> Callable[..., Any]:
    """One SGD step of softmax cross-entropy; with `axis`, the gradient averaged over it."""
    def loss(params: Any, x: Any, y: Any) -> Any:
        h = x
        for w, b in params[:-1]:
            h = lib.nn.relu(h @ w + b)
        w, b = params[-1]
        return -np_.mean(np_.sum(lib.nn.log_softmax(h @ w + b) * y, axis=1))

    def step(params: Any, x: Any, y: Any) -> Any:
        grads = lib.grad(loss)(params, x, y)
        if axis is not None:
            grads = lax_.pmean(grads, axis)
        return lib.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
    return step


def mlp() -> None:
    """A data-parallel MLP step (784-1024-1024-10, SGD, global batch 1024): under jit with the
    batch split over 2 devices and the parameters on both, and the same through shard_map,
    against the whole batch on one device."""
    params, x, y = _data(1024)
    one = numjax.jit(_step(numjax, jnp, lax, None))
    t_one = best(lambda: block(one(params, x, y)), 5, 3)

    mesh = Mesh(np.array(numjax.devices()), ("batch",))
    split, whole = NamedSharding(mesh, P("batch")), NamedSharding(mesh, P())
    ps = numjax.device_put(params, whole)
    xs, ys = numjax.device_put(x, split), numjax.device_put(y, split)
    sharded = numjax.jit(_step(numjax, jnp, lax, None))
    t_jit = best(lambda: block(sharded(ps, xs, ys)), 5, 3)
    mapped = numjax.jit(shard_map(_step(numjax, jnp, lax, "batch"), mesh,
                                  in_specs=(P(), P("batch"), P("batch")), out_specs=P()))
    t_map = best(lambda: block(mapped(ps, xs, ys)), 5, 3)

    tj_jit = tj_map = None
    if jax is not None:
        jmesh = JMesh(np.array(jax.devices()), ("batch",))
        jsplit, jwhole = JNamedSharding(jmesh, JP("batch")), JNamedSharding(jmesh, JP())
        jps = jax.device_put(params, jwhole)
        jxs, jys = jax.device_put(x, jsplit), jax.device_put(y, jsplit)
        jstep = jax.jit(_step(jax, jjnp, jlax, None))
        tj_jit = best(lambda: jax.block_until_ready(jstep(jps, jxs, jys)), 5, 3)
        jmapped = jax.jit(jshard_map(_step(jax, jjnp, jlax, "batch"), jmesh,
                                     in_specs=(JP(), JP("batch"), JP("batch")),
                                     out_specs=JP()))
        tj_map = best(lambda: jax.block_until_ready(jmapped(jps, jxs, jys)), 5, 3)
    row("MLP step, batch 1024: jit, batch on 2 devices", t_jit, "1 device", t_one, tj_jit)
    row("  ... through shard_map", t_map, "1 device", t_one, tj_map)
    # One device's BLAS already runs on every core; with it on one core (as each of the 2
    # devices' BLAS is) the rows show how the data-parallel split itself scales.
    # (The one-device program runs on that device's thread: its BLAS is limited there.)
    device_stream = stream.stream_for(numjax.devices()[0])
    if _on_stream(device_stream, lambda: blas.limit_this_thread(N)):
        t_one_core = best(lambda: block(one(params, x, y)), 5, 3)
        _on_stream(device_stream, lambda: blas.limit_this_thread(1))
        row("  jit vs 1 device with BLAS on 1 core", t_jit, "1 dev/1 core", t_one_core)
        row("  shard_map vs 1 device with BLAS on 1 core", t_map, "1 dev/1 core", t_one_core)


def _on_stream(device_stream: Any, fn: Callable[[], Any]) -> Any:
    """`fn()` run on a device's own thread (where its programs run); its result."""
    out: list[Any] = []
    device_stream.run(lambda: out.append(fn()))
    device_stream.synchronize()
    return out[0]


def _thread_cpu() -> dict[str, float]:
    """Each live thread's CPU seconds so far, by name."""
    out = {}
    for t in threading.enumerate():
        if t.ident is not None:
            with contextlib.suppress(OSError):
                out[t.name] = time.clock_gettime(time.pthread_getcpuclockid(t.ident))
    return out


def _cpu_per_step(fn: Callable[[], Any], steps: int = 10) -> tuple[float, dict[str, float]]:
    """CPU seconds per call of the process, and of each thread that did work."""
    fn()
    threads, process = _thread_cpu(), time.process_time()
    for _ in range(steps):
        fn()
    spent = (time.process_time() - process) / steps
    after = _thread_cpu()
    per = {k: (v - threads.get(k, 0.0)) / steps for k, v in after.items()}
    return spent, {k: v for k, v in per.items() if v > 1e-4}


def cpu() -> None:
    """The MLP step's CPU time (meaningful on a busy machine, where wall times are not): the
    whole batch on one device with BLAS on one core, against each device's thread when the
    batch is split over 2 devices. The busiest device's time over one device's is the ratio
    the split gives on 2 idle cores, less the waits at the gradient sums. Run with
    OPENBLAS_NUM_THREADS=1, so one device's BLAS is on one core as each of the 2 devices' is
    (a BLAS spread over idle cores counts its threads' spinning as CPU time)."""
    params, x, y = _data(1024)
    one = numjax.jit(_step(numjax, jnp, lax, None))
    mesh = Mesh(np.array(numjax.devices()), ("batch",))
    split, whole = NamedSharding(mesh, P("batch")), NamedSharding(mesh, P())
    ps = numjax.device_put(params, whole)
    xs, ys = numjax.device_put(x, split), numjax.device_put(y, split)
    sharded = numjax.jit(_step(numjax, jnp, lax, None))
    t_one, _ = _cpu_per_step(lambda: block(one(params, x, y)))
    t_two, threads = _cpu_per_step(lambda: block(sharded(ps, xs, ys)))
    devices = {k: v for k, v in threads.items() if k.startswith("numjax-stream")}
    busiest = max(devices.values(), default=t_two)
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        print("(cpu: OPENBLAS_NUM_THREADS is not 1: the 1-device time counts BLAS spinning)")
    print(f"MLP step CPU, batch 1024: 1 device {t_one * 1e3:.1f} ms | "
          f"2 devices {t_two * 1e3:.1f} ms in all, per device "
          + ", ".join(f"{v * 1e3:.1f}" for v in devices.values())
          + f" ms (busiest / 1 device {busiest / t_one:4.2f}x)")


def elementwise() -> None:
    """A long elementwise chain over 16 M floats split over 2 devices, against one device."""
    x = np.random.default_rng(1).normal(size=(4096, 4096)).astype(np.float32)

    def f(np_: Any) -> Callable[[Any], Any]:
        return lambda v: np_.sum(np_.tanh(v) * 2.0 + np_.exp(-v * v))

    one = numjax.jit(f(jnp))
    t_one = best(lambda: one(x).block_until_ready(), 3, 3)
    mesh = Mesh(np.array(numjax.devices()), ("x",))
    xs = numjax.device_put(x, NamedSharding(mesh, P("x")))
    t_two = best(lambda: one(xs).block_until_ready(), 3, 3)
    tj = None
    if jax is not None:
        jmesh = JMesh(np.array(jax.devices()), ("x",))
        jxs = jax.device_put(x, JNamedSharding(jmesh, JP("x")))
        jf = jax.jit(f(jjnp))
        tj = best(lambda: jf(jxs).block_until_ready(), 3, 3)
    row("tanh/exp chain + sum, 16 M floats, 2 devices", t_two, "1 device", t_one, tj)


SECTIONS = {"mlp": mlp, "elementwise": elementwise, "cpu": cpu}

if __name__ == "__main__":
    print(f"numjax {numjax.__version__} on {numjax.device_count()} devices"
          + (f", jax {jax.__version__}" if jax is not None else ""))
    for name in sys.argv[1:] or list(SECTIONS):
        SECTIONS[name]()
