"""JAX 0.4.30's PRNG implementations on raw key data: threefry2x32, rbg and unsafe_rbg.

A `PRNGImpl` names an implementation's key shape and its four operations on raw `uint32` key
data (seed, split, fold_in, random_bits); `prngs` registers them by name, as JAX's does.

threefry2x32 (keys `uint32[2]`) is built on `threefry2x32_p`: its NumPy kernel hashes broadcast
`uint32` inputs elementwise, so it works eagerly, under `jit` and under `vmap`. rbg and
unsafe_rbg (keys `uint32[4]`) draw their bits with `lax.rng_bit_generator` (XLA:CPU's Philox);
rbg splits and folds each half of its key with threefry, unsafe_rbg with the bit generator
itself. Everything is written with lax operations, so it traces, jits and vmaps like any numjax
code and yields exactly JAX's bits. Under vmap the bit generator draws a whole batch from its
first key, as JAX's; `own_bits_impl` gives the rbg implementations whose every key of a vmapped
batch draws its own bits (`rbg_bits_p`), for loops over keys run as one vmapped loop.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from numjax._src import config as _config
from numjax._src import dtypes
from numjax._src.compiler import native_structural
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad, batching
from numjax._src.lax import lax
from numjax._src.lax.rng_bit_generator import (
    generate_bits,
    rng_bit_generator,
    threefry2x32_kernel,
)
from numjax._src.typing import Array

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
threefry2x32_p.native = native_structural.threefry2x32_rule
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
    # A uint32 counter reaches 2**32 - 1 words: past that, as JAX, the words come in blocks of
    # that many, each from its own key split off `key`, and a last block from the last key.
    nblocks, rem = divmod(max_count, int(np.iinfo(np.uint32).max))
    if not nblocks:
        bits = threefry_2x32(key, lax.iota(np.uint32, rem))
    else:
        keys = threefry_split(key, (nblocks + 1,))
        counts = lax.iota(np.uint32, int(np.iinfo(np.uint32).max))
        blocks = [threefry_2x32(lax.index_in_dim(keys, i, keepdims=False), counts)
                  for i in range(nblocks)]
        last = threefry_2x32(lax.index_in_dim(keys, nblocks, keepdims=False),
                             lax.iota(np.uint32, rem))
        bits = lax.concatenate([*blocks, last], 0)
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


# ---- implementations ------------------------------------------------------------------------


class PRNGImpl(NamedTuple):
    """A PRNG implementation: the shape of one key's `uint32` data and the operations on it.

    `seed(int scalar) -> key`, `split(key, shape) -> keys[*shape]`, `fold_in(key, uint32 scalar)
    -> key`, `random_bits(key, bit_width, shape) -> uint<bit_width>[*shape]`.

    >>> str(prngs["rbg"]), prngs["rbg"].key_shape
    ('rbg', (4,))
    """

    key_shape: tuple[int, ...]
    seed: Callable[..., Any]
    split: Callable[..., Any]
    random_bits: Callable[..., Any]
    fold_in: Callable[..., Any]
    name: str = "<unnamed>"
    tag: str = "?"

    def __hash__(self) -> int:
        return hash(self.tag)

    def __str__(self) -> str:
        return self.tag


prngs: dict[str, PRNGImpl] = {}


def register_prng(impl: PRNGImpl) -> None:
    if impl.name in prngs:
        raise ValueError(f"PRNG with name {impl.name} already registered: {impl}")
    prngs[impl.name] = impl


threefry_prng_impl = PRNGImpl(
    key_shape=(2,), seed=threefry_seed, split=threefry_split,
    random_bits=threefry_random_bits, fold_in=threefry_fold_in, name="threefry2x32", tag="fry")
register_prng(threefry_prng_impl)


def _rbg_seed(seed: Array) -> Array:
    """Both halves of an rbg key are the threefry key of the seed."""
    half = threefry_seed(seed)
    return lax.concatenate([half, half], 0)


def _halves(key: Array) -> tuple[Array, Array]:
    return lax.slice(key, (0,), (2,)), lax.slice(key, (2,), (4,))


def _rbg_split(key: Array, shape: tuple[int, ...]) -> Array:
    """Each half of the key split with threefry, the halves side by side in each new key."""
    lo, hi = (threefry_split(h, shape) for h in _halves(key))
    return lax.concatenate([lo, hi], len(shape))


def _rbg_fold_in(key: Array, data: Array) -> Array:
    lo, hi = (threefry_fold_in(h, data) for h in _halves(key))
    return lax.concatenate([lo, hi], 0)


# ---- bit-generator draws: from a batch's first key, or from each key -----------------------

# `lax.rng_bit_generator`'s vmap rule, as JAX's, draws a whole batch of keys' bits from the first
# key: that is what `vmap` of an rbg draw gives. JAX's gamma family instead maps its rejection
# loop over the keys one at a time (`lax.map`), each drawing its own bits. `rbg_bits_p` draws
# every key's own bits at once, so that such a walk can run as one vmapped loop (`own_bits_impl`)
# with the per-key loop's bits.
rbg_bits_p = Primitive("rbg_bits")


@rbg_bits_p.def_abstract_eval
def _rbg_bits_abstract_eval(keys: ShapedArray, *, shape: tuple[int, ...], dtype: np.dtype
                            ) -> ShapedArray:
    if keys.dtype != np.uint32 or keys.shape[-1:] != (4,):
        raise TypeError(f"rbg_bits: the keys must be uint32[..., 4], got {keys.str_short()}")
    return ShapedArray((*keys.shape[:-1], *shape), dtype)


def _rbg_bits_batch(args: Sequence[Any], dims: Sequence[int], *,
                    shape: tuple[int, ...], dtype: np.dtype) -> tuple[Any, int]:
    (keys,), (dim,) = args, dims  # batch rules run only with a batched operand
    return rbg_bits_p.bind(batching.moveaxis(keys, dim, 0), shape=shape, dtype=dtype), 0


rbg_bits_p.def_impl(lambda keys, *, shape, dtype: generate_bits(keys, shape, dtype)[1])
rbg_bits_p.def_batch(_rbg_bits_batch)
ad.defjvp_zero(rbg_bits_p)  # integers: float0 tangents


def _first_key_bits(key: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    return rng_bit_generator(key, shape, dtype=dtype)[1]


def _own_bits(key: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    return rbg_bits_p.bind(key, shape=shape, dtype=np.dtype(dtype))


Draw = Callable[[Array, tuple[int, ...], np.dtype], Array]


def _rbg_random_bits(key: Array, bit_width: int, shape: tuple[int, ...],
                     draw: Draw = _first_key_bits) -> Array:
    aval = get_aval(key)
    if aval.shape != (4,) or aval.dtype != np.uint32:
        raise TypeError("_rbg_random_bits got invalid prng key.")
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    return draw(key, shape, UINT_DTYPES[bit_width])


rbg_prng_impl = PRNGImpl(
    key_shape=(4,), seed=_rbg_seed, split=_rbg_split, random_bits=_rbg_random_bits,
    fold_in=_rbg_fold_in, name="rbg", tag="rbg")
register_prng(rbg_prng_impl)


def _unsafe_rbg_split(key: Array, shape: tuple[int, ...], draw: Draw = _first_key_bits) -> Array:
    # Every tenth row of 10 * num draws of 4 words, as JAX takes them.
    num = math.prod(shape)
    words = draw(key, (10 * num, 4), np.dtype(np.uint32))
    return lax.reshape(lax.slice(words, (0, 0), (10 * num, 4), (10, 1)), (*shape, 4))


def _unsafe_rbg_fold_in(key: Array, data: Array, draw: Draw = _first_key_bits) -> Array:
    words = draw(_rbg_seed(data), (10, 4), np.dtype(np.uint32))
    return lax.bitwise_xor(key, lax.index_in_dim(words, 9, axis=0, keepdims=False))


unsafe_rbg_prng_impl = PRNGImpl(
    key_shape=(4,), seed=_rbg_seed, split=_unsafe_rbg_split, random_bits=_rbg_random_bits,
    fold_in=_unsafe_rbg_fold_in, name="unsafe_rbg", tag="urbg")
register_prng(unsafe_rbg_prng_impl)

# The same implementations with every bit-generator draw made from each key's own state under
# vmap (not registered: only walks over keys use them). threefry's operations are elementwise in
# the key already.
_OWN_BITS: dict[PRNGImpl, PRNGImpl] = {
    threefry_prng_impl: threefry_prng_impl,
    rbg_prng_impl: rbg_prng_impl._replace(
        random_bits=functools.partial(_rbg_random_bits, draw=_own_bits)),
    unsafe_rbg_prng_impl: unsafe_rbg_prng_impl._replace(
        split=functools.partial(_unsafe_rbg_split, draw=_own_bits),
        random_bits=functools.partial(_rbg_random_bits, draw=_own_bits),
        fold_in=functools.partial(_unsafe_rbg_fold_in, draw=_own_bits)),
}


def own_bits_impl(impl: PRNGImpl) -> PRNGImpl | None:
    """`impl` with each key of a vmapped batch drawing its own bits, so that `vmap` over keys
    gives what a loop over them gives; None for an implementation it does not know.

    >>> own_bits_impl(prngs["rbg"]).name, own_bits_impl(prngs["rbg"]) == prngs["rbg"]
    ('rbg', False)
    """
    return _OWN_BITS.get(impl)
