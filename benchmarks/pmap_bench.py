"""pmap on 2 CPU devices: numjax against one device, against NumPy and (when installed) JAX,
measured in one run. Prints times and ratios; asserts nothing.

    python benchmarks/pmap_bench.py            # everything
    python benchmarks/pmap_bench.py mlp        # one section: mlp, dispatch, psum, threshold

The device count is set here before either library starts its backend.
"""

from __future__ import annotations

import os

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

try:  # JAX is optional: compared against when present.
    import jax
    import jax.numpy as jjnp
    from jax import lax as jlax
except ImportError:
    jax = None

N = 2


def _mlp(lib: Any, lax_: Any, rng: np.random.Generator, batch: int) -> tuple[Any, ...]:
    sizes = [784, 1024, 1024, 10]
    params = [((rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32),
               np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:], strict=False)]
    x = rng.normal(size=(batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    return params, x, y


def _loss(np_: Any, nn: Any, params: Any, x: Any, y: Any) -> Any:
    h = x
    for w, b in params[:-1]:
        h = nn.relu(h @ w + b)
    w, b = params[-1]
    logits = h @ w + b
    return -np_.mean(np_.take_along_axis(nn.log_softmax(logits), y[:, None], axis=1))


def mlp() -> None:
    """A data-parallel MLP step (784-1024-1024-10, SGD, global batch 1024): the batch split over
    2 devices with pmean'd gradients, against the whole batch on one device."""
    rng = np.random.default_rng(0)
    params, x, y = _mlp(numjax, lax, rng, 1024)

    def sgd(lib: Any, np_: Any, nn: Any, lax_: Any, parallel: bool) -> Callable[..., Any]:
        def step(p: Any, xb: Any, yb: Any) -> Any:
            grads = lib.grad(lambda q: _loss(np_, nn, q, xb, yb))(p)
            if parallel:
                grads = lax_.pmean(grads, "batch")
            return lib.tree_util.tree_map(lambda a, g: a - 0.01 * g, p, grads)
        return lib.pmap(step, axis_name="batch") if parallel else lib.jit(step)

    one = sgd(numjax, jnp, numjax.nn, lax, False)
    p1 = numjax.device_put(params)
    t_one = best(lambda: block(one(p1, x, y)), 5, 3)
    two = sgd(numjax, jnp, numjax.nn, lax, True)
    p2 = numjax.device_put_replicated(params, numjax.devices())
    xs, ys = x.reshape(N, -1, 784), y.reshape(N, -1)
    xs_d = numjax.device_put_sharded(list(xs), numjax.devices())
    ys_d = numjax.device_put_sharded(list(ys), numjax.devices())
    t_two = best(lambda: block(two(p2, xs_d, ys_d)), 5, 3)
    tj = None
    if jax is not None:
        jtwo = sgd(jax, jjnp, jax.nn, jlax, True)
        jp = jax.device_put_replicated(params, jax.devices())
        jx = jax.device_put_sharded(list(xs), jax.devices())
        jy = jax.device_put_sharded(list(ys), jax.devices())
        tj = best(lambda: jax.block_until_ready(jtwo(jp, jx, jy)), 5, 3)
    row("MLP step, batch 1024, 2 devices vs 1", t_two, "1 device", t_one, tj)
    # One device's BLAS already runs on every core; with it on one core (as each of the 2
    # devices' BLAS is) the row shows how the data-parallel split itself scales.
    from numjax._src.runtime import blas
    if blas.limit_this_thread(N):
        t_one_core = best(lambda: block(one(p1, x, y)), 5, 3)
        blas.limit_this_thread(1)
        row("  ... vs 1 device with BLAS on 1 core", t_two, "1 dev/1 core", t_one_core)


def dispatch() -> None:
    """Calling a tiny pmapped function (x + 1 on 2 devices) against a tiny jitted one."""
    x = jnp.ones((N, 3))
    f = numjax.pmap(lambda v: v + 1)
    g = numjax.jit(lambda v: v + 1)
    t_pmap = best(lambda: f(x), 2000)
    t_jit = best(lambda: g(x), 2000)
    tj = None
    if jax is not None:
        jf = jax.pmap(lambda v: v + 1)
        jx = jjnp.ones((N, 3))
        tj = best(lambda: jf(jx).block_until_ready(), 2000)
    row("pmap x+1 (2 devices, shards of 3)", t_pmap, "jit", t_jit, tj, "us")
    from numjax._src.api import pmap_executable
    with pmap_executable.spmd_min_bytes(0):
        f2 = numjax.pmap(lambda v: v + 1)
        t_threads = best(lambda: f2(x), 500)
    row("  ... on the devices' threads", t_threads, "jit", t_jit, tj, "us")


def psum() -> None:
    """psum across 2 devices, against a bare np.add of the shards: as pmap runs it by default
    (a small one as one batched program), and on the devices' threads."""
    from numjax._src.api import pmap_executable
    for count, label in [(1024, "1 K"), (16 << 20, "16 M")]:
        x = numjax.device_put_sharded(
            [np.ones(count, np.float32) for _ in range(N)], numjax.devices())
        shards = [np.ones(count, np.float32) for _ in range(N)]
        number = 200 if count < 1 << 16 else 5
        unit = "us" if count < 1 << 16 else "ms"
        t_np = best(lambda s=shards: np.add(s[0], s[1]), number)
        tj = None
        if jax is not None:
            jf = jax.pmap(lambda v: jlax.psum(v, "i"), "i")
            jx = jax.device_put_sharded(shards, jax.devices())
            tj = best(lambda jf=jf, jx=jx: jf(jx).block_until_ready(), number)
        f = numjax.pmap(lambda v: lax.psum(v, "i"), "i")
        t = best(lambda f=f, x=x: block(f(x)), number)
        row(f"psum of {label} floats over 2 devices", t, "np.add", t_np, tj, unit)
        with pmap_executable.spmd_min_bytes(0):
            f = numjax.pmap(lambda v: lax.psum(v, "i"), "i")
            t = best(lambda f=f, x=x: block(f(x)), number)
        row("  ... on the devices' threads", t, "np.add", t_np, tj, unit)


def threshold() -> None:
    """Where running on the devices' threads starts to pay: a small elementwise program with
    a psum, per-device sizes from 1 K to 4 M floats, as one batched program against the
    devices' threads. numjax_pmap_spmd_min_bytes (default 1 MB per device) is set from this."""
    from numjax._src.api import pmap_executable

    def body(v: Any) -> Any:
        h = jnp.tanh(v * 1.5 + 0.5) * jnp.exp(-v * v)
        return h + lax.psum(jnp.sum(h), "i")

    for count in [1 << 10, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22]:
        x = numjax.device_put_sharded(
            [np.linspace(-1, 1, count, dtype=np.float32) for _ in range(N)], numjax.devices())
        number = max(3, min(500, (1 << 24) // (count * 8)))
        with pmap_executable.spmd_min_bytes(1 << 62):
            f = numjax.pmap(body, "i")
            t_batched = best(lambda f=f, x=x: block(f(x)), number)
        with pmap_executable.spmd_min_bytes(0):
            f = numjax.pmap(body, "i")
            t_threads = best(lambda f=f, x=x: block(f(x)), number)
        row(f"elementwise+psum, {count * 4 >> 10} KB/device, threads", t_threads,
            "batched", t_batched, unit="us" if count < 1 << 16 else "ms")


SECTIONS = {"mlp": mlp, "dispatch": dispatch, "psum": psum, "threshold": threshold}

if __name__ == "__main__":
    print(f"numjax {numjax.__version__} on {numjax.device_count()} devices"
          + (f", jax {jax.__version__}" if jax is not None else ""))
    for name in sys.argv[1:] or list(SECTIONS):
        SECTIONS[name]()
