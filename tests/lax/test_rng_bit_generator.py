"""lax.rng_bit_generator: bits and new states recorded from JAX 0.4.30 on CPU (XLA's Philox for
RNG_DEFAULT, its threefry layout for RNG_THREE_FRY), eager, under jit and under vmap."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.lax.rng_bit_generator import generate_bits

K1 = [1, 2, 3, 4]
KC = [5, 6, 0xFFFFFFF0, 0xFFFFFFFF]  # the counter's low 64 bits near their wrap
KW = [5, 6, 0xFFFFFFFE, 0xFFFFFFFF]  # the counter's low word wraps: its high word (s0) carries
KEYS = {"K1": K1, "KC": KC, "KW": KW}

# (algorithm, dtype, shape, key, JAX's new state, JAX's bits)
RECORDED: list[tuple[str, str, tuple[int, ...], str, list[int], Any]] = [
    ("RNG_DEFAULT", "uint32", (5,), "K1", [1, 2, 5, 4],
     [512747620, 1298009047, 1267190206, 761827841, 1383286907]),
    ("RNG_DEFAULT", "uint8", (2, 3), "K1", [1, 2, 5, 4], [[100, 215, 190], [1, 123, 150]]),
    ("RNG_DEFAULT", "uint16", (3, 1), "KC", [5, 6, 4294967281, 4294967295],
     [[52595], [13958], [48025]]),
    ("RNG_DEFAULT", "uint64", (3,), "K1", [1, 2, 5, 4],
     [5574906407289874532, 3272025663544478142, 7043725020835825787]),
    ("RNG_DEFAULT", "uint32", (), "KC", [5, 6, 4294967281, 4294967295], 2452213107),
    ("RNG_DEFAULT", "uint64", (2, 2), "KC", [5, 6, 4294967282, 4294967295],
     [[9330955429563977075, 9300395763850591129], [17813716753657300065, 8275970844294500552]]),
    ("RNG_DEFAULT", "uint32", (3, 3), "KC", [5, 6, 4294967283, 4294967295],
     [[2452213107, 2172532358, 4007443353], [2165417131, 2670396513, 4147579137],
      [2309607624, 1926899618, 2770099181]]),
    ("RNG_DEFAULT", "uint32", (1, 5), "K1", [1, 2, 5, 4],
     [[512747620, 1298009047, 1267190206, 761827841, 1383286907]]),
    ("RNG_DEFAULT", "uint32", (12,), "KW", [5, 6, 1, 0],
     [3851460723, 1320486401, 3136348966, 3729489909, 415646568, 3034685952, 1100661262,
      480170299, 3369663133, 2917692848, 2659525831, 1622086665]),
    ("RNG_THREE_FRY", "uint32", (5,), "K1", [1, 2, 6, 4],
     [1576285164, 2249660814, 740599976, 2425682526, 2436392515]),
    ("RNG_THREE_FRY", "uint8", (2, 3), "K1", [1, 2, 6, 4], [[236, 168, 67], [142, 94, 25]]),
    ("RNG_THREE_FRY", "uint16", (3, 1), "KC", [5, 6, 4294967282, 4294967295],
     [[48193], [18149], [2140]]),
    ("RNG_THREE_FRY", "uint64", (3,), "K1", [1, 2, 6, 4],
     [9662219624799024108, 10418227120389269672, 6433701140276733507]),
    ("RNG_THREE_FRY", "uint32", (), "KC", [5, 6, 4294967281, 4294967295], 2373172289),
    ("RNG_THREE_FRY", "uint64", (2, 2), "KC", [5, 6, 4294967284, 4294967295],
     [[15272065763124689985, 2887324616399128668],
      [18302207855730065868, 11360007775600195763]]),
    ("RNG_THREE_FRY", "uint32", (3, 3), "KC", [5, 6, 4294967286, 4294967295],
     [[2373172289, 3753248860, 1445429708], [3555804901, 672257648, 4261314835],
      [1314076851, 2598864410, 868534467]]),
    ("RNG_THREE_FRY", "uint32", (1, 5), "K1", [1, 2, 6, 4],
     [[1576285164, 2249660814, 740599976, 2425682526, 2436392515]]),
    ("RNG_THREE_FRY", "uint32", (12,), "KW", [5, 6, 4, 0],
     [4248992499, 1153752509, 2281824596, 886891200, 4093204993, 2146376121, 2452095392,
      1149180355, 2049061962, 67062112, 41453286, 1018845522]),
]

# (algorithm, dtype, JAX's new state, sha256 of JAX's bits) for shape (301, 333) from K1.
RECORDED_LARGE = [
    ("RNG_DEFAULT", "uint32", [1, 2, 25062, 4],
     "cd722fd92ad1c8412722b99391ba1f4ed2d3276df4bd0edd5e50f3f6ca97a26a"),
    ("RNG_DEFAULT", "uint64", [1, 2, 50120, 4],
     "daaa08d56eec523e4096771ff5ce4d7f1ee6f54f16ea7df5b721d8022082006f"),
    ("RNG_DEFAULT", "uint8", [1, 2, 25062, 4],
     "28e4dfa342dcbd340affb7aac97a096caa70a1dd2fcad90c31802695dc0269ed"),
    ("RNG_THREE_FRY", "uint32", [1, 2, 50270, 4],
     "52d047fd0e26b43693b29043fa50734e17209a76d16c5dd7c94699d6b7fa8d11"),
    ("RNG_THREE_FRY", "uint64", [1, 2, 100236, 4],
     "70ca505dacde92e5087a4b932fefc382cbdb85c2157f2f9b5bffd3ea86413cd5"),
    ("RNG_THREE_FRY", "uint8", [1, 2, 50270, 4],
     "1224e79b269cf636bf78bacee1951f04410c8c84f5663221f417f3da41c971d8"),
]


def _run(fn: Any, key: Any, shape: tuple[int, ...], dtype: str, alg: str) -> tuple[Any, Any]:
    return fn(lambda k: lax.rng_bit_generator(k, shape, dtype=dtype,
                                              algorithm=getattr(lax.RandomAlgorithm, alg)))(key)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("alg,dtype,shape,key,state,bits", RECORDED,
                         ids=[f"{r[0]}-{r[1]}-{r[2]}-{r[3]}" for r in RECORDED])
def test_bits_and_state_as_recorded(alg: str, dtype: str, shape: tuple[int, ...], key: str,
                                    state: list[int], bits: Any, jit: bool) -> None:
    with numjax.experimental.enable_x64(dtype == "uint64"):
        new_key, out = _run(numjax.jit if jit else (lambda f: f),
                            np.array(KEYS[key], np.uint32), shape, dtype, alg)
        assert out.dtype == np.dtype(dtype) and out.shape == shape and not out.weak_type
        np.testing.assert_array_equal(np.asarray(out), np.array(bits, dtype))
        assert new_key.dtype == np.uint32
        np.testing.assert_array_equal(np.asarray(new_key), np.array(state, np.uint32))


@pytest.mark.parametrize("alg,dtype,shape,key,state,bits", RECORDED,
                         ids=[f"{r[0]}-{r[1]}-{r[2]}-{r[3]}" for r in RECORDED])
def test_kernel_draws_a_batch_of_keys_each_on_its_own(
        alg: str, dtype: str, shape: tuple[int, ...], key: str, state: list[int],
        bits: Any) -> None:
    # One pass over a batch of keys (uint32[2, 3, 4]) gives each key its own draw: JAX's bits
    # and state for the recorded key, the single-key kernel's for the others.
    names = ["K1", "KC", "KW", "KW", "K1", "KC"]
    keys = np.array([KEYS[n] for n in names], np.uint32).reshape(2, 3, 4)
    algorithm = getattr(lax.RandomAlgorithm, alg)
    new_keys, out = generate_bits(keys, shape, np.dtype(dtype), algorithm)
    assert out.shape == (2, 3, *shape) and out.dtype == np.dtype(dtype)
    for i, name in enumerate(names):
        got_key, got = new_keys.reshape(6, 4)[i], out.reshape(6, *shape)[i]
        one_key, one = generate_bits(np.array(KEYS[name], np.uint32), shape, np.dtype(dtype),
                                     algorithm)
        np.testing.assert_array_equal(got, one)
        np.testing.assert_array_equal(got_key, one_key)
        if name == key:
            np.testing.assert_array_equal(got, np.array(bits, dtype))
            np.testing.assert_array_equal(got_key, np.array(state, np.uint32))
    # uint64[2] states: the same words.
    new64, out64 = generate_bits(keys.reshape(6, 4).view(np.uint64), shape, np.dtype(dtype),
                                 algorithm)
    np.testing.assert_array_equal(out64, out.reshape(6, *shape))
    np.testing.assert_array_equal(new64.view(np.uint32), new_keys.reshape(6, 4))


@pytest.mark.parametrize("alg,dtype,state,digest", RECORDED_LARGE,
                         ids=[f"{r[0]}-{r[1]}" for r in RECORDED_LARGE])
def test_large_draws_as_recorded(alg: str, dtype: str, state: list[int], digest: str) -> None:
    with numjax.experimental.enable_x64(dtype == "uint64"):
        new_key, out = _run(lambda f: f, np.array(K1, np.uint32), (301, 333), dtype, alg)
        assert hashlib.sha256(np.asarray(out).tobytes()).hexdigest() == digest
        np.testing.assert_array_equal(np.asarray(new_key), np.array(state, np.uint32))


def test_default_is_philox_and_uint64_states() -> None:
    k = np.array(KC, np.uint32)
    default = lax.rng_bit_generator(k, (7,))[1]
    philox = lax.rng_bit_generator(k, (7,), algorithm=lax.RandomAlgorithm.RNG_PHILOX)[1]
    np.testing.assert_array_equal(np.asarray(default), np.asarray(philox))
    # A uint64[2] state is the uint32[4] state read as two little-endian words (JAX 0.4.30).
    with numjax.experimental.enable_x64():
        new_key, bits = lax.rng_bit_generator(k.view(np.uint64), (5,))
        assert new_key.dtype == np.uint64
        np.testing.assert_array_equal(np.asarray(new_key),
                                      np.array([25769803781, 18446744073709551602], np.uint64))
        np.testing.assert_array_equal(
            np.asarray(bits), [2452213107, 2172532358, 4007443353, 2165417131, 2670396513])


@pytest.mark.parametrize("in_axes", [0, 1])
def test_vmap_draws_the_batch_from_the_first_key(in_axes: int) -> None:
    # JAX 0.4.30's batching rule: keys[0] draws (batch, *shape) bits; only it advances.
    keys = np.array([K1, KC, [8, 9, 10, 11]], np.uint32)
    f = numjax.vmap(lambda k: lax.rng_bit_generator(k, (2,)), in_axes=in_axes,
                    out_axes=in_axes)
    for g in (f, numjax.jit(f)):
        new_keys, bits = g(keys if in_axes == 0 else keys.T)
        new_keys, bits = (np.moveaxis(np.asarray(a), in_axes, 0) for a in (new_keys, bits))
        np.testing.assert_array_equal(new_keys, [[1, 2, 5, 4], KC, [8, 9, 10, 11]])
        np.testing.assert_array_equal(bits, [[512747620, 1298009047], [1267190206, 761827841],
                                             [1383286907, 1639995030]])


def test_abstract_eval_jaxpr_and_jvp() -> None:
    k = jnp.array(K1, jnp.uint32)
    key_aval, bits_aval = numjax.eval_shape(lambda k: lax.rng_bit_generator(k, (3, 2)), k)
    assert (key_aval.shape, bits_aval.shape, bits_aval.dtype) == ((4,), (3, 2), np.uint32)
    text = str(numjax.make_jaxpr(lambda k: lax.rng_bit_generator(k, (3,)))(k))
    assert "rng_bit_generator[\n      algorithm=RNG_DEFAULT\n      dtype=uint32\n" in text
    # Integer outputs: a float0 tangent, as JAX's.
    out, tangent = numjax.jvp(lambda k: lax.rng_bit_generator(k, (3,))[1], (k,),
                              (np.zeros(4, numjax.dtypes.float0),))
    np.testing.assert_array_equal(np.asarray(out), [512747620, 1298009047, 1267190206])
    assert tangent.dtype == numjax.dtypes.float0 and tangent.shape == (3,)


def test_errors() -> None:
    k = jnp.array(K1, jnp.uint32)
    for dtype in (jnp.int32, jnp.float32):
        with pytest.raises(TypeError, match=f"rng_bit_generator: unsupported dtype "
                                            f"{np.dtype(dtype).name}"):
            lax.rng_bit_generator(k, (3,), dtype=dtype)
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        lax.rng_bit_generator(k, 3)  # type: ignore[arg-type]
    # JAX fails an internal assertion here; numjax names the accepted states.
    with pytest.raises(TypeError, match=r"uint32\[4\] or uint64\[2\], got uint32\[3\]"):
        lax.rng_bit_generator(jnp.array([1, 2, 3], jnp.uint32), (3,))
    assert str(lax.RandomAlgorithm.RNG_THREE_FRY) == "RNG_THREE_FRY"
    assert [int(a) for a in lax.RandomAlgorithm] == [0, 1, 2]
