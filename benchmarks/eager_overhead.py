"""Eager-op overhead: `jnp.add(x, x)` and `jnp.sin(x)` on concrete Arrays, against NumPy's own
call and (when installed) JAX's eager dispatch, measured in one run. Prints ratios; asserts
nothing.

    python benchmarks/eager_overhead.py
"""

from __future__ import annotations

import timeit

import numpy as np

import numjax.numpy as jnp

try:  # JAX is optional: compared against when present.
    import jax
    import jax.numpy as jjnp
except ImportError:
    jax = None

SHAPES = [(), (3,), (1000,), (100, 100)]


def best_us(fn, *args, number=2000, repeat=7) -> float:
    """Best time per call of `fn(*args)` in microseconds."""
    fn(*args)
    timer = timeit.Timer(lambda: fn(*args))
    return min(timer.repeat(number=number, repeat=repeat)) / number * 1e6


def _blocking(fn, *args):
    return fn(*args).block_until_ready()


def main() -> None:
    print(f"{'op':5} {'shape':11} {'numpy us':>9} {'numjax us':>10} {'overhead':>9} "
          f"{'jax us':>8} {'numjax/jax':>11}")
    for op in ("add", "sin"):
        for shape in SHAPES:
            a = np.random.default_rng(0).normal(size=shape).astype(np.float32)
            x = jnp.asarray(a)
            np_fn = getattr(np, op)
            nj_fn = getattr(jnp, op)
            args_np = (a, a) if op == "add" else (a,)
            args_nj = (x, x) if op == "add" else (x,)
            t_np = best_us(np_fn, *args_np)
            t_nj = best_us(nj_fn, *args_nj)
            line = (f"{op:5} {str(shape):11} {t_np:9.2f} {t_nj:10.2f} {t_nj - t_np:+9.2f}")
            if jax is not None:
                xj = jjnp.asarray(a)
                j_fn = getattr(jjnp, op)
                args_j = (xj, xj) if op == "add" else (xj,)
                t_j = best_us(_blocking, j_fn, *args_j)
                line += f" {t_j:8.2f} {t_nj / t_j:11.2f}"
            print(line)


if __name__ == "__main__":
    main()
