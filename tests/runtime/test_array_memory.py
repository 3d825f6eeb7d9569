"""Every Array owns memory of its size, as a device buffer does.

Kernels may return broadcast views (zero strides), which later steps of one compiled program
read cheaply; but what a caller holds is a real buffer. An allocation larger than the machine's
memory fails at once with JAX 0.4.30's error on CPU (XLA's allocator): `XlaRuntimeError:
RESOURCE_EXHAUSTED: Out of memory allocating N bytes.`, where `jnp.zeros((10**6, 10**6))` used
to return a 4 TB view that a later `.sum()` walked for minutes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.core.errors import XlaRuntimeError

N = 10**6

# (case, function, the bytes JAX 0.4.30 reports it cannot allocate)
OVERSIZED: list[tuple[str, Callable[[], Any], int]] = [
    ("zeros", lambda: jnp.zeros((N, N)), 4 * N * N),
    ("ones", lambda: jnp.ones((N, N)), 4 * N * N),
    ("full", lambda: jnp.full((N, N), 2.0), 4 * N * N),
    ("empty", lambda: jnp.empty((N, N)), 4 * N * N),
    ("zeros_int8", lambda: jnp.zeros((N, N), jnp.int8), N * N),
    ("zeros_bool", lambda: jnp.zeros((N, N), bool), N * N),
    ("zeros_3d", lambda: jnp.zeros((10**4, 10**4, 10**4)), 4 * 10**12),
    ("ones_1d", lambda: jnp.ones((10**13,)), 4 * 10**13),
    ("broadcast_to_scalar", lambda: jnp.broadcast_to(1.0, (N, N)), 4 * N * N),
    ("broadcast_to_row", lambda: jnp.broadcast_to(jnp.ones(N), (N, N)), 4 * N * N),
    ("zeros_like_shape", lambda: jnp.zeros_like(jnp.ones(3), shape=(N, N)), 4 * N * N),
    ("full_like_shape", lambda: jnp.full_like(jnp.ones(3), 3.0, shape=(N, N)), 4 * N * N),
    ("lax_full", lambda: lax.full((N, N), 0.0), 4 * N * N),
    ("lax_broadcast", lambda: lax.broadcast(1.0, (N, N)), 4 * N * N),
    ("iota", lambda: lax.broadcasted_iota(jnp.int32, (N, N), 0), 4 * N * N),
    ("tile", lambda: jnp.tile(jnp.ones(N), (N, 1)), 4 * N * N),
    ("repeat", lambda: jnp.repeat(jnp.ones(N), N), 4 * N * N),
    ("eye", lambda: jnp.eye(N), 4 * N * N),
    ("tri", lambda: jnp.tri(N), 4 * N * N),
    ("meshgrid", lambda: jnp.meshgrid(jnp.ones(N), jnp.ones(N)), 4 * N * N),
    ("outer", lambda: jnp.outer(jnp.ones(N), jnp.ones(N)), 4 * N * N),
    ("broadcasting_add", lambda: jnp.ones((N, 1)) + jnp.ones((1, N)), 4 * N * N),
    ("one_hot", lambda: numjax.nn.one_hot(jnp.arange(N), N), 4 * N * N),
    ("jit_zeros", lambda: numjax.jit(lambda: jnp.zeros((N, N)))(), 4 * N * N),
    ("jit_ones", lambda: numjax.jit(lambda: jnp.ones((N, N)))(), 4 * N * N),
    ("jit_full", lambda: numjax.jit(lambda: jnp.full((N, N), 3))(), 4 * N * N),
    ("jit_broadcast_to", lambda: numjax.jit(lambda x: jnp.broadcast_to(x, (N, N)))(jnp.ones(N)),
     4 * N * N),
    ("jit_zeros_like", lambda: numjax.jit(lambda x: jnp.zeros_like(x, shape=(N, N)))(
        jnp.ones(3)), 4 * N * N),
    ("jit_outer", lambda: numjax.jit(jnp.outer)(jnp.ones(N), jnp.ones(N)), 4 * N * N),
    ("vmap_zeros", lambda: numjax.vmap(lambda x: jnp.zeros(N) + x)(jnp.ones(N)), 4 * N * N),
    ("grad_of_broadcast", lambda: numjax.grad(
        lambda x: jnp.broadcast_to(x, (N, N)).sum())(jnp.ones(N)), 4 * N * N),
]


@pytest.mark.parametrize(("name", "fn", "nbytes"), OVERSIZED, ids=[c[0] for c in OVERSIZED])
def test_allocation_larger_than_memory_is_refused_at_once(name: str, fn: Callable[[], Any],
                                                          nbytes: int) -> None:
    with pytest.raises(XlaRuntimeError) as info:
        fn()
    assert str(info.value) == f"RESOURCE_EXHAUSTED: Out of memory allocating {nbytes} bytes."
    assert isinstance(info.value, RuntimeError)


x34 = jnp.arange(12.0).reshape(3, 4)
row = jnp.arange(4.0)

# Results that were broadcast views (zero strides) before owning their memory.
CREATED: list[tuple[str, Callable[[], Any]]] = [
    ("zeros", lambda: jnp.zeros((3, 4))),
    ("ones", lambda: jnp.ones((3, 4))),
    ("full", lambda: jnp.full((3, 4), 2.0)),
    ("full_row", lambda: jnp.full((3, 4), row)),
    ("empty", lambda: jnp.empty((3, 4))),
    ("zeros_like", lambda: jnp.zeros_like(x34)),
    ("ones_like", lambda: jnp.ones_like(x34)),
    ("full_like", lambda: jnp.full_like(x34, 3)),
    ("broadcast_to", lambda: jnp.broadcast_to(row, (3, 4))),
    ("broadcast_arrays", lambda: jnp.broadcast_arrays(row, jnp.ones((3, 1)))),
    ("tile", lambda: jnp.tile(row, (3, 1))),
    ("meshgrid", lambda: jnp.meshgrid(row, row)),
    ("indices", lambda: jnp.indices((3, 4))),
    ("iota", lambda: lax.broadcasted_iota(jnp.int32, (3, 4), 1)),
    ("select_n_one_case", lambda: lax.select_n(jnp.ones((3, 4), bool), x34)),
    ("vmap_unbatched_output", lambda: numjax.vmap(lambda x: row)(jnp.ones(3))),
    ("grad_of_sum", lambda: numjax.grad(lambda x: x.sum())(x34)),
    ("grad_of_mean", lambda: numjax.grad(lambda x: x.mean())(x34)),
    ("jit_zeros", lambda: numjax.jit(lambda: jnp.zeros((3, 4)))()),
    ("jit_broadcast_to", lambda: numjax.jit(lambda x: jnp.broadcast_to(x, (3, 4)))(row)),
    ("jit_transposed_zeros", lambda: numjax.jit(lambda: jnp.zeros((3, 4)).reshape(4, 3).T)()),
    ("jit_grad_of_sum", lambda: numjax.jit(numjax.grad(lambda x: x.sum()))(x34)),
    ("jit_cond_zeros", lambda: numjax.jit(lambda p: lax.cond(
        p, lambda: jnp.zeros((3, 4)), lambda: jnp.ones((3, 4))))(True)),
    ("cond_zeros", lambda: lax.cond(True, lambda: jnp.zeros((3, 4)), lambda: jnp.ones((3, 4)))),
    ("scan_constant_ys", lambda: lax.scan(lambda c, x: (c, jnp.zeros(3)), 0.0, jnp.ones(4))[1]),
    ("while_zeros", lambda: lax.while_loop(lambda c: c[0] < 2, lambda c: (
        c[0] + 1, jnp.zeros((3, 4))), (0, x34))[1]),
]


@pytest.mark.parametrize(("name", "fn"), CREATED, ids=[c[0] for c in CREATED])
def test_results_own_their_memory(name: str, fn: Callable[[], Any]) -> None:
    for leaf in numjax.tree_util.tree_leaves(fn()):
        buf = np.asarray(leaf)
        # No axis of length > 1 repeats one memory cell.
        assert all(s != 0 or n <= 1 for s, n in zip(buf.strides, buf.shape, strict=True)), (
            name, buf.shape, buf.strides)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize(("fill", "dtype"), [(0.0, np.float32), (-0.0, np.float32),
                                             (2.5, np.float32), (0, np.int8), (True, np.bool_),
                                             (1 - 2j, np.complex64), (-0.0, np.float64)])
def test_filled_buffers_hold_the_fill_bits(fill: Any, dtype: Any, mode: str) -> None:
    # Zeros come from calloc; anything else (-0.0 among them) is written.
    fn = (lambda: jnp.full((3, 5), fill, dtype)) if mode == "eager" else \
        numjax.jit(lambda: jnp.full((3, 5), fill, dtype))
    if np.dtype(dtype) == np.float64 and not numjax.config.jax_enable_x64:
        dtype = np.float32
    out = np.asarray(fn())
    want = np.full((3, 5), fill, dtype)
    assert out.dtype == want.dtype
    assert out.tobytes() == want.tobytes()
