"""Typed key arrays (`random.key`): dtype `key<fry>`, shape operations, printing, JAX's errors,
and transformations. Expected values and messages were recorded from JAX 0.4.30."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import dtypes, lax
from numjax import random as r
from numjax._src import config as _config

# random.split(random.key(0), (2, 3)) and random.split(random.key(0)) in JAX 0.4.30.
SPLIT_2x3 = np.array([[[3792494674, 582972539], [2883479965, 3114868201],
                       [1492792183, 3245818218]],
                      [[2909014575, 82862454], [1782947029, 692041252],
                       [1067690106, 2610540821]]], np.uint32)
SPLIT_2 = np.array([[4146024105, 967050713], [2718843009, 1272950319]], np.uint32)


def test_key_dtype() -> None:
    k = r.key(0)
    assert isinstance(k, numjax.Array)
    assert (k.shape, k.ndim, k.size, str(k.dtype), repr(k.dtype)) == ((), 0, 1, "key<fry>",
                                                                      "key<fry>")
    assert k.dtype.name == "key<fry>" and k.dtype.itemsize == 8 and k.itemsize == 8
    assert k.dtype.type is dtypes.prng_key
    assert dtypes.issubdtype(k.dtype, dtypes.prng_key)
    assert dtypes.issubdtype(k.dtype, dtypes.extended)
    assert not dtypes.issubdtype(k.dtype, np.floating)
    assert k.dtype == r.key(1).dtype and hash(k.dtype) == hash(r.split(k).dtype)
    assert k.dtype != "key<fry>"


def test_printing() -> None:
    k = r.key(0)
    assert repr(k) == str(k) == f"{k}" == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
    assert repr(r.split(k)) == ("Array((2,), dtype=key<fry>) overlaying:\n"
                                "[[4146024105  967050713]\n [2718843009 1272950319]]")
    assert repr(r.split(k, 0)) == "Array((0,), dtype=key<fry>) overlaying:\n[]"
    assert repr(r.wrap_key_data(np.array([3, 4], np.uint32))) == (
        "Array((), dtype=key<fry>) overlaying:\n[3 4]")


def test_split_and_key_data() -> None:
    k = r.key(0)
    ks = r.split(k)
    assert ks.shape == (2,) and ks.dtype == k.dtype
    np.testing.assert_array_equal(r.key_data(ks), SPLIT_2)
    ks3 = r.split(k, (2, 3))
    assert ks3.shape == (2, 3) and r.key_data(ks3).shape == (2, 3, 2)
    np.testing.assert_array_equal(r.key_data(ks3), SPLIT_2x3)
    assert r.split(k, (2,)).shape == (2,)
    np.testing.assert_array_equal(r.key_data(r.fold_in(ks[1], 2**31)),
                                  np.array([3650049786, 2766328431], np.uint32))
    np.testing.assert_array_equal(r.key_data(r.fold_in(k, 3)),
                                  np.array([2467461003, 3840466878], np.uint32))
    np.testing.assert_allclose(r.normal(ks[1], (3,)), [1.1378784, -1.2209548, -0.59153634],
                               rtol=1e-6)
    np.testing.assert_array_equal(r.bits(k, (3,)),
                                  np.array([4146024105, 1351547692, 2718843009], np.uint32))


@pytest.mark.parametrize("op, shape, data", [
    (lambda ks: ks.reshape(3, 2), (3, 2), None),
    (lambda ks: ks.reshape((1, 6)), (1, 6), SPLIT_2x3.reshape(1, 6, 2)),
    (lambda ks: ks.reshape(-1), (6,), SPLIT_2x3.reshape(6, 2)),
    (lambda ks: ks.ravel(), (6,), None),
    (lambda ks: ks.flatten(), (6,), None),
    (lambda ks: ks.T, (3, 2), SPLIT_2x3.transpose(1, 0, 2)),
    (lambda ks: ks.transpose(), (3, 2), None),
    (lambda ks: ks.swapaxes(0, 1), (3, 2), None),
    (lambda ks: ks[1, 2], (), np.array([1067690106, 2610540821], np.uint32)),
    (lambda ks: ks[:, 1], (2,), None),
    (lambda ks: ks[..., 1], (2,), None),
    (lambda ks: ks[None], (1, 2, 3), None),
    (lambda ks: ks[..., None], (2, 3, 1), None),
    (lambda ks: ks[None].squeeze(), (2, 3), None),
    (lambda ks: ks[None].squeeze(0), (2, 3), None),
    (lambda ks: ks[numjax.numpy.array([1, 0])], (2, 3), SPLIT_2x3[::-1]),
    (lambda ks: ks[np.array([True, False])], (1, 3), None),
])
def test_shape_operations(op: Callable[[Any], Any], shape: tuple[int, ...], data: Any) -> None:
    out = op(r.split(r.key(0), (2, 3)))
    assert out.shape == shape and out.dtype == r.key(0).dtype
    if data is not None:
        np.testing.assert_array_equal(r.key_data(out), data)


def test_len_iter_eq() -> None:
    k, ks = r.key(0), r.split(r.key(0))
    assert len(ks) == 2 and [x.shape for x in ks] == [(), ()]
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(k)
    with pytest.raises(TypeError, match="iteration over a 0-d key array"):
        list(k)
    np.testing.assert_array_equal(ks == ks, [True, True])
    np.testing.assert_array_equal(k == ks, [False, False])
    assert bool(k == k) and not bool(k != k)
    assert (+k) is k
    with pytest.raises(TypeError, match="unhashable type: 'PRNGKeyArray'"):
        hash(k)
    with pytest.raises(TypeError, match=re.escape(
            "cannot reshape array of shape (2,) (size 2) into shape 3 (size 3)")):
        ks.reshape(3)


# JAX 0.4.30's errors for arithmetic on keys (k = key(0)).
ARITHMETIC_ERRORS: list[tuple[str, Callable[[Any], Any], type, str]] = [
    ("k + 1", lambda k: k + 1, TypeError, "add does not accept dtypes key<fry>, int32."),
    ("1 + k", lambda k: 1 + k, TypeError, "add does not accept dtypes int32, key<fry>."),
    ("k - 1", lambda k: k - 1, TypeError, "subtract does not accept dtypes key<fry>, int32."),
    ("1 - k", lambda k: 1 - k, TypeError, "subtract does not accept dtypes int32, key<fry>."),
    ("k * 2", lambda k: k * 2, TypeError, "multiply does not accept dtypes key<fry>, int32."),
    ("k / 2", lambda k: k / 2, TypeError, "true_divide does not accept dtypes key<fry>, int32."),
    ("k // 2", lambda k: k // 2, TypeError,
     "floor_divide does not accept dtypes key<fry>, int32."),
    ("k % 2", lambda k: k % 2, TypeError, "remainder does not accept dtypes key<fry>, int32."),
    ("k & 1", lambda k: k & 1, TypeError, "bitwise_and does not accept dtypes key<fry>, int32."),
    ("k < 1", lambda k: k < 1, TypeError, "less does not accept dtypes key<fry>, int32."),
    ("k == 1", lambda k: k == 1, TypeError, "equal does not accept dtypes key<fry>, int32."),
    ("k + 1.5", lambda k: k + 1.5, TypeError, "add does not accept dtypes key<fry>, float32."),
    ("k + k", lambda k: k + k, TypeError,
     "add does not accept dtype key<fry> at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, complexfloating, floating."),
    ("k * k", lambda k: k * k, TypeError,
     "mul does not accept dtype key<fry> at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, complexfloating, floating."),
    ("k | k", lambda k: k | k, TypeError,
     "or does not accept dtype key<fry> at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, bool_."),
    ("k < k", lambda k: k < k, TypeError,
     "lt does not accept dtype key<fry> at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, bool_, floating."),
    ("k >= k", lambda k: k >= k, TypeError,
     "ge does not accept dtype key<fry> at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, bool_, floating."),
    ("-k", lambda k: -k, TypeError,
     "neg does not accept dtype key<fry>. Accepted dtypes are subtypes of integer, "
     "complexfloating, floating."),
    ("~k", lambda k: ~k, TypeError,
     "not does not accept dtype key<fry>. Accepted dtypes are subtypes of integer, bool_."),
    ("abs(k)", abs, TypeError,
     "abs does not accept dtype key<fry>. Accepted dtypes are subtypes of floating, "
     "complexfloating, signedinteger."),
    ("k ** 2", lambda k: k ** 2, ValueError,
     "Internal: canonicalize_dtype called on extended dtype key<fry> with "
     "allow_extended_dtype=False"),
    ("float(k)", float, TypeError,
     "float() argument must be a string or a real number, not 'PRNGKeyArray'"),
]


@pytest.mark.parametrize("name, op, exc, message", ARITHMETIC_ERRORS,
                         ids=[e[0] for e in ARITHMETIC_ERRORS])
def test_arithmetic_errors(name: str, op: Callable[[Any], Any], exc: type,
                           message: str) -> None:
    with pytest.raises(exc, match=re.escape(message)):
        op(r.key(0))


def test_constructors_and_errors() -> None:
    k = r.key(0)
    np.testing.assert_array_equal(r.key_data(r.wrap_key_data(np.zeros((3, 2), np.uint32))),
                                  np.zeros((3, 2), np.uint32))
    assert r.wrap_key_data(np.zeros((3, 2), np.uint32)).shape == (3,)
    assert str(r.key_impl(k)) == "fry" and str(r.key_impl(r.PRNGKey(0))) == "fry"
    assert r.key_data(r.key(0, impl=r.key_impl(k))).shape == (2,)
    with pytest.raises(TypeError, match=re.escape(
            "JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; got ndim=0")):
        r.wrap_key_data(k)
    with pytest.raises(TypeError, match=re.escape(
            "expected key_data.dtype = uint32; got dtype=int32")):
        r.wrap_key_data(np.zeros((2,), np.int32))
    with pytest.raises(TypeError, match="key accepts a scalar seed, but was given a PRNG key."):
        r.key(k)
    with pytest.raises(TypeError,
                       match="PRNGKey accepts a scalar seed, but was given a PRNG key."):
        r.PRNGKey(k)
    with pytest.raises(ValueError, match=re.escape(
            "split accepts a single key, but was given a key array of shape (2,) != (). Use "
            "jax.vmap for batching.")):
        r.split(r.split(k))
    with pytest.raises(ValueError, match=re.escape(
            'unrecognized PRNG implementation "foo". Did you mean one of: "threefry2x32", '
            '"rbg", "unsafe_rbg"?')):
        r.key(0, impl="foo")


def test_transformations() -> None:
    k = r.key(0)
    ks = r.split(k)
    out = numjax.jit(lambda x: x)(k)
    assert out.dtype == k.dtype and repr(out) == repr(k)
    np.testing.assert_array_equal(r.key_data(numjax.jit(r.split)(k)), SPLIT_2)
    np.testing.assert_array_equal(numjax.jit(r.key_data)(ks), SPLIT_2)
    np.testing.assert_array_equal(r.key_data(numjax.jit(r.key)(5)), [0, 5])
    np.testing.assert_allclose(numjax.jit(lambda kk: r.uniform(kk, (2,)))(k),
                               [0.21629536, 0.8041241], rtol=1e-7)
    vs = numjax.vmap(r.split)(ks)
    assert vs.shape == (2, 2)
    np.testing.assert_array_equal(
        r.key_data(vs), [[[2384771982, 3928867769], [1278412471, 2182328957]],
                         [[3746991216, 1902760697], [1190051861, 3378399878]]])
    np.testing.assert_allclose(numjax.vmap(lambda kk: r.uniform(kk, (2,)))(ks),
                               [[0.48026025, 0.23836613], [0.5765507, 0.29917216]], rtol=1e-7)
    assert numjax.vmap(lambda kk: r.split(kk, 3), out_axes=1)(ks).shape == (3, 2)
    assert numjax.vmap(r.key_data, in_axes=1)(r.split(k, (2, 3))).shape == (3, 2, 2)
    np.testing.assert_array_equal(r.key_data(numjax.vmap(r.key)(numjax.numpy.arange(3))),
                                  [[0, 0], [0, 1], [0, 2]])
    # Differentiating float arguments of functions of keys; keys get float0 cotangents.
    np.testing.assert_allclose(numjax.grad(lambda x, kk: x * r.uniform(kk))(1.0, k),
                               0.41845703, rtol=1e-7)
    np.testing.assert_allclose(
        numjax.vmap(numjax.grad(lambda x, kk: x * r.normal(kk)), (None, 0))(2.0, ks),
        [0.14389051, -1.2515389], rtol=1e-6)
    ct = numjax.grad(lambda kk, x: x * r.uniform(kk), allow_int=True)(k, 1.0)
    assert ct.shape == () and ct.dtype == dtypes.float0
    ct = numjax.grad(lambda kk, x: x * r.uniform(kk[0]), allow_int=True)(ks, 1.0)
    assert ct.shape == (2,) and ct.dtype == dtypes.float0
    key_ct, x_ct = numjax.vjp(lambda kk, x: x * r.uniform(kk), k, 1.0)[1](1.0)
    assert key_ct.dtype == dtypes.float0
    np.testing.assert_allclose(x_ct, 0.41845703, rtol=1e-7)
    # Keys through control flow.
    data = numjax.lax.scan(lambda c, _: (r.split(c)[0], r.key_data(c)), k, None, length=3)[1]
    np.testing.assert_array_equal(data, [[0, 0], [4146024105, 967050713],
                                         [2384771982, 3928867769]])
    out = numjax.lax.cond(True, lambda kk: r.split(kk)[0], lambda kk: kk, k)
    np.testing.assert_array_equal(r.key_data(out), [4146024105, 967050713])
    assert repr(numjax.device_put(k)) == repr(k) and repr(k.block_until_ready()) == repr(k)


# ---- the blocked kernels (compiler/blocks.py) give the whole-array bits -------------------------

# sha256 of the bytes of JAX 0.4.30's random.<name>(random.PRNGKey(7), (300_001,)): long enough
# that the kernels run in several blocks over threads, with a ragged last block.
LARGE_SHA256 = {
    "uniform": "7da1201614c040d8cb19f0168632bbe6626b136167fcc5c338d096b3eec823d4",
    "bits": "ad5a4299fb466fb7df1ad39db3bd915a7fe2868b27dce2a271ea919fb178e1c5",
}


@pytest.mark.parametrize("name", sorted(LARGE_SHA256))
def test_large_samples_match_jax(name: str) -> None:
    import hashlib

    out = np.asarray(getattr(r, name)(r.PRNGKey(7), (300_001,)))
    assert hashlib.sha256(out.tobytes()).hexdigest() == LARGE_SHA256[name]


def test_blocked_kernels_equal_whole_array(monkeypatch: pytest.MonkeyPatch) -> None:
    from numjax._src.compiler import blocks
    from numjax._src.lax.rng_bit_generator import threefry2x32_kernel
    from numjax._src.random import xla_math

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 200_003).astype(np.float32)
    x[:4] = [1.0, -1.0, 0.0, np.float32(0.99999994)]  # the edges and the w >= 5 branch
    k = rng.integers(0, 2**32, (4, 200_003), dtype=np.uint64).astype(np.uint32)
    c = rng.uniform(-1, 1, 200_003).astype(np.float32)
    blocked = (xla_math._erf_inv_kernel(x), *threefry2x32_kernel(k[0], k[1], k[2], k[3]),
               xla_math._fma_kernel(x, c, x),
               *threefry2x32_kernel(np.uint32(1), np.uint32(2), k[2], k[3]))
    monkeypatch.setattr(blocks, "MIN_SIZE", 10**9)  # one whole-array pass
    whole = (xla_math._erf_inv_kernel(x), *threefry2x32_kernel(k[0], k[1], k[2], k[3]),
             xla_math._fma_kernel(x, c, x),
             *threefry2x32_kernel(np.uint32(1), np.uint32(2), k[2], k[3]))
    for b, w in zip(blocked, whole, strict=True):
        np.testing.assert_array_equal(b.view(np.uint32), w.view(np.uint32))


# jnp functions on key arrays, from K = split(key(0), (2, 3)): the result's shape and the rows
# of SPLIT_2x3.reshape(6, 2) it holds, as recorded from JAX 0.4.30 (results are key arrays).
def _K() -> Any:
    return r.split(r.key(0), (2, 3))


JNP_ON_KEYS: list[tuple[str, Callable[[Any], Any], tuple[int, ...], list[int]]] = [
    ("concatenate0", lambda k: jnp.concatenate([k, k[:1]], axis=0), (3, 3),
     [0, 1, 2, 3, 4, 5, 0, 1, 2]),
    ("concatenate-1", lambda k: jnp.concatenate([k, k[:, :1]], axis=-1), (2, 4),
     [0, 1, 2, 0, 3, 4, 5, 3]),
    ("concatenate_none", lambda k: jnp.concatenate([k, k], axis=None), (12,),
     [0, 1, 2, 3, 4, 5] * 2),
    ("stack1", lambda k: jnp.stack([k, k], axis=1), (2, 2, 3),
     [0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5]),
    ("stack-1", lambda k: jnp.stack([k, k], axis=-1), (2, 3, 2),
     [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]),
    ("reshape", lambda k: jnp.reshape(k, (3, 2)), (3, 2), [0, 1, 2, 3, 4, 5]),
    ("reshape-1", lambda k: jnp.reshape(k, -1), (6,), [0, 1, 2, 3, 4, 5]),
    ("ravel", lambda k: jnp.ravel(k), (6,), [0, 1, 2, 3, 4, 5]),
    ("transpose", lambda k: jnp.transpose(k), (3, 2), [0, 3, 1, 4, 2, 5]),
    ("transpose_axes", lambda k: jnp.transpose(k[:, None], (1, 2, 0)), (1, 3, 2),
     [0, 3, 1, 4, 2, 5]),
    ("squeeze", lambda k: jnp.squeeze(k[:, :1]), (2,), [0, 3]),
    ("squeeze_axis", lambda k: jnp.squeeze(k[:1, :1], axis=-1), (1,), [0]),
    ("expand_dims", lambda k: jnp.expand_dims(k, -1), (2, 3, 1), [0, 1, 2, 3, 4, 5]),
    ("expand_dims2", lambda k: jnp.expand_dims(k, (0, 2)), (1, 2, 1, 3), [0, 1, 2, 3, 4, 5]),
    ("broadcast_to", lambda k: jnp.broadcast_to(k[0], (2, 3)), (2, 3), [0, 1, 2, 0, 1, 2]),
    ("where", lambda k: jnp.where(jnp.array([True, False, True]), k[0], k[1]), (3,),
     [0, 4, 2]),
    ("asarray", lambda k: jnp.asarray(k), (2, 3), [0, 1, 2, 3, 4, 5]),
    ("array", lambda k: jnp.array(k), (2, 3), [0, 1, 2, 3, 4, 5]),
    ("asarray_list", lambda k: jnp.asarray([k[0], k[1]]), (2, 3), [0, 1, 2, 3, 4, 5]),
    ("swapaxes", lambda k: jnp.swapaxes(k, 0, 1), (3, 2), [0, 3, 1, 4, 2, 5]),
    ("moveaxis", lambda k: jnp.moveaxis(k, 0, 1), (3, 2), [0, 3, 1, 4, 2, 5]),
    ("tile", lambda k: jnp.tile(k[0], 2), (6,), [0, 1, 2, 0, 1, 2]),
    ("tile_rank", lambda k: jnp.tile(k, (2, 1, 1)), (2, 2, 3), [0, 1, 2, 3, 4, 5] * 2),
    ("take_clip", lambda k: jnp.take(k, jnp.array([0, 9]), mode="clip"), (2,), [0, 5]),
    ("take_wrap", lambda k: jnp.take(k, jnp.array([0, 4]), axis=1, mode="wrap"), (2, 2),
     [0, 1, 3, 4]),
    ("jit_concatenate", lambda k: numjax.jit(lambda a, b: jnp.concatenate([a, b]))(k, k),
     (4, 3), [0, 1, 2, 3, 4, 5] * 2),
    ("vmap_stack", lambda k: numjax.vmap(lambda a: jnp.stack([a, a]))(k), (2, 2, 3),
     [0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5]),
]


@pytest.mark.parametrize("name, op, shape, rows", JNP_ON_KEYS, ids=[t[0] for t in JNP_ON_KEYS])
def test_jnp_functions_on_keys(name: str, op: Callable[[Any], Any], shape: tuple[int, ...],
                               rows: list[int]) -> None:
    k = _K()
    out = op(k)
    assert isinstance(out, type(k)) and out.dtype == k.dtype and out.shape == shape
    expected = SPLIT_2x3.reshape(6, 2)[rows].reshape(*shape, 2)
    np.testing.assert_array_equal(r.key_data(out), expected)
    assert jnp.asarray(k) is not k  # as JAX: a new key array


JNP_ON_KEYS_ERRORS: list[tuple[Callable[[Any], Any], type, str]] = [
    (lambda k: jnp.concatenate([k, jnp.zeros((2, 3), jnp.uint32)]), ValueError,
     "dtype=key<fry> is not a valid dtype for JAX type promotion."),
    (lambda k: jnp.where(jnp.array([True, False, True]), k[0], 0), ValueError,
     "dtype=key<fry> is not a valid dtype for JAX type promotion."),
    (lambda k: jnp.stack([k, jnp.zeros((2, 3))]), ValueError,
     "dtype=key<fry> is not a valid dtype for JAX type promotion."),
    (lambda k: jnp.asarray(k, dtype=jnp.uint32), ValueError,
     "Cannot convert_element_type from key<fry> to uint32"),
    (lambda k: jnp.array(k, dtype=jnp.float32), ValueError,
     "Cannot convert_element_type from key<fry> to float32"),
    (lambda k: jnp.where(k[0], k[0], k[1]), TypeError,
     "Cannot interpret 'key<fry>' as a data type"),
    (lambda k: jnp.broadcast_to(k, (4, 3)), ValueError,
     "Incompatible shapes for broadcasting: (2, 3) and requested shape (4, 3)"),
    (lambda k: jnp.squeeze(k, 0), ValueError,
     "cannot select an axis to squeeze out which has size not equal to one, got shape=(2, 3) "
     "and dimensions=(0,)"),
    (lambda k: jnp.take(k, jnp.array([0, 1])), ValueError,
     "Unsupported dtype for gather fill_value key<fry>"),
    (lambda k: numjax.grad(lambda key: r.normal(key))(k[0, 0]), TypeError,
     "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
     "np.inexact), but got key<fry>."),
    (lambda k: numjax.jacrev(lambda key: r.normal(key))(k[0, 0]), TypeError,
     "but got key<fry>."),
    (lambda k: jnp.reshape(k, 5), TypeError,
     "cannot reshape array of shape (2, 3) (size 6) into shape 5 (size 5)"),
]


@pytest.mark.parametrize("op, exc, message", JNP_ON_KEYS_ERRORS)
def test_jnp_functions_on_keys_errors(op: Callable[[Any], Any], exc: type, message: str) -> None:
    with pytest.raises(exc, match=re.escape(message)):
        op(_K())


def test_keys_are_single_leaves_to_pytree_functions() -> None:
    # As in JAX 0.4.30: a key array is one leaf of dtype key<fry>; transformations still trace
    # through it.
    k = _K()
    leaves = numjax.tree_util.tree_leaves({"k": k, "x": 1.0})
    assert leaves[0] is k and leaves[1] == 1.0
    assert numjax.tree_util.tree_map(lambda x: x.shape, {"k": k}) == {"k": (2, 3)}
    assert numjax.tree.map(lambda x: x.dtype, [k]) == [k.dtype]
    assert str(numjax.tree_util.tree_structure(k)) == "PyTreeDef(*)"
    paths = numjax.tree_util.tree_leaves_with_path({"k": k})
    assert paths[0][1] is k and numjax.tree_util.keystr(paths[0][0]) == "['k']"
    assert numjax.tree_util.all_leaves([k])
    doubled = numjax.tree_util.tree_map(lambda a: jnp.concatenate([a, a]), (k,))
    assert doubled[0].shape == (4, 3)
    state = {"key": k[0, 0], "w": jnp.ones(2)}
    new = numjax.jit(lambda s: {"key": r.split(s["key"])[0], "w": s["w"] * 2})(state)
    assert new["key"].dtype == k.dtype and new["key"].shape == ()


def test_eval_shape_of_keys() -> None:
    out = numjax.eval_shape(lambda key: r.split(key, 4), r.key(0))
    assert repr(out) == "ShapeDtypeStruct(shape=(4,), dtype=key<fry>)"
    assert out.shape == (4,) and out.dtype == r.key(0).dtype


def test_key_array_buffer_attributes_are_the_key_datas() -> None:
    # As JAX 0.4.30's PRNGKeyArray: each forwards to the uint32 key data (`_base_array`).
    keys = numjax.random.split(numjax.random.key(1), 10)
    base = keys._base_array
    assert keys.is_fully_addressable == base.is_fully_addressable
    assert keys.is_fully_replicated == base.is_fully_replicated
    assert keys.on_device_size_in_bytes() == base.on_device_size_in_bytes() == 80
    assert keys.unsafe_buffer_pointer() == base.unsafe_buffer_pointer()
    assert keys.addressable_data(0).dtype == keys.dtype
    np.testing.assert_array_equal(keys.addressable_data(0)._base_array, base.addressable_data(0))
    assert len(keys.addressable_shards) == len(base.addressable_shards) == 1
    assert len(keys.global_shards) == len(base.global_shards) == 1
    assert keys.copy_to_host_async() is None
    assert not keys.is_deleted()
    keys.delete()
    assert keys.is_deleted() and base.is_deleted()


def test_random_seed_offset_shifts_every_seed() -> None:
    # JAX 0.4.30: PRNGKey(17) under an offset of 3 is [0, 20]; key(-1) is [0, 2]; jit retraces.
    jitted = numjax.jit(lambda: r.PRNGKey(17))
    np.testing.assert_array_equal(jitted(), [0, 17])
    with _config.random_seed_offset(3):
        np.testing.assert_array_equal(r.PRNGKey(17), [0, 20])
        np.testing.assert_array_equal(r.key_data(r.key(-1)), [0, 2])
        np.testing.assert_array_equal(jitted(), [0, 20])
    np.testing.assert_array_equal(jitted(), [0, 17])


# ---- JAX 0.4.30's behaviour recorded for jnp/lax functions given key arrays ----------------

# split(key(123), 3) in JAX 0.4.30; .at[np.array([0, 2])].get() reads rows 0 and 2.
SPLIT_123 = np.array([[1653257682, 1672999557], [925083257, 785867247],
                      [3496285182, 3330727308]], np.uint32)


def test_at_get_and_set() -> None:
    keys, key = r.split(r.key(123), 3), r.key(123)
    np.testing.assert_array_equal(np.asarray(r.key_data(keys)), SPLIT_123)
    got = keys.at[np.array([0, 2])].get()
    assert got.dtype == keys.dtype
    np.testing.assert_array_equal(np.asarray(r.key_data(got)), SPLIT_123[[0, 2]])
    new = keys.at[1:].set(key)
    np.testing.assert_array_equal(np.asarray(r.key_data(new)),
                                  [SPLIT_123[0], [0, 123], [0, 123]])
    # equality broadcasts a scalar key against an array of keys, also where rank promotion
    # raises (scalar broadcasting to JAX)
    with numjax.numpy_rank_promotion("raise"):
        np.testing.assert_array_equal(np.asarray(key == new), [False, True, True])
        np.testing.assert_array_equal(np.asarray(key != new), [True, False, False])
    with pytest.raises(TypeError, match=re.escape(
            "eq got incompatible shapes for broadcasting: (2,), (3,).")):
        _ = r.split(key, 2) == keys
    with pytest.raises(TypeError, match=re.escape("Cannot interpret 'key<fry>' as a data type")):
        keys.at[0].set(1)


ERRORS: list[tuple[Callable[[Any], Any], type[Exception], str]] = [
    (lambda k: jnp.issubdtype(k, dtypes.prng_key), TypeError,
     "Cannot interpret 'Array((), dtype=key<fry>) overlaying:\n[ 0 42]' as a data type"),
    (lambda k: jnp.negative(k), TypeError,
     "neg does not accept dtype key<fry>. Accepted dtypes are subtypes of integer, "
     "complexfloating, floating."),
    (lambda k: numjax.lax.convert_element_type(k, int), ValueError,
     "Cannot convert_element_type from key<fry> to int64"),
    (lambda k: numjax.lax.convert_element_type(k, np.int32), ValueError,
     "Cannot convert_element_type from key<fry> to int32"),
    (lambda k: numjax.lax.convert_element_type(np.int32(0), k.dtype), ValueError,
     "Cannot convert_element_type from int32 to key<fry>"),
    (lambda k: jnp.array(k, dtype=jnp.int32), ValueError,
     "Cannot convert_element_type from key<fry> to int32"),
    (lambda k: numjax.lax.select(jnp.array([True, False]), r.split(k, 3), r.split(k, 3)),
     TypeError, "select `which` must be scalar or have the same shape as cases, got `which` "
     "shape (2,) but case shape (3,)."),
]


@pytest.mark.parametrize("f,exc,msg", ERRORS)
def test_function_errors_on_keys(f: Callable[[Any], Any], exc: type[Exception],
                                 msg: str) -> None:
    with pytest.raises(exc, match=re.escape(msg)):
        f(r.key(42))


def test_array_of_keys_own_dtype_and_conversion_to_it() -> None:
    k = r.key(123)
    for out in (jnp.array(k, dtype=k.dtype), jnp.asarray(k, dtype=k.dtype),
                numjax.lax.convert_element_type(k, k.dtype)):
        assert out.dtype == k.dtype and out.shape == ()
        np.testing.assert_array_equal(np.asarray(r.key_data(out)), [0, 123])


def test_eval_shape_of_key_struct() -> None:
    k = r.key(1701)
    struct = numjax.ShapeDtypeStruct(k.shape, k.dtype)
    assert numjax.eval_shape(lambda x: x, struct) == struct
    batch = numjax.ShapeDtypeStruct((3,), r.key(0, impl="rbg").dtype)
    assert numjax.eval_shape(lambda x: r.split(x[0]), batch) == numjax.ShapeDtypeStruct(
        (2,), batch.dtype)


@pytest.mark.parametrize("jit", [False, True])
def test_select_between_keys(jit: bool) -> None:
    # JAX 0.4.30: vmap(random.key)(arange(3)) is [[0, 0], [0, 1], [0, 2]]; select keeps it.
    def f(x: Any) -> Any:
        keys = numjax.vmap(r.key)(jnp.arange(3, dtype=jnp.uint32))
        return numjax.lax.select(x, keys, keys)

    out = (numjax.jit(f) if jit else f)(jnp.array([True, False, False]))
    np.testing.assert_array_equal(np.asarray(r.key_data(out)), [[0, 0], [0, 1], [0, 2]])
    a, b = r.split(r.key(0), 3), r.split(r.key(1), 3)
    pred = jnp.array([True, False, True])
    picked = numjax.lax.select(pred, a, b)
    loop = numjax.vmap(lambda p, x, y: numjax.lax.select(p, x, y))(pred, a, b)
    expected = np.where(np.asarray(pred)[:, None], np.asarray(r.key_data(a)),
                        np.asarray(r.key_data(b)))
    for out in (picked, loop):
        np.testing.assert_array_equal(np.asarray(r.key_data(out)), expected)


def test_custom_rules_see_float0_key_tangents() -> None:
    # JAX 0.4.30: a key's tangent in a custom_jvp rule, and its cotangent in a custom_vjp bwd
    # rule, is float0; the bwd rule may hand that cotangent back for the key argument.
    seen: list[Any] = []

    @numjax.custom_jvp
    def f(x: Any, key: Any) -> Any:
        return x * r.normal(key, ())

    @f.defjvp
    def f_jvp(primals: Any, tangents: Any) -> Any:
        (x, key), (x_dot, key_dot) = primals, tangents
        seen.append(key_dot)
        rand = r.normal(key, ())
        return x * rand, x_dot * rand

    k = r.key(0)
    np.testing.assert_allclose(float(numjax.grad(f)(0.0, k)), float(r.normal(k, ())))
    assert seen[0].dtype == dtypes.float0 and seen[0].shape == ()

    @numjax.custom_vjp
    def g(_: Any, state: Any) -> Any:
        return state

    def g_fwd(_: Any, state: Any) -> Any:
        return state, None

    def g_bwd(_: Any, state_bar: Any) -> Any:
        assert state_bar[1].dtype == dtypes.float0
        return state_bar[0], state_bar

    g.defvjp(g_fwd, g_bwd)
    state = (8.0, r.key(123))
    assert float(numjax.grad(lambda theta: g(theta, state)[0])(3.0)) == 1.0


def test_custom_vjp_symbolic_zeros_with_keys() -> None:
    # JAX 0.4.30: a key is one CustomVJPPrimal in fwd, and its zero cotangent a float0
    # SymbolicZero of the key's shape in bwd.
    from numjax.custom_derivatives import SymbolicZero

    @numjax.custom_vjp
    def f(_: Any, state: Any) -> Any:
        return state

    def f_fwd(_: Any, state: Any) -> Any:
        return numjax.tree.map(lambda x: x.value, state), None

    def f_bwd(_: Any, state_bar: Any) -> Any:
        assert isinstance(state_bar[1], SymbolicZero)
        assert state_bar[1].dtype == dtypes.float0 and state_bar[1].shape == ()
        return state_bar[0], state_bar

    f.defvjp(f_fwd, f_bwd, symbolic_zeros=True)
    state = (8.0, r.key(123))
    assert float(numjax.grad(lambda theta: f(theta, state)[0])(3.0)) == 1.0


# lax's structural functions on typed key arrays, as JAX 0.4.30 gives them: ks is
# random.split(random.key(3), 6), k random.key(7), m ks.reshape(2, 3); each row's data is the
# result's key_data, flattened.
LAX_ON_KEYS = [
    ("reshape", lambda ks, k, m: lax.reshape(ks, (3, 2)),
     (3, 2),
     [3701871833, 2575564568, 4256621482, 1906620386, 3023882142, 3955253366, 3353732807,
      1082133308, 1584769486, 2184914228, 444300498, 2134436474]),
    ("broadcast_in_dim", lambda ks, k, m: lax.broadcast_in_dim(ks[:2], (3, 2), (1,)),
     (3, 2),
     [3701871833, 2575564568, 4256621482, 1906620386, 3701871833, 2575564568, 4256621482,
      1906620386, 3701871833, 2575564568, 4256621482, 1906620386]),
    ("broadcast", lambda ks, k, m: lax.broadcast(k, (2,)),
     (2,),
     [0, 7, 0, 7]),
    ("squeeze", lambda ks, k, m: lax.squeeze(ks[None, :2], (0,)),
     (2,),
     [3701871833, 2575564568, 4256621482, 1906620386]),
    ("expand_dims", lambda ks, k, m: lax.expand_dims(ks[:2], (-1,)),
     (2, 1),
     [3701871833, 2575564568, 4256621482, 1906620386]),
    ("transpose", lambda ks, k, m: lax.transpose(m, (1, 0)),
     (3, 2),
     [3701871833, 2575564568, 3353732807, 1082133308, 4256621482, 1906620386, 1584769486,
      2184914228, 3023882142, 3955253366, 444300498, 2134436474]),
    ("rev", lambda ks, k, m: lax.rev(m, (1,)),
     (2, 3),
     [3023882142, 3955253366, 4256621482, 1906620386, 3701871833, 2575564568, 444300498,
      2134436474, 1584769486, 2184914228, 3353732807, 1082133308]),
    ("concatenate", lambda ks, k, m: lax.concatenate([ks[:1], ks[4:]], 0),
     (3,),
     [3701871833, 2575564568, 1584769486, 2184914228, 444300498, 2134436474]),
    ("slice", lambda ks, k, m: lax.slice(ks, (1,), (6,), (2,)),
     (3,),
     [4256621482, 1906620386, 3353732807, 1082133308, 444300498, 2134436474]),
    ("dynamic_slice", lambda ks, k, m: lax.dynamic_slice(m, (jnp.int32(1), 1), (1, 2)),
     (1, 2),
     [1584769486, 2184914228, 444300498, 2134436474]),
    ("dynamic_update_slice", lambda ks, k, m: lax.dynamic_update_slice(ks, ks[:2], (jnp.int32(3),)),
     (6,),
     [3701871833, 2575564568, 4256621482, 1906620386, 3023882142, 3955253366, 3701871833,
      2575564568, 4256621482, 1906620386, 444300498, 2134436474]),
    ("index_in_dim", lambda ks, k, m: lax.index_in_dim(m, 1, 1, keepdims=False),
     (2,),
     [4256621482, 1906620386, 1584769486, 2184914228]),
    ("dynamic_index_in_dim", lambda ks, k, m: lax.dynamic_index_in_dim(ks, 4, 0, keepdims=False),
     (),
     [1584769486, 2184914228]),
    ("slice_in_dim", lambda ks, k, m: lax.slice_in_dim(m, 0, 2, axis=1),
     (2, 2),
     [3701871833, 2575564568, 4256621482, 1906620386, 3353732807, 1082133308, 1584769486,
      2184914228]),
    ("dynamic_update_index_in_dim", lambda ks, k, m: lax.dynamic_update_index_in_dim(ks, k, 2, 0),
     (6,),
     [3701871833, 2575564568, 4256621482, 1906620386, 0, 7, 3353732807, 1082133308,
      1584769486, 2184914228, 444300498, 2134436474]),
    ("jit_reshape", lambda ks, k, m: numjax.jit(lambda a: lax.reshape(a, (3, 2)))(ks),
     (3, 2),
     [3701871833, 2575564568, 4256621482, 1906620386, 3023882142, 3955253366, 3353732807,
      1082133308, 1584769486, 2184914228, 444300498, 2134436474]),
    ("vmap_broadcast_in_dim",
     lambda ks, k, m: numjax.vmap(lambda a: lax.broadcast_in_dim(a, (2,), ()))(ks[:3]),
     (3, 2),
     [3701871833, 2575564568, 3701871833, 2575564568, 4256621482, 1906620386, 4256621482,
      1906620386, 3023882142, 3955253366, 3023882142, 3955253366]),
    ("jit_dynamic_slice",
     lambda ks, k, m: numjax.jit(lambda a, i: lax.dynamic_slice(a, (i,), (2,)))(ks, 5),
     (2,),
     [1584769486, 2184914228, 444300498, 2134436474]),
]


@pytest.mark.parametrize("name, op, shape, data", LAX_ON_KEYS, ids=[t[0] for t in LAX_ON_KEYS])
def test_lax_functions_on_keys(name: str, op: Callable[..., Any], shape: tuple[int, ...],
                               data: list[int]) -> None:
    ks = r.split(r.key(3), 6)
    out = op(ks, r.key(7), ks.reshape(2, 3))
    assert out.dtype == ks.dtype and out.shape == shape
    np.testing.assert_array_equal(r.key_data(out), np.array(data, np.uint32).reshape(*shape, 2))


def test_lax_functions_on_keys_errors() -> None:
    # JAX 0.4.30 fails to build these programs (ValueError: Operation creation failed);
    # numjax raises the same type, naming the dtype that does not mix.
    ks = r.split(r.key(3), 6)
    for op in (lambda: lax.concatenate([ks, jnp.zeros((2,), jnp.uint32)], 0),
               lambda: lax.dynamic_update_slice(ks, jnp.zeros((1,), jnp.uint32), (0,))):
        with pytest.raises(ValueError, match=re.escape("dtype=key<fry> is not a valid dtype")):
            op()
    # Where JAX fails the same way on a reshape with `dimensions`, numjax transposes first.
    m = ks.reshape(2, 3)
    np.testing.assert_array_equal(r.key_data(lax.reshape(m, (6,), (1, 0))),
                                  r.key_data(m.T.reshape(6)))


def test_shaped_array_of_a_key_dtype() -> None:
    # Libraries (flax's scan over typed keys) build key avals; JAX 0.4.30:
    # ShapedArray(key<fry>[2]), short form key<fry>[2], equal and interned like any aval.
    k = r.key(0)
    a = numjax.core.ShapedArray((2,), k.dtype)
    assert repr(a) == "ShapedArray(key<fry>[2])" and a.str_short() == "key<fry>[2]"
    assert a.dtype == k.dtype and (a.ndim, a.size, a.weak_type) == (1, 2, False)
    assert a is numjax.core.ShapedArray((2,), k.dtype)
    assert a.update(shape=(3,)).str_short() == "key<fry>[3]"
