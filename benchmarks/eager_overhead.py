"""Eager-op overhead: common jnp functions and operators on concrete Arrays, against NumPy's own
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


# (label, operation on a module `m` (numpy, numjax.numpy or jax.numpy) and operands x, y)
OPS = [
    ("add", lambda m, x, y: m.add(x, y)),
    ("sin", lambda m, x, y: m.sin(x)),
    ("x + y", lambda m, x, y: x + y),
    ("x * 2.0", lambda m, x, y: x * 2.0),
    ("sum", lambda m, x, y: m.sum(x)),
    ("reshape", lambda m, x, y: m.reshape(x, (-1,))),
    ("where", lambda m, x, y: m.where(x > y, x, y)),
    ("x[0]", lambda m, x, y: x[0] if x.ndim else x),
    ("zeros", lambda m, x, y: m.zeros(x.shape)),
    ("ones", lambda m, x, y: m.ones(x.shape)),
    ("full", lambda m, x, y: m.full(x.shape, 2.0)),
    ("zeros_like", lambda m, x, y: m.zeros_like(x)),
]


def main() -> None:
    print(f"{'op':8} {'shape':11} {'numpy us':>9} {'numjax us':>10} {'overhead':>9} "
          f"{'jax us':>8} {'numjax/jax':>11}")
    for label, op in OPS:
        for shape in SHAPES:
            rng = np.random.default_rng(0)
            a = rng.normal(size=shape).astype(np.float32)
            b = rng.normal(size=shape).astype(np.float32)
            x, y = jnp.asarray(a), jnp.asarray(b)
            t_np = best_us(op, np, a, b)
            t_nj = best_us(op, jnp, x, y)
            line = f"{label:8} {str(shape):11} {t_np:9.2f} {t_nj:10.2f} {t_nj - t_np:+9.2f}"
            if jax is not None:
                xj, yj = jjnp.asarray(a), jjnp.asarray(b)
                t_j = best_us(_blocking, op, jjnp, xj, yj)
                line += f" {t_j:8.2f} {t_nj / t_j:11.2f}"
            print(line)


def _blocking(op, *args):
    return op(*args).block_until_ready()


if __name__ == "__main__":
    main()
