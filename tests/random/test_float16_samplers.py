"""float16 and bfloat16 samplers against JAX 0.4.30's recorded output.

XLA:CPU computes float16 arithmetic op by op, unfused, and evaluates its own formulas for
log1p (Cephes) and tan (sin / cos) in float16; float32 computation rounded once differed on
thousands of inputs and on ~5-30% of draws. The sweeps hash JAX's output bits over every
finite float16 (NaNs canonicalized); the draws are JAX's bits for PRNGKey(3), shape (24,).
bfloat16 samplers are computed in float32 with bfloat16 constants and rounded at the end (and
where a reshape keeps XLA from dropping a rounding), as XLA:CPU does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import random
from numjax._src.random import xla_math

SWEEPS = [
    ("log1p", xla_math.log1p, "378a6f3e4d95d9e88184dab59a9069fd36b14b4edbdb65d5eb94026331d3a738"),
    ("tan", xla_math.tan, "46d284345d742c83fa40ce053122e0db50f832f74bde893c806e0942e29a7855"),
]


@pytest.mark.parametrize("name,fn,digest", SWEEPS, ids=[s[0] for s in SWEEPS])
def test_float16_primitive_on_every_input(name: str, fn: Callable[[Any], Any], digest: str) -> None:
    every = np.arange(0, 2**16, dtype=np.uint16).view(np.float16)
    x = every[np.isfinite(every)]
    out = np.asarray(fn(x))
    assert out.dtype == np.float16
    bits = np.where(np.isnan(out), np.uint16(0x7E00), out.view(np.uint16))
    assert hashlib.sha256(bits.astype("<u2").tobytes()).hexdigest() == digest


DRAWS = [
    (
        "exponential",
        [
            11625,
            16359,
            17804,
            15187,
            16484,
            17569,
            15631,
            14512,
            15883,
            15580,
            14219,
            16659,
            16546,
            15888,
            10655,
            13477,
            15450,
            14168,
            12543,
            14764,
            14680,
            12012,
            16622,
            14716,
        ],
    ),
    (
        "laplace",
        [
            16196,
            48419,
            50411,
            45857,
            48644,
            50156,
            47253,
            12201,
            47757,
            47149,
            13453,
            48995,
            48769,
            47766,
            16614,
            14714,
            46676,
            13539,
            15605,
            42025,
            9845,
            15956,
            48922,
            8071,
        ],
    ),
    (
        "cauchy",
        [
            50066,
            16459,
            21694,
            13620,
            16762,
            20496,
            14988,
            45493,
            15566,
            14835,
            46729,
            17378,
            16957,
            15576,
            50993,
            48094,
            14467,
            46845,
            49168,
            9901,
            43241,
            49643,
            17231,
            41343,
        ],
    ),
    (
        "pareto",
        [
            15404,
            16735,
            19457,
            15954,
            16895,
            18703,
            16263,
            15709,
            16450,
            16216,
            15632,
            17181,
            16990,
            16452,
            15383,
            15520,
            16100,
            15624,
            15443,
            15796,
            15766,
            15417,
            17116,
            15779,
        ],
    ),
    (
        "truncated_normal",
        [
            48207,
            15402,
            16320,
            13462,
            15516,
            16236,
            14507,
            44222,
            14869,
            14428,
            45913,
            15679,
            15577,
            14872,
            48382,
            47176,
            14094,
            46063,
            47815,
            11434,
            9917,
            48115,
            15648,
            10721,
        ],
    ),
]

SAMPLERS: dict[str, Callable[[Any], Any]] = {
    "exponential": lambda k: random.exponential(k, (24,), jnp.float16),
    "laplace": lambda k: random.laplace(k, (24,), jnp.float16),
    "cauchy": lambda k: random.cauchy(k, (24,), jnp.float16),
    "pareto": lambda k: random.pareto(k, 2.0, (24,), jnp.float16),
    "truncated_normal": lambda k: random.truncated_normal(k, -1.5, 2.0, (24,), jnp.float16),
}


@pytest.mark.parametrize("name,bits", DRAWS, ids=[d[0] for d in DRAWS])
def test_float16_draws_match_jax(name: str, bits: list[int]) -> None:
    out = np.asarray(SAMPLERS[name](random.PRNGKey(3)))
    np.testing.assert_array_equal(out.view(np.uint16), np.array(bits, np.uint16))


BFLOAT16_DRAWS = [
    (
        "normal",
        [
            49057,
            16292,
            48915,
            48979,
            48750,
            48575,
            48958,
            48800,
            16326,
            15930,
            48952,
            48615,
            49016,
            16092,
            15827,
            16214,
            49057,
            16038,
            48909,
            16081,
            48952,
            16059,
            48843,
            16237,
        ],
    ),
    (
        "logistic",
        [
            49159,
            16396,
            49001,
            49066,
            48823,
            48653,
            49049,
            48890,
            16430,
            16023,
            49043,
            48686,
            49098,
            16177,
            15920,
            16304,
            49159,
            16134,
            48991,
            16168,
            49043,
            16151,
            48928,
            16323,
        ],
    ),
    (
        "cauchy",
        [
            49203,
            16449,
            48970,
            49062,
            48787,
            48609,
            49039,
            48843,
            16545,
            15985,
            49032,
            48650,
            49110,
            16148,
            15882,
            16302,
            49203,
            16090,
            48960,
            16140,
            49032,
            16120,
            48900,
            16331,
        ],
    ),
    (
        "gumbel",
        [
            48980,
            16399,
            48756,
            48879,
            15830,
            16003,
            48842,
            15519,
            16431,
            16148,
            48831,
            15983,
            48920,
            16229,
            16118,
            16318,
            48980,
            16193,
            48733,
            16221,
            48831,
            16207,
            48518,
            16335,
        ],
    ),
    (
        "normal_jit",
        [
            49057,
            16292,
            48915,
            48979,
            48750,
            48575,
            48958,
            48800,
            16326,
            15930,
            48952,
            48615,
            49016,
            16092,
            15827,
            16214,
            49057,
            16038,
            48909,
            16081,
            48952,
            16059,
            48843,
            16237,
        ],
    ),
    # One float32 program: the normal (or uniform) values are not rounded to bfloat16 before
    # the sampler's own arithmetic.
    (
        "lognormal",
        [
            16136, 16371, 16192, 16170, 16228, 16244, 16177, 16219,
            16395, 16268, 16179, 16242, 16158, 16287, 16263, 16323,
            16136, 16278, 16194, 16285, 16179, 16282, 16210, 16331,
        ],
    ),
    (
        "rayleigh",
        [
            16521, 16237, 16460, 16485, 16428, 16415, 16477, 16435,
            16184, 16392, 16474, 16417, 16499, 16360, 16398, 16301,
            16521, 16376, 16458, 16363, 16474, 16370, 16443, 16289,
        ],
    ),
    (
        "maxwell",
        [
            16275, 16250, 16379, 16151, 16334, 16393, 16217, 16326,
            16381, 16311, 16355, 16322, 16417, 16310, 16325, 16409,
            16275, 16277, 16378, 16312, 16457, 16340, 16281, 16378,
        ],
    ),
    (
        "double_sided_maxwell",
        [
            48829, 49192, 49065, 49052, 16494, 49200, 48812, 49171,
            16585, 16486, 16520, 16497, 49215, 16530, 49191, 16378,
            16464, 16563, 49145, 49237, 16448, 49113, 49277, 49233,
        ],
    ),

]

BFLOAT16_SAMPLERS: dict[str, Callable[[Any], Any]] = {
    "normal": lambda k: random.normal(k, (24,), jnp.bfloat16),
    "logistic": lambda k: random.logistic(k, (24,), jnp.bfloat16),
    "cauchy": lambda k: random.cauchy(k, (24,), jnp.bfloat16),
    "gumbel": lambda k: random.gumbel(k, (24,), jnp.bfloat16),
    "normal_jit": lambda k: numjax.jit(lambda k: random.normal(k, (24,), jnp.bfloat16))(k),
    "lognormal": lambda k: random.lognormal(k, 0.5, (24,), jnp.bfloat16),
    "rayleigh": lambda k: random.rayleigh(k, 2.0, (24,), jnp.bfloat16),
    "maxwell": lambda k: random.maxwell(k, (24,), jnp.bfloat16),
    "double_sided_maxwell": lambda k: random.double_sided_maxwell(k, 0.5, 2.0, (24,),
                                                                  jnp.bfloat16),
}


@pytest.mark.parametrize("name,bits", BFLOAT16_DRAWS, ids=[d[0] for d in BFLOAT16_DRAWS])
def test_bfloat16_draws_match_jax(name: str, bits: list[int]) -> None:
    out = np.asarray(BFLOAT16_SAMPLERS[name](random.PRNGKey(3)))
    np.testing.assert_array_equal(out.view(np.uint16), np.array(bits, np.uint16))
