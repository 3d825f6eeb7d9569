"""The rbg and unsafe_rbg PRNG implementations against JAX 0.4.30 (tools/make_rbg_golden.py).

Every case of test_golden.py (keys, split, fold_in, bits, every sampler) runs with
`jax_default_prng_impl` set to rbg and to unsafe_rbg, in both threefry bit layouts, eagerly and
under jit and vmap; integers, bits and keys must be equal, floats within test_golden's ulp
bounds (in practice bit-identical). Typed keys, `impl=`, `key_impl`, the printed key, the
errors for mixing implementations and `jax.extend.random` are checked against JAX's texts.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from lapack_bounds import assert_within
from test_golden import CASES, LAPACK_CASES, X64_CASES, assert_matches, decode

import numjax
import numjax.numpy as jnp
from numjax import random as r
from numjax._src.random import prng, samplers
from numjax._src.random.keys import PRNGKeyArray
from numjax.experimental import enable_x64
from numjax.extend import random as jex_random

GOLDEN = json.loads(pathlib.Path(__file__).with_name("golden_rbg.json").read_text())

TRANSFORMED_CASES: dict[str, Callable[[Any], Any]] = {
    "jit_uniform": lambda k: numjax.jit(lambda k: r.uniform(k, (5,)))(k),
    "jit_normal2x3": lambda k: numjax.jit(lambda k: r.normal(k, (2, 3)))(k),
    "jit_split3": lambda k: numjax.jit(lambda k: r.split(k, 3))(k),
    "jit_fold_in": lambda k: numjax.jit(r.fold_in)(k, 11),
    "vmap_uniform": lambda k: numjax.vmap(lambda k: r.uniform(k, (2,)))(r.split(k, 3)),
    "vmap_normal": lambda k: numjax.vmap(lambda k: r.normal(k, (3,)))(r.split(k, 2)),
    "vmap_bits_u8": lambda k: numjax.vmap(lambda k: r.bits(k, (3,), "uint8"))(r.split(k, 2)),
    "vmap_split": lambda k: numjax.vmap(r.split)(r.split(k, 2)),
    "vmap_fold_in": lambda k: numjax.vmap(r.fold_in)(r.split(k, 3), jnp.arange(3)),
    "vmap_vmap_uniform": lambda k: numjax.vmap(numjax.vmap(lambda k: r.uniform(k, (2,))))(
        r.split(k, (2, 3))),
    "jit_vmap_randint": lambda k: numjax.jit(numjax.vmap(lambda k: r.randint(k, (3,), 0, 50)))(
        r.split(k, 2)),
}
ALL_CASES = {**CASES, **TRANSFORMED_CASES}
IMPLS = ["rbg", "unsafe_rbg"]


@pytest.fixture(params=[(impl, layout) for impl in IMPLS for layout in (False, True)],
                ids=[f"{impl}-{'partitionable' if layout else 'original'}"
                     for impl in IMPLS for layout in (False, True)])
def impl_layout(request: pytest.FixtureRequest) -> Iterator[tuple[str, bool]]:
    impl, layout = request.param
    numjax.config.update("jax_default_prng_impl", impl)
    numjax.config.update("jax_threefry_partitionable", layout)
    yield impl, layout
    numjax.config.update("jax_default_prng_impl", "threefry2x32")
    numjax.config.update("jax_threefry_partitionable", False)


def _check(got_fn: Callable[[], Any], entry: dict[str, Any]) -> None:
    if "error" in entry:
        kind, _, message = entry["error"].partition(": ")
        with pytest.raises(Exception) as info:
            got_fn()
        assert f"{type(info.value).__name__}: {info.value}" == f"{kind}: {message}"
        return
    assert_matches(got_fn(), decode(entry))


def test_golden_was_made_with_jax_0_4_30() -> None:
    assert GOLDEN["jax_version"] == "0.4.30"


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_golden_x32(name: str, impl_layout: tuple[str, bool]) -> None:
    impl, layout = impl_layout
    for seed, row in GOLDEN[f"{impl} partitionable={layout}"].items():
        _check(lambda seed=seed: ALL_CASES[name](r.PRNGKey(int(seed))), row[name])


@pytest.mark.parametrize("name", sorted(LAPACK_CASES))
def test_golden_lapack_x32(name: str, impl_layout: tuple[str, bool]) -> None:
    impl, layout = impl_layout
    sampler, tolerance = LAPACK_CASES[name]
    for seed, row in GOLDEN[f"{impl} partitionable={layout}"].items():
        expected = decode(row[name])
        key = r.PRNGKey(int(seed))
        got = np.asarray(sampler(key))
        assert (got.dtype, got.shape) == (expected.dtype, expected.shape)
        assert_within(got, expected, tolerance(key))


@pytest.mark.parametrize("name", sorted(X64_CASES))
def test_golden_x64(name: str, impl_layout: tuple[str, bool]) -> None:
    impl, layout = impl_layout
    with enable_x64():
        for seed, row in GOLDEN[f"{impl} x64 partitionable={layout}"].items():
            got = X64_CASES[name](r.PRNGKey(int(seed)))
            # float64 normal: XLA's float64 erf_inv polynomial is not SciPy's (test_golden
            # allows 4 ulp); one rbg draw lands at u = 0.995, deeper in its tail: 5 ulp.
            assert_matches(got, decode(row[name]), max_ulp=6 if name == "normal_f64" else 2)


@pytest.mark.parametrize("impl", IMPLS)
def test_typed_keys_equal_raw_keys_under_the_default(impl: str) -> None:
    # A typed key of `impl` gives the draws its raw data gives when `impl` is the default.
    k = r.key(42, impl=impl)
    typed = [r.key_data(r.split(k, 3)), r.key_data(r.fold_in(k, 5)), r.uniform(k, (4,)),
             r.normal(k, (4,)), r.bits(k, (3,), jnp.uint16), r.gamma(k, 2.5, (3,))]
    with numjax.default_prng_impl(impl):
        raw = r.PRNGKey(42)
        np.testing.assert_array_equal(np.asarray(raw), np.asarray(r.key_data(k)))
        expected = [r.split(raw, 3), r.fold_in(raw, 5), r.uniform(raw, (4,)),
                    r.normal(raw, (4,)), r.bits(raw, (3,), jnp.uint16), r.gamma(raw, 2.5, (3,))]
    for a, b in zip(typed, expected, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_recorded_typed_key_values() -> None:
    # JAX 0.4.30: random.key(42, impl=...) draws.
    kr, ku = r.key(42, impl="rbg"), r.key(42, impl="unsafe_rbg")
    np.testing.assert_array_equal(np.asarray(r.key_data(kr)), [0, 42, 0, 42])
    np.testing.assert_array_equal(np.asarray(r.key_data(r.fold_in(kr, 2**31 + 5))),
                                  [4006827317, 911798682, 4006827317, 911798682])
    np.testing.assert_array_equal(np.asarray(r.key_data(r.fold_in(ku, 2**31 + 5))),
                                  [2657483175, 687976465, 2786706083, 2806695178])
    np.testing.assert_array_equal(np.asarray(r.key_data(r.split(ku, 3))),
                                  [[2620864722, 2991908441, 282133475, 2589630650],
                                   [4105776319, 298289174, 864345282, 274752888],
                                   [3163845003, 1288433488, 2875901698, 4130285303]])
    for k in (kr, ku):  # both draw their bits with the bit generator
        np.testing.assert_array_equal(
            np.asarray(r.bits(k, (5,))),
            [2620864722, 2991908441, 282133475, 2589630650, 1779689962])
    np.testing.assert_array_equal(np.asarray(r.uniform(kr, (4,))), np.array(
        [0.6102175712585449, 0.6966079473495483, 0.06568920612335205, 0.6029453277587891],
        np.float32))
    # vmap over keys: the first key draws the whole batch (JAX's rule for the bit generator).
    np.testing.assert_array_equal(
        np.asarray(numjax.vmap(lambda k: r.uniform(k, (2,)))(r.split(kr, 3))), np.array(
            [[0.2232903242111206, 0.6406168937683105], [0.6867154836654663, 0.6291399002075195],
             [0.6355292797088623, 0.47705745697021484]], np.float32))
    grad = numjax.grad(lambda x, k: (r.normal(k, (3,)) * x).sum())(1.0, r.key(0, impl="rbg"))
    np.testing.assert_allclose(float(grad), 1.5519586, rtol=1e-7)


def test_gamma_family_under_vmap_walks_the_keys_in_turn() -> None:
    # JAX 0.4.30 on CPU: the gamma draws of a batch of rbg keys are made one key after another
    # (not from the first key, as a vmapped bit generator would), eagerly and under jit.
    k = r.key(1, impl="rbg")
    draws = lambda kk: r.gamma(kk, 2.0, (2,))
    for f in (numjax.vmap(draws), numjax.jit(numjax.vmap(draws))):
        np.testing.assert_array_equal(np.asarray(f(r.split(k, 3))), np.array(
            [[0.6669408679008484, 1.8534733057022095], [0.946667492389679, 2.0341248512268066],
             [2.6053519248962402, 1.8520060777664185]], np.float32))
    np.testing.assert_array_equal(
        np.asarray(numjax.vmap(lambda kk: r.beta(kk, 2.0, 3.0))(r.split(k, 2))),
        np.array([0.7535914778709412, 0.7024720311164856], np.float32))
    np.testing.assert_array_equal(
        np.asarray(numjax.vmap(lambda a: r.gamma(k, a))(np.array([1.0, 2.0, 3.0], np.float32))),
        np.array([0.9705615043640137, 2.124992847442627, 3.2365100383758545], np.float32))
    np.testing.assert_array_equal(np.asarray(numjax.jit(lambda kk: r.gamma(kk, 0.5, (3,)))(k)),
                                  np.array([0.3214208781719208, 0.43388867378234863,
                                            0.30328232049942017], np.float32))
    # JAX: 3.7397633 and [1.3418316, 0.8599747] (its gradient rounds differently in the last
    # bit).
    np.testing.assert_allclose(float(numjax.grad(lambda a: r.gamma(k, a, (3,)).sum())(2.0)),
                               3.7397632598876953, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(numjax.vmap(numjax.grad(lambda a, kk: r.gamma(kk, a)))(
        np.array([1.0, 2.0], np.float32), r.split(k, 2))), [1.3418315649032593, 0.8599746823310852],
        rtol=1e-6)


# JAX 0.4.30: the draws of each of the keys random.split(random.key(7, impl=impl), 3), key after
# key (bits64 under x64; fold_in folds in the key's index).
PER_KEY_DRAWS: dict[str, dict[str, list[Any]]] = {
    "rbg": {
        "bits32": [[1592140744, 2375104809, 556298666], [2817942891, 4177344285, 1464944738],
                   [1375761558, 444776975, 2249583620]],
        "bits8": [[200, 41, 170, 218, 73], [107, 29, 98, 120, 211], [150, 15, 4, 233, 84]],
        "bits64": [[10200997480819467208, 14804850238072320426],
                   [17941557091025446251, 5447150445654001762],
                   [1910302563014571158, 5286921301277404164]],
        "split": [[[2709080404, 3278643229, 2709080404, 3278643229],
                   [247513045, 2607360912, 247513045, 2607360912]],
                  [[724430196, 2045320325, 724430196, 2045320325],
                   [923926730, 3248177846, 923926730, 3248177846]],
                  [[4114030667, 4155934342, 4114030667, 4155934342],
                   [202513743, 1487600086, 202513743, 1487600086]]],
        "fold_in": [[1357489188, 2048652102, 1357489188, 2048652102],
                    [3817444470, 2972256350, 3817444470, 2972256350],
                    [4114030667, 202513743, 4114030667, 202513743]],
    },
    "unsafe_rbg": {
        "bits32": [[1135839771, 3857205308, 1650114431], [1323720707, 1076733476, 3971105099],
                   [2340832895, 2265763329, 3257024815]],
        "bits8": [[27, 60, 127, 43, 62], [3, 36, 75, 145, 188], [127, 1, 47, 213, 125]],
        "bits64": [[16566570652953446939, 259925834651582335],
                   [4624535067252121603, 4503303385972359499],
                   [9731379400871921279, 8931756082974572847]],
        "split": [[[1135839771, 3857205308, 1650114431, 60518699],
                   [2681720123, 3640294751, 2064389592, 3947687532]],
                  [[1323720707, 1076733476, 3971105099, 1048507025],
                   [3649144548, 354544344, 3962772935, 3987181037]],
                  [[2340832895, 2265763329, 3257024815, 2079586517],
                   [2053540418, 3404175209, 3250966964, 1897406965]]],
        "fold_in": [[801108493, 2074581940, 1737245660, 3729335256],
                    [2895268300, 1534733443, 658420987, 2642372298],
                    [3834058245, 1252951612, 1185494677, 4233642187]],
    },
}
PER_KEY_OPS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "bits32": lambda impl, k, i: impl.random_bits(k, 32, (3,)),
    "bits8": lambda impl, k, i: impl.random_bits(k, 8, (5,)),
    "bits64": lambda impl, k, i: impl.random_bits(k, 64, (2,)),
    "split": lambda impl, k, i: impl.split(k, (2,)),
    "fold_in": lambda impl, k, i: impl.fold_in(k, i),
}


@pytest.mark.parametrize("op", sorted(PER_KEY_OPS))
@pytest.mark.parametrize("impl", IMPLS)
def test_own_bits_impl_draws_each_keys_own_bits_under_vmap(impl: str, op: str) -> None:
    # The bits of a vmapped batch of keys, one NumPy pass for the batch, are those of a loop
    # over the keys (JAX's values), where the implementation itself draws them all from the
    # first key under vmap.
    fn, impl_ = PER_KEY_OPS[op], prng.prngs[impl]
    own = prng.own_bits_impl(impl_)
    assert own is not None and own.name == impl_.name and own != impl_
    expected = np.array(PER_KEY_DRAWS[impl][op], np.uint64 if op == "bits64" else None)
    with enable_x64(op == "bits64"):
        data = r.key_data(r.split(r.key(7, impl=impl), 3))
        index = jnp.arange(3, dtype=jnp.uint32)
        loop = np.stack([np.asarray(fn(impl_, data[i], index[i])) for i in range(3)])
        np.testing.assert_array_equal(loop, expected)
        own_fn = numjax.vmap(lambda k, i: fn(own, k, i))
        for f in (own_fn, numjax.jit(own_fn)):
            np.testing.assert_array_equal(np.asarray(f(data, index)), expected)
        # Keys along axis 1, and a batch of batches.
        np.testing.assert_array_equal(np.asarray(numjax.vmap(
            lambda k, i: fn(own, k, i), in_axes=(1, 0))(data.T, index)), expected)
        nested = numjax.vmap(numjax.vmap(lambda k, i: fn(own, k, i)))(data[None], index[None])
        np.testing.assert_array_equal(np.asarray(nested)[0], expected)
        if op.startswith("bits"):  # the implementation's own vmap: the first key's stream
            first = np.asarray(numjax.vmap(lambda k: fn(impl_, k, 0))(data))
            np.testing.assert_array_equal(first[0], expected[0])
            assert not np.array_equal(first[1:], expected[1:])


# JAX 0.4.30 on CPU: gamma and loggamma of these alphas from key(3, impl=impl); 2,000 draws of
# Gamma(0.7) from key(5, impl=impl): four of them and the sum of their float32 bit patterns.
GAMMA_ALPHAS = [0.01, 0.1, 0.5, 0.9, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 100.0, 0.3]
GAMMA_DRAWS: dict[str, dict[str, Any]] = {
    "rbg": {
        "gamma": [1.3802526812868544e-15, 1.4160045358480033e-09, 0.00013198908709455281,
                  0.2311679869890213, 1.4008443355560303, 1.3673073053359985,
                  3.3746650218963623, 2.231635332107544, 2.855762004852295, 7.263180732727051,
                  100.39466094970703, 0.03963721916079521],
        "loggamma": [-34.21650695800781, -20.37542724609375, -8.932791709899902,
                     -1.4646106958389282, 0.3370751440525055, 0.31284335255622864,
                     1.2162961959838867, 0.8027346134185791, 1.049338698387146,
                     1.9828180074691772, 4.609109401702881, -3.2279868125915527],
        "many": ([0.4224036633968353, 0.5024495124816895, 0.05004516616463661,
                  1.708038330078125], 2099822676834),
        "beta": [[0.026348654180765152, 0.37439262866973877],
                 [0.2071944922208786, 0.18744133412837982],
                 [0.2930199205875397, 0.012302059680223465]],
        "dirichlet": [0.0017077263910323381, 0.17281532287597656, 0.8254770040512085],
    },
    "unsafe_rbg": {
        "gamma": [0.0, 0.0068982248194515705, 0.6701871752738953, 0.9654067754745483,
                  1.8367488384246826, 2.9130730628967285, 6.920444965362549, 4.562442779541016,
                  10.830330848693848, 8.65820598602295, 72.95906066894531,
                  0.0011679092422127724],
        "loggamma": [-173.96771240234375, -4.976491451263428, -0.4001982808113098,
                     -0.03520581126213074, 0.6079970598220825, 1.0692085027694702,
                     1.93448007106781, 1.5178581476211548, 2.382350444793701,
                     2.1585075855255127, 4.28989839553833, -6.752540111541748],
        "many": ([4.283167839050293, 2.3540523052215576, 1.9103864431381226,
                  0.6006800532341003], 2100784445541),
        "beta": [[0.33170297741889954, 0.561754584312439],
                 [0.10295403748750687, 0.5171215534210205],
                 [0.40551596879959106, 0.011091678403317928]],
        "dirichlet": [0.0008301601628772914, 0.43491581082344055, 0.5642540454864502],
    },
}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("impl", IMPLS)
def test_gamma_family_draws_as_recorded(impl: str, jit: bool) -> None:
    # One vmapped rejection loop over all the keys, each drawing its own bits: JAX's draws.
    wrap = numjax.jit if jit else (lambda f: f)
    rec, alphas = GAMMA_DRAWS[impl], jnp.array(GAMMA_ALPHAS, jnp.float32)
    k3, k5, k7 = (r.key(s, impl=impl) for s in (3, 5, 7))
    for name in ("gamma", "loggamma"):
        got = wrap(getattr(r, name))(k3, alphas)
        np.testing.assert_array_equal(np.asarray(got), np.array(rec[name], np.float32))
    many = np.asarray(wrap(lambda k: r.gamma(k, 0.7, (2000,)))(k5))
    picked, pattern_sum = rec["many"]
    np.testing.assert_array_equal(many[[0, 1, 999, 1999]], np.array(picked, np.float32))
    assert int(many.view(np.uint32).astype(np.uint64).sum()) == pattern_sum
    beta = wrap(numjax.vmap(lambda k: r.beta(k, 0.5, 2.0, (2,))))(r.split(k7, 3))
    np.testing.assert_array_equal(np.asarray(beta), np.array(rec["beta"], np.float32))
    dirichlet = wrap(r.dirichlet)(r.split(k7, 3)[0], jnp.array([0.5, 1.0, 2.0]))
    np.testing.assert_array_equal(np.asarray(dirichlet), np.array(rec["dirichlet"], np.float32))


@pytest.mark.parametrize("log_space", [False, True])
@pytest.mark.parametrize("impl", IMPLS)
def test_gamma_walk_is_the_loop_over_keys(impl: str, log_space: bool) -> None:
    # The vmapped rejection loop over keys that draw their own bits gives, bit for bit, what
    # drawing for one key after another gives.
    keys = r.split(r.key(11, impl=impl), 24)
    alphas = np.linspace(0.05, 6.0, 24, dtype=np.float32)
    own = PRNGKeyArray(r.key_data(keys), prng.own_bits_impl(keys._impl))
    walk = numjax.vmap(lambda k, a: samplers._gamma_one(k, a, log_space))(own, alphas)
    loop = [samplers._gamma_one(keys[i], alphas[i], log_space) for i in range(24)]
    np.testing.assert_array_equal(np.asarray(walk), np.array(loop, np.float32))


def test_printing_dtype_and_key_impl() -> None:
    kr, ku = r.key(0, impl="rbg"), r.key(0, impl="unsafe_rbg")
    assert repr(kr) == "Array((), dtype=key<rbg>) overlaying:\n[0 0 0 0]"
    assert str(r.split(ku, 2)) == (
        "Array((2,), dtype=key<urbg>) overlaying:\n"
        "[[1713891541 3781805453 3159862348 2600524760]\n"
        " [3614953066 3503513258  724076422 3372229774]]")
    assert (str(kr.dtype), str(ku.dtype), kr.dtype.itemsize) == ("key<rbg>", "key<urbg>", 16)
    assert numjax.dtypes.issubdtype(kr.dtype, numjax.dtypes.prng_key)
    assert (str(r.key_impl(kr)), str(r.key_impl(ku)), str(r.key_impl(r.key(0)))) == (
        "rbg", "urbg", "fry")
    assert r.key_impl(kr) != r.key_impl(ku) and r.key_impl(kr) == r.key_impl(r.split(kr)[0])
    assert r.key(0, impl=r.key_impl(ku)).dtype == ku.dtype
    assert r.key(0, impl=jex_random.rbg_prng_impl).dtype == kr.dtype
    np.testing.assert_array_equal(np.asarray(r.PRNGKey(5, impl="unsafe_rbg")), [0, 5, 0, 5])
    np.testing.assert_array_equal(np.asarray(r.key_data(r.key(2**40 + 3, impl="rbg"))),
                                  [0, 3, 0, 3])


def _raises(kind: type[Exception], message: str, fn: Callable[[], Any]) -> None:
    with pytest.raises(kind) as info:
        fn()
    assert str(info.value) == message


def test_errors_as_jax() -> None:
    kf, kr, ku = r.key(0), r.key(0, impl="rbg"), r.key(0, impl="unsafe_rbg")
    promotion = "dtype=key<rbg> is not a valid dtype for JAX type promotion."
    _raises(ValueError, promotion, lambda: jnp.concatenate([kf[None], kr[None]]))
    _raises(ValueError, promotion, lambda: jnp.concatenate([kr[None], jnp.zeros(1)]))
    _raises(ValueError, promotion, lambda: jnp.stack([kf, kr]))
    _raises(ValueError, promotion, lambda: jnp.where(True, kf, kr))
    _raises(TypeError, "equal does not accept dtypes key<rbg>, key<fry>.", lambda: kr == kf)
    _raises(TypeError, "not_equal does not accept dtypes key<rbg>, key<fry>.", lambda: kr != kf)
    assert bool(kr == kr) and not bool(ku != ku)
    _raises(TypeError, "add does not accept dtype key<rbg> at position 0. Accepted dtypes at "
            "position 0 are subtypes of integer, complexfloating, floating.", lambda: kr + kr)
    _raises(TypeError, "add does not accept dtypes key<rbg>, int32.", lambda: kr + 1)
    _raises(TypeError, "neg does not accept dtype key<urbg>. Accepted dtypes are subtypes of "
            "integer, complexfloating, floating.", lambda: -ku)
    _raises(ValueError, "Cannot convert_element_type from key<rbg> to float32",
            lambda: jnp.asarray(kr, dtype=jnp.float32))
    _raises(ValueError, 'unrecognized PRNG implementation "foo". Did you mean one of: '
            '"threefry2x32", "rbg", "unsafe_rbg"?', lambda: r.key(0, impl="foo"))
    _raises(TypeError, "unrecognized type <class 'int'> for specifying PRNG implementation.",
            lambda: r.key(0, impl=3))
    _raises(NotImplementedError, "`poisson` is only implemented for the threefry2x32 RNG, "
            "not rbg", lambda: r.poisson(kr, 3.0))
    # Raw keys are read with the default implementation (JAX's text, up to the functions'
    # addresses in the implementation's repr).
    for fn in (lambda: r.uniform(r.PRNGKey(0, impl="rbg"), (2,)),
               lambda: r.wrap_key_data(jnp.zeros(4, jnp.uint32))):
        with pytest.raises(TypeError, match=r"^JAX encountered invalid PRNG key data: expected "
                           r"key_data.shape to end with \(2,\); got shape=\(4,\) for "
                           r"impl=PRNGImpl\(key_shape=\(2,\), seed=<function threefry_seed"):
            fn()
    with pytest.raises(TypeError, match=r"end with \(4,\); got shape=\(2,\) for impl=PRNGImpl"
                       r"\(key_shape=\(4,\), seed=<function _rbg_seed at .*name='rbg', "
                       r"tag='rbg'\)$"):
        r.wrap_key_data(jnp.zeros(2, jnp.uint32), impl="rbg")


def test_default_impl_from_config_and_environment() -> None:
    with numjax.default_prng_impl("unsafe_rbg"):
        assert r.key(1).dtype == r.key(0, impl="unsafe_rbg").dtype
        np.testing.assert_array_equal(
            np.asarray(r.split(r.PRNGKey(1))),
            [[2171749223, 319503759, 4190832936, 2957128538],
             [737520201, 4089651340, 3484224072, 3623904823]])
    assert r.key(1).dtype == r.key(0).dtype
    code = ("from numjax import random as r; print(r.key(3).dtype, r.PRNGKey(3).tolist(), "
            "r.uniform(r.PRNGKey(3), (2,)).tolist())")
    env = {**os.environ, "JAX_DEFAULT_PRNG_IMPL": "rbg"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    # JAX 0.4.30 with JAX_DEFAULT_PRNG_IMPL=rbg: [0.73270273, 0.78952944].
    assert out[:5] == ["key<rbg>", "[0,", "3,", "0,", "3]"]
    np.testing.assert_array_equal(np.array([float(out[5][1:-1]), float(out[6][:-1])],
                                           np.float32),
                                  np.array([0.73270273, 0.78952944], np.float32))


def test_extend_random() -> None:
    assert [p.name for p in (jex_random.threefry_prng_impl, jex_random.rbg_prng_impl,
                             jex_random.unsafe_rbg_prng_impl)] == [
        "threefry2x32", "rbg", "unsafe_rbg"]
    assert str(jex_random.unsafe_rbg_prng_impl) == "urbg"
    keys = jex_random.random_seed(jnp.arange(3), "rbg")
    np.testing.assert_array_equal(np.asarray(r.key_data(keys)),
                                  [[0, 0, 0, 0], [0, 1, 0, 1], [0, 2, 0, 2]])
    assert jex_random.seed_with_impl(jex_random.unsafe_rbg_prng_impl, 5).dtype == \
        r.key(0, impl="unsafe_rbg").dtype
    fry = jex_random.threefry_prng_impl
    spec = jex_random.define_prng_impl(key_shape=(2,), seed=fry.seed, split=fry.split,
                                       random_bits=fry.random_bits, fold_in=fry.fold_in,
                                       name="my_fry", tag="myfry")
    k = r.key(0, impl=spec)
    assert str(k.dtype) == "key<myfry>" and str(r.key_impl(k)) == "myfry"
    np.testing.assert_array_equal(np.asarray(r.uniform(k, (2,))),
                                  np.asarray(r.uniform(r.key(0), (2,))))
    np.testing.assert_array_equal(
        np.asarray(jex_random.threefry_2x32(np.array([0, 0], np.uint32),
                                            np.array([0, 0], np.uint32))),
        np.asarray(jex_random.threefry2x32_p.bind(*(np.zeros(1, np.uint32),) * 4)).ravel())


LEGACY = ("Legacy uint32 key array passed as key to jax.random function. Please create keys "
          'using jax.random.key(). If use of a raw key array was intended, set '
          'jax_legacy_prng_key="allow".')


def test_legacy_prng_key_and_enable_custom_prng() -> None:
    # JAX 0.4.30: raw keys are allowed by default, warned about or refused on request.
    assert numjax.config.jax_legacy_prng_key == "allow"
    with numjax.legacy_prng_key("allow"):
        np.testing.assert_array_equal(np.asarray(r.uniform(r.PRNGKey(0))),
                                      np.float32(0.41845703))
    with numjax.legacy_prng_key("warn"), pytest.warns(UserWarning) as record:
        assert r.split(r.PRNGKey(0)).shape == (2, 2)
    assert [str(w.message) for w in record] == [LEGACY]
    with numjax.legacy_prng_key("error"):
        _raises(ValueError, LEGACY, lambda: r.split(r.PRNGKey(0)))
        assert r.split(r.key(0)).shape == (2,)  # typed keys are fine
    # jax_enable_custom_prng: PRNGKey and functions of raw keys return typed keys.
    with numjax.enable_custom_prng(True):
        k = r.PRNGKey(0)
        assert str(k.dtype) == "key<fry>"
        with pytest.warns(FutureWarning, match="Raw arrays as random keys to jax.random "
                          "functions are deprecated. Assuming valid threefry2x32 key for now."):
            assert str(r.split(r.key_data(k)).dtype) == "key<fry>"
    with pytest.raises(ValueError, match="jax_legacy_prng_key"):
        numjax.config.update("jax_legacy_prng_key", "sometimes")


def test_bernoulli_broadcasts_p_with_rank_promotion() -> None:
    # JAX 0.4.30 compares the draws with jnp's `<`: p of shape (2,) broadcasts against
    # shape=(3, 2), and numpy_rank_promotion='raise' refuses it with jnp's error.
    p = np.array([0.2, 0.3])
    np.testing.assert_array_equal(np.asarray(r.bernoulli(r.PRNGKey(0), p, shape=(3, 2))),
                                  [[False, True], [False, False], [False, False]])
    np.testing.assert_array_equal(
        np.asarray(r.bernoulli(r.key(0, impl="rbg"), np.array([0.2, 0.9]), shape=(3, 2))),
        [[False, True], [False, True], [False, True]])
    with numjax.numpy_rank_promotion("raise"), pytest.raises(
            ValueError, match=r"Operands could not be broadcast together for less on shapes "
                              r"\(3, 2\) \(2,\) and with the config option "
                              r"jax_numpy_rank_promotion='raise'"):
        r.bernoulli(r.PRNGKey(0), p, shape=(3, 2))
