"""select_n on large operands (the branch-free bitwise kernel) against np.where: exact bits for
every element width, eager and jitted, scalar and broadcast cases."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src import dtypes

SIZE = 1 << 16  # above the size from which the bitwise kernel runs


def _operands(dtype: Any, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    which = rng.random(SIZE) < 0.5
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return which, rng.random(SIZE) < 0.5, rng.random(SIZE) < 0.5
    raw = rng.integers(0, 256, (2, SIZE * dtype.itemsize), dtype=np.uint8)
    a, b = (r.view(dtype) for r in raw)
    if dtype.kind == "f" and dtype.itemsize == 4:
        # Signed zeros and NaNs with payloads keep their bits.
        a[:4] = np.array([-0.0, 0.0, np.nan, -np.nan], np.float32)
        a[4:6] = np.array([0x7FC00123, 0xFFC00456], np.uint32).view(np.float32)
    return which, a, b


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float16, np.int32,
                                   np.float32, np.uint32, np.complex64,
                                   dtypes.bfloat16])
def test_large_select_keeps_bits(dtype: Any) -> None:
    which, on_true, on_false = _operands(dtype, 0)
    expected = np.where(which, on_true, on_false)
    for fn in (lax.select, numjax.jit(lax.select)):
        out = np.asarray(fn(which, on_true, on_false))
        assert out.dtype == expected.dtype
        width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[expected.itemsize]
        np.testing.assert_array_equal(out.view(width), expected.view(width))


def test_large_select_of_scalars_and_2d() -> None:
    # The relu derivative's pattern: a comparison choosing between broadcast constants.
    rng = np.random.default_rng(1)
    x = rng.standard_normal((256, 512)).astype(np.float32)

    def f(v: Any) -> Any:
        return lax.select(v > 0, jnp.full(v.shape, 2.0, v.dtype), jnp.zeros_like(v))

    expected = np.where(x > 0, np.float32(2), np.float32(0))
    np.testing.assert_array_equal(np.asarray(f(x)), expected)
    np.testing.assert_array_equal(np.asarray(numjax.jit(f)(x)), expected)
    # A scalar predicate picks a whole case.
    out = lax.select(np.bool_(True), x, -x)
    np.testing.assert_array_equal(np.asarray(out), x)
    assert np.asarray(numjax.grad(lambda v: jnp.sum(jnp.maximum(v, 0.0)))(x)).sum() == (
        (x > 0).sum())


@pytest.mark.parametrize("dtype, t, f", [
    (np.float32, 1.0, 0.0), (np.float32, np.nan, -0.0), (np.float32, -np.inf, 2.5),
    (np.int8, -3, 7), (np.float16, 0.5, -0.0), (np.uint32, 2**31 + 5, 3),
    (np.complex64, 1 + 2j, -0.0), (np.bool_, False, True), (dtypes.bfloat16, -0.0, 3.0),
])
def test_large_select_between_broadcast_constants_keeps_bits(dtype: Any, t: Any,
                                                             f: Any) -> None:
    """Both cases one value broadcast (the kernel's three-pass path): the bits np.where gives,
    eager on broadcast views and jitted on broadcasts of constants."""
    which = np.random.default_rng(2).random(SIZE) < 0.5
    on_true = np.broadcast_to(np.array(t, dtype), which.shape)
    on_false = np.broadcast_to(np.array(f, dtype), which.shape)
    expected = np.where(which, on_true, on_false)
    width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[expected.itemsize]
    jitted = numjax.jit(lambda w: lax.select(w, jnp.full(w.shape, t, dtype),
                                             jnp.full(w.shape, f, dtype)))
    for out in (lax.select_n_p.impl(which, on_false, on_true), jitted(which)):
        out = np.asarray(out)
        assert out.dtype == expected.dtype
        np.testing.assert_array_equal(out.view(width), expected.view(width))
