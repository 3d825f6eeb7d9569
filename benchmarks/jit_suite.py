"""The jit benchmark suite of DESIGN §10: numjax against NumPy and (when installed) JAX, measured
in one run. Prints times and ratios; asserts nothing.

    python benchmarks/jit_suite.py            # everything
    python benchmarks/jit_suite.py dispatch   # one section
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from _report import best, block
from _report import row as report_row

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.compiler import native_tier

try:  # JAX is optional: compared against when present.
    import jax
    import jax.numpy as jjnp
    from jax import lax as jlax
except ImportError:
    jax = None


def row(name: str, numjax_s: float, numpy_s: float | None = None,
        jax_s: float | None = None, unit: str = "ms") -> None:
    """One line: numjax's time against NumPy's and JAX's when measured."""
    report_row(name, numjax_s, "numpy", numpy_s, jax_s, unit)


def dispatch() -> None:
    for shape in [(), (3,)]:
        a = np.ones(shape, np.float32)
        f = numjax.jit(lambda x: x + 1)
        x = jnp.asarray(a)
        t_arr = best(lambda f=f, x=x: f(x), 20000)
        t_np_in = best(lambda f=f, a=a: f(a), 20000)
        t_np = best(lambda a=a: a + 1, 20000)
        tj = tj_np = None
        if jax is not None:
            g = jax.jit(lambda x: x + 1)
            xj = jjnp.asarray(a)
            tj = best(lambda g=g, xj=xj: g(xj).block_until_ready(), 20000)
            tj_np = best(lambda g=g, a=a: g(a).block_until_ready(), 20000)
        row(f"jit x+1 {shape}, Array in", t_arr, t_np, tj, "us")
        row(f"jit x+1 {shape}, NumPy in", t_np_in, t_np, tj_np, "us")


def _elementwise10(x: Any, m: Any) -> Any:
    for _ in range(5):
        x = m.tanh(x) * 1.5 + 0.1
    return x


def _mlp_init(rng: np.random.Generator, sizes: list[int]) -> list[tuple[Any, Any]]:
    return [((rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32),
             np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:], strict=True)]


def _mlp_loss(m: Any, params: Any, x: Any, y: Any) -> Any:
    for w, b in params[:-1]:
        x = m.tanh(x @ w + b)
    w, b = params[-1]
    logits = x @ w + b
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - m.log(m.exp(logits).sum(axis=1, keepdims=True))
    return -(logp * y).sum() / x.shape[0]


def _rnn(lax_mod: Any, m: Any, h: Any, xs: Any, w: Any) -> Any:
    def step(h: Any, x: Any) -> Any:
        h = m.tanh(h @ w + x)
        return h, None

    return lax_mod.scan(step, h, xs)[0]


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    block(fn())
    return time.perf_counter() - start


def first_call() -> None:
    """Compile latency: a fresh function each time, timed from the call to its result."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1000,)).astype(np.float32)
    params = _mlp_init(rng, [784, 1024, 1024, 10])
    xb = rng.normal(size=(256, 784)).astype(np.float32)
    yb = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 256)]
    h0 = np.zeros(64, np.float32)
    xs = rng.normal(size=(100, 64)).astype(np.float32)
    w = (rng.normal(size=(64, 64)) * 0.1).astype(np.float32)

    def measure(make: Callable[[], Any], args: tuple[Any, ...], repeat: int = 5
                ) -> tuple[float, float, float]:
        """(first call, first call minus a later call of the same function, lower + compile
        ahead of time): the second and third are the compile latency without the execution,
        the third without an execution's noise either."""
        firsts, latencies, aots = [], [], []
        for _ in range(repeat):
            fn = make()
            start = time.perf_counter()
            block(fn(*args))
            first = time.perf_counter() - start
            later = min(_timed(lambda fn=fn: fn(*args)) for _ in range(3))
            firsts.append(first)
            latencies.append(first - later)
            fn = make()
            start = time.perf_counter()
            fn.lower(*args).compile()
            aots.append(time.perf_counter() - start)
        return min(firsts), min(latencies), min(aots)

    cases = {
        "first call: 10-op elementwise": (
            lambda: numjax.jit(lambda x: _elementwise10(x, jnp)),
            lambda: jax.jit(lambda x: _elementwise10(x, jjnp)), (x,)),
        "first call: MLP value_and_grad": (
            lambda: numjax.jit(numjax.value_and_grad(lambda p: _mlp_loss(jnp, p, xb, yb))),
            lambda: jax.jit(jax.value_and_grad(lambda p: _mlp_loss(jjnp, p, xb, yb))),
            (params,)),
        "first call: scan of 100": (
            lambda: numjax.jit(lambda h: _rnn(lax, jnp, h, xs, w)),
            lambda: jax.jit(lambda h: _rnn(jlax, jjnp, h, xs, w)), (h0,)),
    }
    for name, (ours, theirs, args) in cases.items():
        t, latency, aot = measure(ours, args)
        tj, latency_j, aot_j = measure(theirs, args) if jax is not None else (None, None, None)
        row(name, t, None, tj)
        row("  compile latency (first - later call)", latency, None, latency_j)
        row("  lower + compile ahead of time", aot, None, aot_j)


def elementwise_chain() -> None:
    x = np.random.default_rng(0).normal(size=(10_000_000,)).astype(np.float32)

    def chain(m: Any, x: Any) -> Any:
        return m.sin(m.exp(m.tanh(x) * 0.5) + 1.0) * 2.0

    f = numjax.jit(lambda x: chain(jnp, x))
    xa = jnp.asarray(x)
    t = best(lambda: f(xa).block_until_ready(), 3, 3)
    t_np = best(lambda: chain(np, x), 3, 3)
    tj = None
    if jax is not None:
        g = jax.jit(lambda x: chain(jjnp, x))
        xj = jjnp.asarray(x)
        tj = best(lambda: g(xj).block_until_ready(), 3, 3)
    row("tanh/exp/sin chain (7 ops), 10M float32", t, t_np, tj)


def logsumexp_rows() -> None:
    x = np.random.default_rng(0).normal(size=(4096, 4096)).astype(np.float32)

    def lse(m: Any, x: Any) -> Any:
        mx = x.max(axis=1, keepdims=True)
        return m.log(m.exp(x - mx).sum(axis=1)) + mx[:, 0]

    f = numjax.jit(lambda x: lse(jnp, x))
    xa = jnp.asarray(x)
    t = best(lambda: f(xa).block_until_ready(), 3, 3)
    t_np = best(lambda: lse(np, x), 3, 3)
    tj = None
    if jax is not None:
        g = jax.jit(lambda x: lse(jjnp, x))
        xj = jjnp.asarray(x)
        tj = best(lambda: g(xj).block_until_ready(), 3, 3)
    row("logsumexp over rows of 4096x4096", t, t_np, tj)


def mlp_step() -> None:
    rng = np.random.default_rng(0)
    params = _mlp_init(rng, [784, 1024, 1024, 10])
    xb = rng.normal(size=(256, 784)).astype(np.float32)
    yb = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 256)]

    def make_step(mod: Any, m: Any) -> Callable[..., Any]:
        def step(p: Any, x: Any, y: Any) -> Any:
            loss, g = mod.value_and_grad(lambda p: _mlp_loss(m, p, x, y))(p)
            return mod.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g), loss
        return mod.jit(step)

    step = make_step(numjax, jnp)
    p = numjax.tree_util.tree_map(jnp.asarray, params)
    t = best(lambda: block(step(p, xb, yb)), 5, 3)
    tj = None
    if jax is not None:
        jstep = make_step(jax, jjnp)
        pj = jax.tree_util.tree_map(jjnp.asarray, params)
        tj = best(lambda: jax.block_until_ready(jstep(pj, xb, yb)), 5, 3)
    row("MLP 784-1024-1024-10 b256 value_and_grad+SGD", t, None, tj)


def _adam_step(mod: Any, m: Any) -> Callable[..., Any]:
    """One Adam step (as optax's `adam` computes it: moments, bias correction, update) on the
    loss of a small MLP."""
    b1, b2, eps, lr = 0.9, 0.999, 1e-8, 1e-3
    tree_map = mod.tree_util.tree_map

    def step(p: Any, state: Any, x: Any, y: Any) -> Any:
        mu, nu, count = state
        loss, g = mod.value_and_grad(lambda p: _mlp_loss(m, p, x, y))(p)
        mu = tree_map(lambda a, b: b1 * a + (1 - b1) * b, mu, g)
        nu = tree_map(lambda a, b: b2 * a + (1 - b2) * b * b, nu, g)
        count = count + 1
        mu_hat = tree_map(lambda a: a / (1 - b1 ** count), mu)
        nu_hat = tree_map(lambda a: a / (1 - b2 ** count), nu)
        p = tree_map(lambda a, u, v: a - lr * u / (m.sqrt(v) + eps), p, mu_hat, nu_hat)
        return p, (mu, nu, count), loss

    return mod.jit(step)


def adam_step() -> None:
    rng = np.random.default_rng(0)
    params = _mlp_init(rng, [32, 128, 10])
    xb = rng.normal(size=(256, 32)).astype(np.float32)
    yb = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 256)]

    def loop(mod: Any, m: Any) -> Callable[[], Any]:
        step = _adam_step(mod, m)
        p = mod.tree_util.tree_map(m.asarray, params)
        zeros = mod.tree_util.tree_map(m.zeros_like, p)
        state = [p, (zeros, zeros, m.zeros((), m.int32))]

        def run() -> Any:
            state[0], state[1], loss = step(state[0], state[1], xb, yb)
            return loss
        return run

    tj = None
    if jax is not None:
        run_j = loop(jax, jjnp)
        tj = best(lambda: run_j().block_until_ready(), 20, 3)
    for tier, mode in _tiers():
        with native_tier.native_mode(mode):
            run = _hot(loop(numjax, jnp))
            t = best(lambda run=run: block(run()), 20, 3)
        row(f"Adam step, MLP 32-128-10 b256 ({tier})", t, None, tj)


def _cnn_init(rng: np.random.Generator) -> dict[str, Any]:
    def dense(*shape: int) -> Any:
        return (rng.normal(size=shape) / np.sqrt(np.prod(shape[:-1]))).astype(np.float32)

    return {"c1": dense(3, 3, 1, 32), "b1": np.zeros(32, np.float32),
            "c2": dense(3, 3, 32, 64), "b2": np.zeros(64, np.float32),
            "d1": dense(7 * 7 * 64, 256), "e1": np.zeros(256, np.float32),
            "d2": dense(256, 10), "e2": np.zeros(10, np.float32)}


def _cnn_loss(m: Any, lax_mod: Any, p: Any, x: Any, y: Any) -> Any:
    """Flax's MNIST CNN: two 3x3 SAME convolutions (NHWC/HWIO) each followed by relu and a 2x2
    average pool (reduce_window, as flax.linen.avg_pool), then dense 256, relu, dense 10."""
    dn = ("NHWC", "HWIO", "NHWC")

    def pool(h: Any) -> Any:
        return lax_mod.reduce_window(h, 0.0, lax_mod.add, (1, 2, 2, 1), (1, 2, 2, 1),
                                     "VALID") / 4.0

    h = lax_mod.conv_general_dilated(x, p["c1"], (1, 1), "SAME", dimension_numbers=dn)
    h = pool(m.maximum(h + p["b1"], 0.0))
    h = lax_mod.conv_general_dilated(h, p["c2"], (1, 1), "SAME", dimension_numbers=dn)
    h = pool(m.maximum(h + p["b2"], 0.0))
    h = h.reshape(h.shape[0], -1)
    h = m.maximum(h @ p["d1"] + p["e1"], 0.0)
    logits = h @ p["d2"] + p["e2"]
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - m.log(m.exp(logits).sum(axis=1, keepdims=True))
    return -(logp * y).sum() / x.shape[0]


def cnn_step() -> None:
    rng = np.random.default_rng(0)
    params = _cnn_init(rng)
    xb = rng.normal(size=(32, 28, 28, 1)).astype(np.float32)
    yb = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 32)]

    def make_step(mod: Any, m: Any, lax_mod: Any) -> Callable[..., Any]:
        def step(p: Any, x: Any, y: Any) -> Any:
            loss, g = mod.value_and_grad(lambda p: _cnn_loss(m, lax_mod, p, x, y))(p)
            return mod.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g), loss
        return mod.jit(step)

    step = make_step(numjax, jnp, lax)
    p = numjax.tree_util.tree_map(jnp.asarray, params)
    t = best(lambda: block(step(p, xb, yb)), 5, 5)
    tj = None
    if jax is not None:
        jstep = make_step(jax, jjnp, jlax)
        pj = jax.tree_util.tree_map(jjnp.asarray, params)
        tj = best(lambda: jax.block_until_ready(jstep(pj, xb, yb)), 5, 5)
    row("CNN 2 conv + 2 dense b32x28x28x1 step", t, None, tj)


def _tiers() -> list[tuple[str, str]]:
    """The tiers to measure: the NumPy tier, and the native one when numba is installed."""
    return [("numpy tier", "off")] + ([("native", "auto")] if native_tier.available else [])


def _hot(f: Callable[[], Any]) -> Callable[[], Any]:
    """`f` after the calls that make it hot, once any native compile they started has ended."""
    block(f())
    block(f())
    native_tier.wait_idle(900)
    return f


def rnn_scan() -> None:
    rng = np.random.default_rng(0)
    h0 = np.zeros(64, np.float32)
    xs = rng.normal(size=(1000, 64)).astype(np.float32)
    w = (rng.normal(size=(64, 64)) * 0.1).astype(np.float32)
    for tier, mode in _tiers():
        with native_tier.native_mode(mode):
            f = numjax.jit(lambda h, xs, w: _rnn(lax, jnp, h, xs, w))
            run = _hot(lambda f=f: f(h0, xs, w))
            t = best(run, 5, 3)
        _rnn_row(tier, t, h0, xs, w)


def _rnn_row(tier: str, t: float, h0: Any, xs: Any, w: Any) -> None:
    def loop() -> Any:
        h = h0
        for x in xs:
            h = np.tanh(h @ w + x)
        return h

    t_np = best(loop, 5, 3)
    tj = None
    if jax is not None:
        g = jax.jit(lambda h, xs, w: _rnn(jlax, jjnp, h, xs, w))
        tj = best(lambda: g(h0, xs, w).block_until_ready(), 5, 3)
    row(f"1000-step scan of a 64-wide RNN ({tier})", t, t_np, tj)


def _hmc(lib: Any, np_: Any, lax_: Any, key: Any, q0: Any, draws: int) -> Any:
    """A small-model sampler: HMC on a 3-d density, 5 leapfrog steps per draw, the draws in a
    while_loop (the shape of a NUTS/HMC step: many tiny operations per iteration)."""
    scale = np_.array([1.0, 2.0, 0.5])

    def log_density(q: Any) -> Any:
        return -0.5 * np_.sum((q / scale) ** 2) - 0.1 * np_.sum(q ** 3) ** 2

    grad = lib.grad(log_density)

    def leapfrog(_: Any, state: Any) -> Any:
        q, p = state
        p = p + 0.05 * grad(q)
        q = q + 0.1 * p
        return q, p + 0.05 * grad(q)

    def draw(state: Any) -> Any:
        i, key, q, total = state
        key, k_momentum, k_accept = lib.random.split(key, 3)
        p = lib.random.normal(k_momentum, q.shape)
        q_new, p_new = lax_.fori_loop(0, 5, leapfrog, (q, p))
        log_ratio = (log_density(q_new) - 0.5 * p_new @ p_new
                     - log_density(q) + 0.5 * p @ p)
        accept = np_.log(lib.random.uniform(k_accept)) < log_ratio
        q = np_.where(accept, q_new, q)
        return i + 1, key, q, total + q

    return lax_.while_loop(lambda s: s[0] < draws, draw,
                           (0, key, q0, np_.zeros_like(q0)))[3] / draws


def sampler() -> None:
    tj = None
    if jax is not None:
        g = jax.jit(lambda k, q: _hmc(jax, jjnp, jlax, k, q, 1000))
        jkey, jq0 = jax.random.PRNGKey(0), jjnp.zeros(3)
        tj = best(lambda: g(jkey, jq0).block_until_ready(), 1, 3)
    for tier, mode in _tiers():
        with native_tier.native_mode(mode):
            f = numjax.jit(lambda k, q: _hmc(numjax, jnp, lax, k, q, 1000))
            key, q0 = numjax.random.PRNGKey(0), jnp.zeros(3)
            run = _hot(lambda f=f, key=key, q0=q0: f(key, q0))
            t = best(run, 1 if mode == "off" else 5, 3)
        row(f"HMC sampler, 1000 draws x 5 leapfrogs ({tier})", t, None, tj)


def _cache_case(lib: Any, name: str) -> tuple[Any, tuple[Any, ...]]:
    """The function and arguments of one persistent-cache case, for numjax or JAX."""
    m = lib.numpy
    if name == "MLP value_and_grad":
        rng = np.random.default_rng(0)
        params = _mlp_init(rng, [784, 1024, 1024, 10])
        xb = rng.normal(size=(256, 784)).astype(np.float32)
        yb = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 256)]
        return lib.jit(lib.value_and_grad(lambda p: _mlp_loss(m, p, xb, yb))), (params,)
    return (lib.jit(lambda k, q: _hmc(lib, m, lib.lax, k, q, 1000)),
            (lib.random.PRNGKey(0), m.zeros(3)))


CACHE_CASES = ("MLP value_and_grad", "HMC sampler")


def _cache_child(lib_name: str, case: str, what: str) -> None:
    """In a fresh process (the cache directory and thresholds come from the environment):
    print the seconds of `what`, the first call or trace + lower + compile ahead of time."""
    lib = numjax if lib_name == "numjax" else jax
    fn, args = _cache_case(lib, case)
    start = time.perf_counter()
    if what == "aot":
        fn.lower(*args).compile()
    else:
        block(fn(*args))
    print(time.perf_counter() - start)


def persistent_cache() -> None:
    """The persistent compilation cache: a program's compile in a fresh process with an empty
    cache directory (cold) and again in the next process (warm: lowering and compiling are
    read from disk; tracing still runs), for numjax and (with its own cache) JAX."""

    def run(lib_name: str, case: str, what: str, path: str) -> float:
        env = dict(os.environ, JAX_COMPILATION_CACHE_DIR=path,
                   JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0", NUMJAX_NATIVE="off")
        out = subprocess.run([sys.executable, __file__, "_cache_child", lib_name, case, what],
                             env=env, capture_output=True, text=True, check=True).stdout
        return float(out.split()[-1])

    def cold_and_warm(lib_name: str, case: str, what: str) -> tuple[float, float]:
        colds, warms = [], []
        for _ in range(3):
            with tempfile.TemporaryDirectory() as path:
                colds.append(run(lib_name, case, what, path))
                warms.append(run(lib_name, case, what, path))
        return min(colds), min(warms)

    for case in CACHE_CASES:
        for what, label in [("aot", "trace + lower + compile"), ("call", "first call")]:
            cold, warm = cold_and_warm("numjax", case, what)
            text = (f"{case}, {label}: cold {cold * 1e3:8.2f} ms, warm {warm * 1e3:8.2f} ms "
                    f"(warm/cold {warm / cold:4.2f}x)")
            if jax is not None:
                jcold, jwarm = cold_and_warm("jax", case, what)
                text += (f" | jax cold {jcold * 1e3:8.2f} ms, warm {jwarm * 1e3:8.2f} ms "
                         f"(warm/cold {jwarm / jcold:4.2f}x)")
            print(text)


SECTIONS = {"dispatch": dispatch, "first_call": first_call, "chain": elementwise_chain,
            "logsumexp": logsumexp_rows, "mlp": mlp_step, "adam": adam_step, "cnn": cnn_step,
            "scan": rnn_scan, "sampler": sampler, "persistent_cache": persistent_cache}


def main() -> None:
    if sys.argv[1:2] == ["_cache_child"]:
        _cache_child(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    chosen = sys.argv[1:] or list(SECTIONS)
    print(f"numjax {numjax.__version__}; jax {'not installed' if jax is None else jax.__version__}")
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    if coretype:
        # Matmuls go to NumPy's BLAS; a forced core type can make them several times slower
        # (sgemm 256x1024x1024: 4.7 ms with Haswell forced vs 1.4 ms auto-detected on an
        # AVX-512 machine), which the MLP row then measures.
        print(f"note: OPENBLAS_CORETYPE={coretype} is set; unset it to let OpenBLAS pick "
              "this CPU's kernels")
    for name in chosen:
        SECTIONS[name]()


if __name__ == "__main__":
    main()
