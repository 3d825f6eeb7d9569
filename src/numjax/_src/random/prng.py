"""The threefry-2x32 PRNG of JAX 0.4.30: the hash primitive and raw `uint32[..., 2]` key operations.

`threefry2x32_p` is the only random primitive: its NumPy kernel hashes broadcast `uint32` inputs
elementwise, so it works eagerly, under `jit` (the compiler calls the kernel) and under `vmap`
(elementwise batching). Everything else (seeding, split, fold_in, bits in both bit layouts) is
written with lax operations on the hash, so it traces, jits and vmaps like any numjax code and
yields exactly JAX's bits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import config as _config
from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad, batching
from numjax._src.lax import lax
from numjax._src.lax.rng_bit_generator import threefry2x32_kernel

Array = Any

UINT_DTYPES: dict[int, np.dtype] = {
    8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
}

# ---- the hash primitive ---------------------------------------------------------------------

threefry2x32_p = Primitive("threefry2x32")
threefry2x32_p.multiple_results = True


@threefry2x32_p.def_abstract_eval
def _threefry2x32_abstract_eval(*avals: ShapedArray) -> list[ShapedArray]:
    if any(a.dtype != np.uint32 for a in avals):
        raise TypeError("Arguments to threefry2x32 must have uint32 type, got "
                        f"{[str(a) for a in avals]}")
    try:
        shape = np.broadcast_shapes(*(a.shape for a in avals))
    except ValueError:
        raise TypeError("threefry2x32 got incompatible shapes for broadcasting: "
                        f"{', '.join(str(a.shape) for a in avals)}.") from None
    out = ShapedArray(tuple(shape), np.dtype(np.uint32))
    return [out, out]


def _threefry2x32_batch(args: Sequence[Any], dims: Sequence[int | None]
                        ) -> tuple[list[Any], list[int]]:
    outs = threefry2x32_p.bind(*batching.align_dims(args, dims))
    return outs, [0, 0]


threefry2x32_p.def_impl(threefry2x32_kernel)
threefry2x32_p.def_batch(_threefry2x32_batch)
# Random bits are integers: no derivative flows through the hash.
ad.defjvp_zero(threefry2x32_p)


def threefry2x32(k1: Array, k2: Array, x1: Array, x2: Array) -> tuple[Array, Array]:
    """The threefry-2x32 hash of counters `(x1, x2)` under key `(k1, k2)`, all uint32, broadcast.

    >>> import numpy as np
    >>> threefry2x32(np.uint32(0), np.uint32(0), np.uint32(0), np.uint32(0))[0]
    Array(1797259609, dtype=uint32)
    """
    o1, o2 = threefry2x32_p.bind(k1, k2, x1, x2)
    return o1, o2


# ---- helpers on raw keys --------------------------------------------------------------------


def _key_words(key: Array) -> tuple[Array, Array]:
    return (lax.index_in_dim(key, 0, axis=0, keepdims=False),
            lax.index_in_dim(key, 1, axis=0, keepdims=False))


def threefry_2x32(key: Array, count: Array) -> Array:
    """Hash a flat uint32 `count` array: its two halves are the two counter words (JAX's layout)."""
    k1, k2 = _key_words(key)
    n = get_aval(count).shape[0]
    odd = n % 2
    if odd:
        count = lax.concatenate([count, np.zeros((1,), np.uint32)], 0)
    half = (n + odd) // 2
    x1 = lax.slice(count, (0,), (half,))
    x2 = lax.slice(count, (half,), (2 * half,))
    o1, o2 = threefry2x32(k1, k2, x1, x2)
    out = lax.concatenate([o1, o2], 0)
    return lax.slice(out, (0,), (n,)) if odd else out


def _iota_2x32(shape: tuple[int, ...]) -> tuple[Any, Any]:
    """The row-major flat index of every element of `shape` as (high, low) uint32 words."""
    n = math.prod(shape)
    idx = np.arange(n, dtype=np.uint64).reshape(shape)
    return ((idx >> np.uint64(32)).astype(np.uint32), idx.astype(np.uint32))


def threefry_seed(seed: Array) -> Array:
    """The raw key of an integer scalar seed: (high word, low word); 32-bit seeds have high 0."""
    aval = get_aval(seed)
    if aval.shape:
        raise TypeError(f"PRNG key seed must be a scalar; got {seed!r}.")
    if not dtypes.issubdtype(aval.dtype, np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    if aval.dtype.itemsize == 8:
        hi = lax.convert_element_type(
            lax.shift_right_logical(seed, np.array(32, aval.dtype)), np.uint32)
    else:
        # A logical shift by the full width gives 0 in XLA.
        hi = np.zeros((), np.uint32)
    lo = lax.convert_element_type(seed, np.uint32)
    return lax.concatenate([lax.broadcast(hi, (1,)), lax.broadcast(lo, (1,))], 0)


def threefry_split(key: Array, shape: tuple[int, ...]) -> Array:
    """`prod(shape)` new raw keys from one raw key, shaped `(*shape, 2)`."""
    if _config.threefry_partitionable.value:
        k1, k2 = _key_words(key)
        hi, lo = _iota_2x32(shape)
        b1, b2 = threefry2x32(k1, k2, hi, lo)
        nd = len(shape)
        return lax.concatenate([lax.expand_dims(b1, (nd,)), lax.expand_dims(b2, (nd,))], nd)
    num = math.prod(shape)
    counts = lax.iota(np.uint32, num * 2)
    return lax.reshape(threefry_2x32(key, counts), (*shape, 2))


def threefry_fold_in(key: Array, data: Array) -> Array:
    """A new raw key mixing a uint32 scalar `data` into `key`."""
    return threefry_2x32(key, threefry_seed(lax.convert_element_type(data, np.uint32)))


def threefry_random_bits(key: Array, bit_width: int, shape: tuple[int, ...]) -> Array:
    """Uniform random unsigned integers of `bit_width` bits and `shape` from a raw key."""
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    dtype = UINT_DTYPES[bit_width]
    if _config.threefry_partitionable.value:
        k1, k2 = _key_words(key)
        hi, lo = _iota_2x32(shape)
        b1, b2 = threefry2x32(k1, k2, hi, lo)
        if bit_width == 64:
            return lax.bitwise_or(
                lax.shift_left(lax.convert_element_type(b1, dtype), np.array(32, dtype)),
                lax.convert_element_type(b2, dtype))
        mixed = lax.bitwise_xor(b1, b2)
        return mixed if bit_width == 32 else lax.convert_element_type(mixed, dtype)

    size = math.prod(shape)
    max_count = -(-bit_width * size // 32)
    if max_count >= np.iinfo(np.uint32).max:
        raise NotImplementedError("random bits arrays of 2**32 words or more are not supported")
    bits = threefry_2x32(key, lax.iota(np.uint32, max_count))
    if bit_width == 64:
        half = max_count // 2
        hi64 = lax.convert_element_type(lax.slice(bits, (0,), (half,)), dtype)
        lo64 = lax.convert_element_type(lax.slice(bits, (half,), (max_count,)), dtype)
        out = lax.bitwise_or(lax.shift_left(hi64, np.array(32, dtype)), lo64)
    elif bit_width in (8, 16):
        # Each 32-bit word yields 32 // bit_width values, least significant first (a
        # little-endian view of the words as the narrow type).
        per = 32 // bit_width
        shifts = (np.arange(per, dtype=np.uint32) * np.uint32(bit_width))[None, :]
        parts = lax.shift_right_logical(lax.broadcast_in_dim(bits, (max_count, per), (0,)),
                                        lax.broadcast_in_dim(shifts, (max_count, per), (0, 1)))
        parts = lax.bitwise_and(parts, np.array(np.iinfo(dtype).max, np.uint32))
        out = lax.convert_element_type(lax.reshape(parts, (max_count * per,)), dtype)
        out = lax.slice(out, (0,), (size,))
    else:
        out = bits
    return lax.reshape(out, shape)
