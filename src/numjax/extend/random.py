"""`jax.extend.random`: PRNG implementations (threefry2x32, rbg, unsafe_rbg) and defining one.

>>> import numjax
>>> from numjax.extend import random as jex_random
>>> numjax.random.key(0, impl=jex_random.rbg_prng_impl).dtype
key<rbg>
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

import numjax.numpy as jnp
from numjax._src.api.transformations import vmap
from numjax._src.random.keys import PRNGKeyArray, PRNGSpec, key, resolve_prng_impl
from numjax._src.random.prng import PRNGImpl
from numjax._src.random.prng import rbg_prng_impl as rbg_prng_impl
from numjax._src.random.prng import threefry2x32_p as threefry2x32_p
from numjax._src.random.prng import threefry_2x32 as threefry_2x32
from numjax._src.random.prng import threefry_prng_impl as threefry_prng_impl
from numjax._src.random.prng import unsafe_rbg_prng_impl as unsafe_rbg_prng_impl

Shape = tuple[int, ...]


def define_prng_impl(*, key_shape: Shape, seed: Callable[[Any], Any],
                     split: Callable[[Any, Shape], Any],
                     random_bits: Callable[[Any, int, Shape], Any],
                     fold_in: Callable[[Any, int], Any], name: str = "<unnamed>",
                     tag: str = "?") -> Hashable:
    """A PRNG implementation from its key shape and operations on raw key data, usable as
    `impl=` of `random.key` and `random.wrap_key_data` (it is not registered by name).

    >>> spec = define_prng_impl(key_shape=(2,), seed=threefry_prng_impl.seed,
    ...     split=threefry_prng_impl.split, random_bits=threefry_prng_impl.random_bits,
    ...     fold_in=threefry_prng_impl.fold_in, name="my_fry", tag="myfry")
    >>> str(spec)
    'myfry'
    """
    return PRNGSpec(PRNGImpl(tuple(key_shape), seed, split, random_bits, fold_in, name=name,
                             tag=tag))


def random_seed(seeds: Any, impl: Any) -> PRNGKeyArray:
    """Typed keys of `impl`, one per integer in `seeds` (any shape).

    >>> random_seed(3, rbg_prng_impl).dtype
    key<rbg>
    """
    impl_obj = resolve_prng_impl(impl)
    if not np.ndim(seeds):
        return key(seeds, impl=impl_obj)  # a Python int seed as `random.key` reads it
    seeds = jnp.asarray(seeds)
    seed_fn = impl_obj.seed
    for _ in range(seeds.ndim):
        seed_fn = vmap(seed_fn)
    return PRNGKeyArray(seed_fn(seeds), impl_obj)


def seed_with_impl(impl: Any, seed: Any) -> PRNGKeyArray:
    """`random_seed(seed, impl)`, arguments in the other order."""
    return random_seed(seed, impl)
