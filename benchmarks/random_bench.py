"""Benchmark: `random.normal(key, (10_000_000,))` and `random.split(key, 1000)`, numjax vs JAX.

Run: `python benchmarks/random_bench.py`. JAX is timed only
when it is importable in the running interpreter.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_of(fn: Callable[[], Any], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        if hasattr(out, "block_until_ready"):
            out.block_until_ready()
        times.append(time.perf_counter() - start)
    return min(times)


def bench(name: str, random: Any, jit: Callable[..., Any]) -> None:
    key = random.PRNGKey(0)
    normal = jit(lambda k: random.normal(k, (10_000_000,)))
    normal(key)
    print(f"{name:7s} normal 1e7 eager {best_of(lambda: random.normal(key, (10_000_000,))):.3f}s"
          f"  jit {best_of(lambda: normal(key)):.3f}s")
    print(f"{name:7s} split 1000    eager {best_of(lambda: random.split(key, 1000)) * 1e3:.2f}ms")


def main() -> None:
    import numjax
    from numjax import random

    bench("numjax", random, numjax.jit)
    try:
        import jax  # type: ignore[import-not-found, unused-ignore]
        from jax import random as jrandom  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        print("jax not installed: numjax only")
        return
    bench("jax", jrandom, jax.jit)


if __name__ == "__main__":
    main()
