"""Timing and printing shared by the benchmarks (jit_suite.py, pmap_bench.py, sharding_bench.py)."""

from __future__ import annotations

import timeit
from collections.abc import Callable
from typing import Any

import numjax


def best(fn: Callable[[], Any], number: int = 10, repeat: int = 5) -> float:
    """Best seconds per call."""
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def row(name: str, numjax_s: float, base_name: str, base_s: float | None = None,
        jax_s: float | None = None, unit: str = "ms") -> None:
    """One line: numjax's time, a baseline's and JAX's when measured, with the ratios."""
    scale = {"us": 1e6, "ms": 1e3}[unit]
    text = f"{name:46} numjax {numjax_s * scale:9.3f} {unit}"
    if base_s is not None:
        text += f" | {base_name} {base_s * scale:9.3f} {unit} ({numjax_s / base_s:5.2f}x)"
    if jax_s is not None:
        text += f" | jax {jax_s * scale:9.3f} {unit} (numjax/jax {numjax_s / jax_s:5.2f}x)"
    print(text)


def block(x: Any) -> Any:
    """Wait for every Array leaf of `x` (other leaves are ready)."""
    for leaf in numjax.tree_util.tree_leaves(x):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return x
