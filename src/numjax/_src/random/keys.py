"""PRNG keys: raw `uint32[..., 2]` arrays and a thin typed-key wrapper, with JAX's checks.

Typed keys (`random.key`) are represented by `PRNGKeyArray`, a pytree wrapping the raw key data:
it passes through `jit`, `vmap` and the tree utilities as its data leaf. It is not a numjax
`Array` (no extended dtype); it supports `shape`, `ndim`, `dtype`, `len`, indexing, iteration
and `reshape`, which is what the random API and common user code need.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

import numjax.numpy as jnp
from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.random import prng
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import Array as ArrayType
from numjax._src.tree_util import register_pytree_node

Array = Any

_IMPL_NAME = "threefry2x32"


class PRNGKeyDType:
    """The dtype of typed threefry keys, printed as JAX prints it: `key<fry>`."""

    name = "key<fry>"

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PRNGKeyDType) or other == self.name

    def __hash__(self) -> int:
        return hash(self.name)


KEY_DTYPE = PRNGKeyDType()


class PRNGSpec:
    """What `key_impl` returns: names the implementation."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __str__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"PRNGSpec({self._name!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PRNGSpec) and other._name == self._name

    def __hash__(self) -> int:
        return hash(self._name)


class PRNGKeyArray:
    """An array of typed threefry keys: shape is the raw data's shape without the trailing 2.

    >>> import numjax
    >>> k = numjax.random.key(0)
    >>> k.shape, k.dtype
    ((), key<fry>)
    """

    __slots__ = ("_base",)

    def __init__(self, base: Array) -> None:
        self._base = base

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(get_aval(self._base).shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def dtype(self) -> PRNGKeyDType:
        return KEY_DTYPE

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, idx: Any) -> PRNGKeyArray:
        if not isinstance(idx, tuple):
            idx = (idx,)
        if any(i is Ellipsis for i in idx):
            raise NotImplementedError("Ellipsis indexing of key arrays")
        return PRNGKeyArray(self._base[(*idx, slice(None))])

    def __iter__(self) -> Iterator[PRNGKeyArray]:
        return (self[i] for i in range(len(self)))

    def reshape(self, *shape: Any) -> PRNGKeyArray:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return PRNGKeyArray(jnp.reshape(self._base, (*shape, 2)))

    def __repr__(self) -> str:
        return (f"Array({self.shape}, dtype={KEY_DTYPE}) overlaying:\n"
                f"{np.asarray(self._base)}")


register_pytree_node(PRNGKeyArray, lambda k: ((k._base,), None),
                     lambda _, children: PRNGKeyArray(next(iter(children))))


def _impl_repr() -> str:
    return "threefry2x32"


def check_key_data(key_data: Any) -> None:
    """JAX's validation of raw key data (TypeError with JAX's texts)."""
    if not all(hasattr(key_data, a) for a in ("ndim", "shape", "dtype")):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data to have ndim, "
                        f"shape, and dtype attributes. Got {key_data}")
    if key_data.ndim < 1:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; "
                        f"got ndim={key_data.ndim}")
    if tuple(key_data.shape[-1:]) != (2,):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to end "
                        f"with (2,); got shape={tuple(key_data.shape)} for impl={_impl_repr()}")
    if key_data.dtype != np.uint32:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; "
                        f"got dtype={key_data.dtype}")


def _as_array(x: Any) -> Any:
    if hasattr(x, "shape") and hasattr(x, "dtype") and hasattr(x, "ndim"):
        return x
    if isinstance(x, (list, tuple)):
        return jnp.asarray(x)
    raise TypeError(f"unexpected PRNG key type {type(x)}")


def check_prng_key(name: str, key: Any, *, allow_batched: bool = False) -> tuple[Array, bool]:
    """The raw key data of `key` and whether it was a typed key; JAX's errors for bad keys."""
    if isinstance(key, PRNGKeyArray):
        data, typed = key._base, True
        shape = key.shape
    else:
        if isinstance(key, (int, float, complex, bool)):
            raise TypeError(f"unexpected PRNG key type {type(key)}")
        data = _as_array(key)
        check_key_data(data)
        typed = False
        shape = tuple(data.shape)
    if not allow_batched and len(shape) > (0 if typed else 1):
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{np.shape(key) if not typed else shape} != (). Use jax.vmap for "
                         "batching.")
    return data, typed


def return_keys(typed: bool, data: Array) -> Any:
    return PRNGKeyArray(data) if typed else data


def _seed_to_key(ctor_name: str, seed: Any) -> Array:
    if isinstance(seed, PRNGKeyArray):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if transfer_guard._in_use and not isinstance(seed, ArrayType):
        transfer_guard.host_operand(seed, jnp.int64 if dtypes._x64_enabled() else jnp.int32)
    if np.ndim(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of shape "
                        f"{np.shape(seed)} != (). Use jax.vmap for batching")
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        # As JAX: Python ints go through int64 (OverflowError beyond it) so that large seeds,
        # e.g. hashes, do not overflow in 32-bit mode, where they keep their low 32 bits.
        seed64 = np.int64(seed)
        seed_arr = jnp.asarray(seed64 if dtypes._x64_enabled() else seed64.astype(np.int32))
    else:
        seed_arr = jnp.asarray(seed)
    return prng.threefry_seed(seed_arr)


def PRNGKey(seed: Any, *, impl: Any = None) -> Array:
    """A raw threefry key, `uint32[2]`, from an integer seed.

    >>> PRNGKey(42)
    Array([ 0, 42], dtype=uint32)
    """
    _check_impl(impl)
    return _seed_to_key("PRNGKey", seed)


def key(seed: Any, *, impl: Any = None) -> PRNGKeyArray:
    """A typed scalar threefry key from an integer seed.

    >>> key_data(key(42))
    Array([ 0, 42], dtype=uint32)
    """
    _check_impl(impl)
    return PRNGKeyArray(_seed_to_key("key", seed))


def _check_impl(impl: Any) -> None:
    if impl is not None and str(impl) != _IMPL_NAME:
        raise NotImplementedError(f"numjax implements only the threefry2x32 PRNG, got {impl!r}")


def key_data(keys: Any) -> Array:
    """The raw `uint32[..., 2]` data of typed (or raw) keys.

    >>> key_data(key(1))
    Array([0, 1], dtype=uint32)
    """
    data, _ = check_prng_key("key_data", keys, allow_batched=True)
    return data


def wrap_key_data(key_bits_array: Any, *, impl: Any = None) -> PRNGKeyArray:
    """Typed keys wrapping raw `uint32[..., 2]` data.

    >>> wrap_key_data(PRNGKey(1)).shape
    ()
    """
    _check_impl(impl)
    data = _as_array(key_bits_array)
    check_key_data(data)
    return PRNGKeyArray(data)


def key_impl(keys: Any) -> PRNGSpec:
    """The PRNG implementation of `keys` (always threefry2x32 here).

    >>> str(key_impl(key(0)))
    'threefry2x32'
    """
    check_prng_key("key_impl", keys, allow_batched=True)
    return PRNGSpec(_IMPL_NAME)


def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """`num` new keys (an int or a shape) from one key.

    >>> split(PRNGKey(0)).shape
    (2, 2)
    """
    data, typed = check_prng_key("split", key)
    shape = tuple(int(n) for n in num) if isinstance(num, Sequence) else (int(num),)
    return return_keys(typed, prng.threefry_split(data, shape))


def fold_in(key: Any, data: Any) -> Any:
    """A new key that is a deterministic function of `key` and the 32-bit integer `data`.

    >>> fold_in(PRNGKey(0), 7)
    Array([2716826189,  292468403], dtype=uint32)
    """
    raw, typed = check_prng_key("fold_in", key)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    if isinstance(data, (int, np.integer)) and not isinstance(data, bool):
        # jnp.uint32(python int) keeps the low 32 bits.
        data = np.uint32(int(data) & 0xFFFFFFFF)
    return return_keys(typed, prng.threefry_fold_in(raw, lax.convert_element_type(data,
                                                                                 np.uint32)))


def clone(key: Any) -> Any:
    """A copy of `key` for deliberate reuse (JAX's key-reuse checker hook; identity here).

    >>> clone(PRNGKey(3))
    Array([0, 3], dtype=uint32)
    """
    return key
