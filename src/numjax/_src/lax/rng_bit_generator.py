"""`lax.rng_bit_generator`: stateless random bits from a 128-bit state, as XLA:CPU computes them.

The state is `uint32[4]` (read as two little-endian uint64 words `s0, s1`) or `uint64[2]`. XLA
expands the operation into one of two counter-based hashes:

- Philox-4x32-10 (`RNG_PHILOX`, and `RNG_DEFAULT` on CPU): key `s0`; the 128-bit counter has
  `s1` as its low word and `s0` as its high word, and counts up from there. Each counter gives
  four uint32 words, laid out one counter after another; 64-bit values pair words (0, 1) and
  (2, 3) of a counter, low word first. The returned state is `(s0, s1 + counters used)`.
- Threefry-2x32-20 (`RNG_THREE_FRY`): key `s0`, counters `s1 + i` hashed as (low, high)
  words. For 32-bit and narrower values the output shape is cut in half along its first even
  dimension (else its largest), each counter's two words landing side by side along that
  dimension; 64-bit values are one counter each, word 0 low. The state advances by the number
  of counters.

Values narrower than 32 bits are the low bits of the 32-bit words. The hashes' NumPy kernels
live here too: `random`'s threefry primitive uses `threefry2x32_kernel`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import blocks
from numjax._src.core.avals import ShapedArray
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax._src.interpreters.batching import moveaxis
from numjax._src.lax import dynamic_slicing, structural
from numjax._src.typing import Array

_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
_BIT_DTYPES = tuple(np.dtype(d) for d in (np.uint8, np.uint16, np.uint32, np.uint64))


class RandomAlgorithm(enum.IntEnum):
    """The bit generator `rng_bit_generator` runs (XLA's numbering; the default is Philox).

    >>> str(RandomAlgorithm.RNG_PHILOX)
    'RNG_PHILOX'
    """

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:
        return self.name


# ---- threefry-2x32 --------------------------------------------------------------------------

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)


def threefry2x32_kernel(k1: Any, k2: Any, x1: Any, x2: Any) -> list[np.ndarray]:
    """Threefry-2x32 with 20 rounds on broadcast uint32 arrays (Salmon et al. 2011).

    >>> [int(w) for w in threefry2x32_kernel(0, 0, 0, 0)]
    [1797259609, 2579123966]
    """
    arrs = [np.asarray(a, np.uint32) for a in (k1, k2, x1, x2)]
    shape = np.broadcast_shapes(*(a.shape for a in arrs))
    n = math.prod(shape)
    if n <= _SMALL:
        return _threefry_small(arrs, shape)
    flat = [blocks.flat_operand(a if a.size in (1, n) else np.broadcast_to(a, shape).copy(), n)
            for a in arrs]
    out1 = np.empty(n, np.uint32)
    out2 = np.empty(n, np.uint32)

    def hash_block(lo: int, hi: int) -> None:
        k1, k2, x1, x2 = (blocks.block_of(a, lo, hi) for a in flat)
        _threefry_rounds(k1, k2, x1, x2, out1[lo:hi], out2[lo:hi])

    blocks.map_blocks(hash_block, n)
    return [out1.reshape(shape), out2.reshape(shape)]


def _threefry_rounds(k1: Any, k2: Any, x1: Any, x2: Any, a: np.ndarray, b: np.ndarray) -> None:
    """The 20 rounds on one block, written into `a` and `b` (updated in place: no temporaries
    but `tmp`)."""
    ks = (k1, k2, k1 ^ k2 ^ _PARITY)
    np.add(x1, ks[0], out=a)
    np.add(x2, ks[1], out=b)
    tmp = np.empty(a.shape, np.uint32)
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            a += b
            # rotate b left by r, then mix with a
            np.left_shift(b, np.uint32(r), out=tmp)
            b >>= np.uint32(32 - r)
            b |= tmp
            b ^= a
        a += ks[(i + 1) % 3]
        b += ks[(i + 2) % 3]
        b += np.uint32(i + 1)


# Up to this many counters (a key split, one scalar draw) the rounds run on Python ints: the
# ~110 NumPy calls of `_threefry_rounds` cost ~100 us whatever the size, the ints ~5 us a pair.
_SMALL = 8
_MASK = 0xFFFFFFFF


def _threefry_small(arrs: list[np.ndarray], shape: tuple[int, ...]) -> list[np.ndarray]:
    k1s, k2s, x1s, x2s = (np.broadcast_to(a, shape).ravel().tolist() for a in arrs)
    out1, out2 = [], []
    for k1, k2, x1, x2 in zip(k1s, k2s, x1s, x2s, strict=True):
        ks = (k1, k2, k1 ^ k2 ^ 0x1BD11BDA)
        a = (x1 + k1) & _MASK
        b = (x2 + k2) & _MASK
        for i in range(5):
            for r in _ROTATIONS[i % 2]:
                a = (a + b) & _MASK
                b = (((b << r) & _MASK) | (b >> (32 - r))) ^ a
            a = (a + ks[(i + 1) % 3]) & _MASK
            b = (b + ks[(i + 2) % 3] + i + 1) & _MASK
        out1.append(a)
        out2.append(b)
    return [np.array(out1, np.uint32).reshape(shape), np.array(out2, np.uint32).reshape(shape)]


# ---- philox-4x32-10 -------------------------------------------------------------------------

# Every kernel below draws for a batch of states at once: `s0` and `s1` are uint64[m, 1], one
# row per state, and the counters run along the second axis. A single state is the batch of one.

_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)


def _philox4x32(x: list[np.ndarray], key: tuple[np.ndarray, np.ndarray]) -> list[np.ndarray]:
    """Ten Philox rounds on four uint32 counter words (Salmon et al. 2011)."""
    k0, k1 = key
    m0, m1 = np.uint64(_PHILOX_M[0]), np.uint64(_PHILOX_M[1])
    w0, w1 = np.uint32(_PHILOX_W[0]), np.uint32(_PHILOX_W[1])
    shift = np.uint64(32)
    for _ in range(10):
        p0 = x[0].astype(np.uint64) * m0
        p1 = x[2].astype(np.uint64) * m1
        x = [(p1 >> shift).astype(np.uint32) ^ x[1] ^ k0, p1.astype(np.uint32),
             (p0 >> shift).astype(np.uint32) ^ x[3] ^ k1, p0.astype(np.uint32)]
        k0 = k0 + w0  # arrays: wraps modulo 2**32
        k1 = k1 + w1
    return x


def _split64(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return words.astype(np.uint32), (words >> np.uint64(32)).astype(np.uint32)


def _philox_words(s0: np.ndarray, s1: np.ndarray, count: int) -> np.ndarray:
    """`count` counters' outputs under each state as uint32[m, count, 4]."""
    low = s1 + np.arange(count, dtype=np.uint64)  # wraps modulo 2**64
    carry = (low < s1).astype(np.uint64)
    high = s0 + carry
    words = _philox4x32([*_split64(low), *_split64(high)], _split64(s0))
    return np.stack(words, axis=-1)


def _philox(s0: np.ndarray, s1: np.ndarray, shape: tuple[int, ...], width: int
            ) -> tuple[np.ndarray, int]:
    m, n = s0.shape[0], math.prod(shape)
    if width == 64:
        count = -(-n // 2)
        w = _philox_words(s0, s1, count).astype(np.uint64)
        pairs = w[..., 0::2] | (w[..., 1::2] << np.uint64(32))
        return pairs.reshape(m, -1)[:, :n].reshape((m, *shape)), count
    count = -(-n // 4)
    return _philox_words(s0, s1, count).reshape(m, -1)[:, :n].reshape((m, *shape)), count


# ---- threefry in XLA's layout ---------------------------------------------------------------


def _halving_dim(shape: tuple[int, ...]) -> int:
    """The dimension XLA halves: the first even one, else the first largest."""
    for i, d in enumerate(shape):
        if d % 2 == 0:
            return i
    return max(range(len(shape)), key=lambda i: (shape[i], -i))


def _threefry_counters(s0: np.ndarray, s1: np.ndarray, count: int) -> list[np.ndarray]:
    counters = s1 + np.arange(count, dtype=np.uint64)
    return threefry2x32_kernel(*_split64(s0), *_split64(counters))


def _threefry(s0: np.ndarray, s1: np.ndarray, shape: tuple[int, ...], width: int
              ) -> tuple[np.ndarray, int]:
    m, n = s0.shape[0], math.prod(shape)
    if width == 64:
        o0, o1 = _threefry_counters(s0, s1, n)
        bits = o0.astype(np.uint64) | (o1.astype(np.uint64) << np.uint64(32))
        return bits.reshape((m, *shape)), n
    if not shape:
        o0, _ = _threefry_counters(s0, s1, 1)
        return o0.reshape(m), 1
    dim = _halving_dim(shape)
    half = (*shape[:dim], -(-shape[dim] // 2), *shape[dim + 1:])
    count = math.prod(half)
    o0, o1 = (o.reshape((m, *half)) for o in _threefry_counters(s0, s1, count))
    both = np.stack([o0, o1], axis=dim + 2)
    both = both.reshape((m, *shape[:dim], 2 * half[dim], *shape[dim + 1:]))
    return both[(slice(None), *(slice(0, d) for d in shape))], count


# ---- the primitive --------------------------------------------------------------------------


def _states(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The states `(s0, s1)` of keys `uint32[m, 4]` or `uint64[m, 2]`, as uint64[m, 1] each."""
    if keys.dtype == _U64:
        return keys[:, :1], keys[:, 1:]
    w = keys.astype(np.uint64)
    return w[:, :1] | (w[:, 1:2] << np.uint64(32)), w[:, 2:3] | (w[:, 3:] << np.uint64(32))


def generate_bits(keys: Any, shape: tuple[int, ...], dtype: np.dtype,
                  algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The bits `rng_bit_generator` draws from each key of `keys` (`uint32[*batch, 4]` or
    `uint64[*batch, 2]`), every key on its own, in one NumPy pass: the new keys
    `[*batch, 4 or 2]` and the bits `[*batch, *shape]`.

    >>> keys = np.array([[1, 2, 3, 4], [0, 0, 0, 0]], np.uint32)
    >>> generate_bits(keys, (3,), np.dtype(np.uint32))[1]
    array([[ 512747620, 1298009047, 1267190206],
           [1713891541, 3781805453, 3159862348]], dtype=uint32)
    """
    keys = np.asarray(keys)
    batch = keys.shape[:-1]
    s0, s1 = _states(keys.reshape(-1, keys.shape[-1]))
    width = 64 if dtype == _U64 else 32
    run = _threefry if algorithm == RandomAlgorithm.RNG_THREE_FRY else _philox
    bits, count = run(s0, s1, shape, width)
    s1 = s1 + np.uint64(count)  # wraps modulo 2**64
    if keys.dtype == _U64:
        new_keys = np.concatenate([s0, s1], axis=1)
    else:
        new_keys = np.concatenate([*_split64(s0), *_split64(s1)], axis=1)
    return new_keys.reshape(keys.shape), bits.astype(dtype).reshape((*batch, *shape))


def _rng_bit_generator_kernel(key: Any, *, shape: tuple[int, ...], dtype: np.dtype,
                              algorithm: RandomAlgorithm) -> list[np.ndarray]:
    return list(generate_bits(key, shape, dtype, algorithm))


rng_bit_generator_p = Primitive("rng_bit_generator")
rng_bit_generator_p.multiple_results = True


@rng_bit_generator_p.def_abstract_eval
def _rng_bit_generator_abstract_eval(key: ShapedArray, *, shape: tuple[int, ...],
                                     dtype: np.dtype, algorithm: RandomAlgorithm
                                     ) -> list[ShapedArray]:
    if not ((key.shape == (4,) and key.dtype == _U32) or
            (key.shape == (2,) and key.dtype == _U64)):
        raise TypeError("rng_bit_generator: the key must be uint32[4] or uint64[2], got "
                        f"{key.dtype.name}{list(key.shape)}")
    return [key, ShapedArray(shape, dtype)]


def _rng_bit_generator_batch(args: Sequence[Any], dims: Sequence[int | None], *,
                             shape: tuple[int, ...], dtype: np.dtype,
                             algorithm: RandomAlgorithm) -> tuple[list[Any], list[Any]]:
    (keys,), (dim,) = args, dims
    if dim is None:
        return rng_bit_generator_p.bind(keys, shape=shape, dtype=dtype,
                                        algorithm=algorithm), [None, None]
    # As JAX 0.4.30 does: the first key of the batch draws the bits of the whole batch (one
    # draw of shape (batch, *shape)), and only that key's state advances.
    keys = moveaxis(keys, dim, 0)
    first = structural.index_in_dim(keys, 0, axis=0, keepdims=False)
    new_key, bits = rng_bit_generator_p.bind(first, shape=(keys.shape[0], *shape),
                                             dtype=dtype, algorithm=algorithm)
    new_keys = dynamic_slicing.dynamic_update_index_in_dim(keys, new_key, 0, 0)
    return [new_keys, bits], [0, 0]


rng_bit_generator_p.def_impl(_rng_bit_generator_kernel)
rng_bit_generator_p.def_batch(_rng_bit_generator_batch)
# Random bits are integers: their tangents are float0 zeros.
ad.defjvp_zero(rng_bit_generator_p)


def rng_bit_generator(key: Array, shape: Sequence[int], dtype: Any = np.uint32,
                      algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT
                      ) -> tuple[Array, Array]:
    """Random unsigned integers of `shape` and `dtype` from the state `key`, and the next state.

    The bits are those of XLA:CPU: `RNG_DEFAULT` is Philox-4x32-10.

    >>> import numpy as np
    >>> new_key, bits = rng_bit_generator(np.array([1, 2, 3, 4], np.uint32), (3,))
    >>> bits
    Array([ 512747620, 1298009047, 1267190206], dtype=uint32)
    >>> new_key
    Array([1, 2, 4, 4], dtype=uint32)
    """
    shape = tuple(int(d) for d in shape)
    dtype = dtypes.canonicalize_dtype(dtype)
    if np.dtype(dtype) not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    out = rng_bit_generator_p.bind(key, shape=shape, dtype=np.dtype(dtype),
                                   algorithm=RandomAlgorithm(algorithm))
    return out[0], out[1]
